// Versions touching the entities (either end), valid at $as_of and believed at $known_at,
// optionally only for some predicates; the $limit latest by start. The seeks are index hints
// only; the rule itself is the compiled visible_fact placeholder after them. Starts from the
// visibility seeks of fact_vector_exact rather than from the entities: a hub entity ("the user") has every version of its history
// attached, while what is visible at one point in both times is small.
CALL () {
  MATCH (s:Entity)-[f:FACT]->(o:Entity)
  USING INDEX f:FACT(group_id, tx_end, valid_end, valid_start)
  WHERE f.group_id = $group_id AND f.tx_end = {{open_end}}
    AND f.valid_end > $as_of AND f.valid_start <= $as_of
  RETURN f, s, o
  UNION ALL
  MATCH (s:Entity)-[f:FACT]->(o:Entity)
  USING INDEX f:FACT(group_id, tx_end, valid_end, valid_start)
  WHERE f.group_id = $group_id AND f.tx_end > $known_at AND f.tx_end < {{open_end}}
    AND f.valid_end > $as_of AND f.valid_start <= $as_of
  RETURN f, s, o
}
WITH f, s, o WHERE {{visible_fact:f}} AND ($predicates IS NULL OR f.predicate IN $predicates)
  AND (s.id IN $ids OR o.id IN $ids) AND (NOT $both OR (s.id IN $ids AND o.id IN $ids))
WITH f, s, o
ORDER BY f.valid_start DESC, f.id  // the reference store's order: latest start first (open = year 1), then id
LIMIT $limit
RETURN collect({f: f {.id, .fact_id, .group_id, .subject, .predicate, .object, .statement, valid_from: toString(f.valid_from), valid_to: toString(f.valid_to),
  created_at: toString(f.created_at), expired_at: toString(f.expired_at), .expired_by, .episode_ids, .extractor, .prompt_version, .confidence,
  .reinforcement_count},
  subject_id: s.id, object_id: o.id}) AS rows
