// Versions touching the entities (either end) that temporal.ended describes: believed at
// $known_at, with a closed valid time that ends at or before $as_of. The latest end first,
// ties by version id. An open end is stored as valid_to = null, so it never counts as ended.
MATCH (s:Entity)-[f:FACT]->(o:Entity)
USING INDEX f:FACT(group_id, tx_end, valid_end, valid_start)
WHERE f.group_id = $group_id AND f.tx_end > $known_at AND f.valid_end <= $as_of AND f.valid_start <= $as_of
  AND {{ended_fact:f}}  // the seek above is implied by the rule; it lets the index serve it
  AND ($predicates IS NULL OR f.predicate IN $predicates)
  AND (s.id IN $ids OR o.id IN $ids) AND (NOT $both OR (s.id IN $ids AND o.id IN $ids))
WITH f, s, o
ORDER BY f.valid_to DESC, f.id
LIMIT $limit
RETURN f {.id, .fact_id, .group_id, .subject, .predicate, .object, .statement, valid_from: toString(f.valid_from), valid_to: toString(f.valid_to),
  created_at: toString(f.created_at), expired_at: toString(f.expired_at), .expired_by, .episode_ids, .extractor, .prompt_version, .confidence,
  .reinforcement_count} AS f, s.id AS subject_id, o.id AS object_id
