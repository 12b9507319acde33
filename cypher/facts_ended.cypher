// Versions touching the entities (either end) that temporal.ended describes: believed at
// $known_at, with a closed valid time that ends at or before $as_of. The latest end first,
// ties by version id. An open end is stored as valid_to = null, so it never counts as ended.
// Two seeks. The versions still believed (tx_end is the open end: an equality, so the seek is
// bounded by valid_end, the indexed copy of valid_to) are read in the index's order, latest end
// first, and the limit stops the reading once it has its rows; a recall asks for the latest
// ended value of a named entity, and used to read every ended version of the group (9,000 at
// 100k episodes) to keep one. The versions whose belief closed after $known_at (none for a
// question about now) are few, and sorted.
CALL () {
  MATCH (s:Entity)-[f:FACT]->(o:Entity)
  USING INDEX f:FACT(group_id, tx_end, valid_end, valid_start)
  WHERE f.group_id = $group_id AND f.tx_end = {{open_end}} AND f.valid_end <= $as_of AND f.valid_start <= $as_of
    AND {{ended_fact:f}} AND ($predicates IS NULL OR f.predicate IN $predicates)
    AND (s.id IN $ids OR o.id IN $ids) AND (NOT $both OR (s.id IN $ids AND o.id IN $ids))
  WITH f, s, o
  ORDER BY f.group_id DESC, f.tx_end DESC, f.valid_end DESC, f.id  // both fixed: the index's order, read from the end
  LIMIT $limit
  RETURN f, s, o
  UNION ALL
  MATCH (s:Entity)-[f:FACT]->(o:Entity)
  USING INDEX f:FACT(group_id, tx_end, valid_end, valid_start)
  WHERE f.group_id = $group_id AND f.tx_end > $known_at AND f.tx_end < {{open_end}} AND f.valid_end <= $as_of
    AND f.valid_start <= $as_of
    AND {{ended_fact:f}} AND ($predicates IS NULL OR f.predicate IN $predicates)
    AND (s.id IN $ids OR o.id IN $ids) AND (NOT $both OR (s.id IN $ids AND o.id IN $ids))
  WITH f, s, o
  ORDER BY f.valid_end DESC, f.id
  LIMIT $limit
  RETURN f, s, o
}
WITH f, s, o
ORDER BY f.valid_to DESC, f.id
LIMIT $limit
RETURN collect({f: f {.id, .fact_id, .group_id, .subject, .predicate, .object, .statement, valid_from: toString(f.valid_from), valid_to: toString(f.valid_to),
  created_at: toString(f.created_at), expired_at: toString(f.expired_at), .expired_by, .episode_ids, .extractor, .prompt_version, .confidence,
  .reinforcement_count},
  subject_id: s.id, object_id: o.id}) AS rows
