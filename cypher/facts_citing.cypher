// Versions citing any of $episode_ids (through their evidence nodes), or with any of $entity_ids
// at either end; oldest belief first.
CALL () {
  MATCH (x:Evidence)
  WHERE x.group_id = $group_id AND x.episode_id IN $episode_ids
  CALL (x) {
    MATCH (s:Entity)-[f:FACT]->(o:Entity)
    WHERE f.id = x.version_id
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
ORDER BY f.created_at, f.id
RETURN f {.id, .fact_id, .group_id, .subject, .predicate, .object, .statement, valid_from: toString(f.valid_from),
  valid_to: toString(f.valid_to), created_at: toString(f.created_at), expired_at: toString(f.expired_at),
  .expired_by, .episode_ids, .extractor, .prompt_version, .confidence, .reinforcement_count} AS f,
  s.id AS subject_id, o.id AS object_id
