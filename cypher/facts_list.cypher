// A group's versions, visible at ($as_of, $known_at) unless $all_versions, optionally with the
// entity at either end and only one predicate; the first $limit, oldest belief first. With an
// entity, the match starts from it (a version with the entity at both ends is one row).
CALL () {
  MATCH (s:Entity {id: $entity_id})-[f:FACT]->(o:Entity)
  WHERE f.group_id = $group_id
  RETURN s, f, o
  UNION
  MATCH (s:Entity)-[f:FACT]->(o:Entity {id: $entity_id})
  WHERE f.group_id = $group_id
  RETURN s, f, o
  UNION
  WITH $entity_id AS anchor
  WHERE anchor IS NULL
  MATCH (s:Entity)-[f:FACT]->(o:Entity)
  WHERE f.group_id = $group_id
  RETURN s, f, o
}
WITH s, f, o
WHERE ($all_versions OR {{visible_fact:f}})
  AND ($predicate IS NULL OR f.predicate = $predicate)
WITH s, f, o
ORDER BY f.created_at, f.id
LIMIT $limit
RETURN f {.id, .fact_id, .group_id, .subject, .predicate, .object, .statement, valid_from: toString(f.valid_from),
  valid_to: toString(f.valid_to), created_at: toString(f.created_at), expired_at: toString(f.expired_at),
  .expired_by, .episode_ids, .extractor, .prompt_version, .confidence, .reinforcement_count} AS f,
  s.id AS subject_id, o.id AS object_id
