// Versions citing any of $episode_ids (through their evidence nodes), or with any of $entity_ids
// at either end; oldest belief first.
CALL () {
  MATCH (x:Evidence)
  WHERE x.group_id = $group_id AND x.episode_id IN $episode_ids
  WITH DISTINCT x.version_id AS vid  // a restated version has evidence in many of the episodes: seek it once
  CALL (vid) {
    MATCH (s:Entity)-[f:FACT]->(o:Entity)
    WHERE f.id = vid
    RETURN s, f, o
  }
  RETURN s, f, o
  UNION
  UNWIND $entity_ids AS eid
  MATCH (s:Entity {id: eid})-[f:FACT]->(o:Entity)
  RETURN s, f, o
  UNION
  UNWIND $entity_ids AS eid
  MATCH (s:Entity)-[f:FACT]->(o:Entity {id: eid})
  RETURN s, f, o
}
WITH s, f, o
WHERE f.group_id = $group_id
WITH s, f, o
ORDER BY f.created_at, f.id
RETURN collect({f: f {.id, .fact_id, .group_id, .subject, .predicate, .object, .statement, valid_from: toString(f.valid_from),
    valid_to: toString(f.valid_to), created_at: toString(f.created_at), expired_at: toString(f.expired_at),
    .expired_by, .episode_ids, .extractor, .prompt_version, .confidence, .reinforcement_count},
  subject_id: s.id, object_id: o.id}) AS rows  // one record: a record per row costs the client ~2x more
