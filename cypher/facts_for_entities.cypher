// Versions touching the entities (either end), valid at $as_of and believed at $known_at,
// optionally only for some predicates.
MATCH (n:Entity)
WHERE n.group_id = $group_id AND n.id IN $ids
MATCH (n)-[f:FACT]-(:Entity)
WHERE f.group_id = $group_id AND ($predicates IS NULL OR f.predicate IN $predicates)
  AND f.created_at <= $known_at AND (f.expired_at IS NULL OR f.expired_at > $known_at)
  AND (f.valid_from IS NULL OR f.valid_from <= $as_of) AND (f.valid_to IS NULL OR f.valid_to > $as_of)
WITH DISTINCT f
LIMIT $limit
MATCH (s:Entity)-[f]->(o:Entity)
RETURN f {.id, .fact_id, .group_id, .subject, .predicate, .object, .statement, valid_from: toString(f.valid_from), valid_to: toString(f.valid_to),
  created_at: toString(f.created_at), expired_at: toString(f.expired_at), .expired_by, .episode_ids, .extractor, .prompt_version, .confidence,
  .reinforcement_count} AS f, s.id AS subject_id, o.id AS object_id
