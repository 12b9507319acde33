// Erasure: the provenance (and evidence count) of versions that stay, without the erased episodes.
UNWIND $rows AS row
MATCH ()-[f:FACT]->()
WHERE f.group_id = $group_id AND f.id = row.id
SET f.episode_ids = row.episode_ids, f.reinforcement_count = row.evidence
WITH f, row
CALL (f) {
  MATCH (x:Evidence)
  WHERE x.group_id = $group_id AND x.version_id = f.id
  DELETE x
}
FOREACH (ep IN row.episode_ids | CREATE (:Evidence {group_id: $group_id, episode_id: ep, version_id: f.id}))
