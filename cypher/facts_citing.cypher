// Versions citing any of $episode_ids, or with any of $entity_ids at either end; oldest belief first.
MATCH (s:Entity)-[f:FACT]->(o:Entity)
WHERE f.group_id = $group_id
  AND (s.id IN $entity_ids OR o.id IN $entity_ids OR any(x IN f.episode_ids WHERE x IN $episode_ids))
WITH s, f, o
ORDER BY f.created_at, f.id
RETURN f {.id, .fact_id, .group_id, .subject, .predicate, .object, .statement, valid_from: toString(f.valid_from),
  valid_to: toString(f.valid_to), created_at: toString(f.created_at), expired_at: toString(f.expired_at),
  .expired_by, .episode_ids, .extractor, .prompt_version, .confidence, .reinforcement_count} AS f,
  s.id AS subject_id, o.id AS object_id
