// As episode_vector_exact, over the fact versions visible at ($as_of, $known_at). Two seeks on
// (group_id, tx_end, valid_end, valid_start), neither of which reads history that cannot be
// visible: the versions still believed (tx_end is the open-end stand-in, migration 0005) that
// are true at $as_of, and the retired ones that we still believed at $known_at. The seeks are
// index hints only; the rule itself is the compiled visible_fact placeholder after them.
CALL () {
  MATCH ()-[f:FACT]->()
  USING INDEX f:FACT(group_id, tx_end, valid_end, valid_start)
  WHERE f.group_id = $group_id AND f.tx_end = {{open_end}}
    AND f.valid_end > $as_of AND f.valid_start <= $as_of
  RETURN f
  UNION ALL
  MATCH ()-[f:FACT]->()
  USING INDEX f:FACT(group_id, tx_end, valid_end, valid_start)
  WHERE f.group_id = $group_id AND f.tx_end > $known_at AND f.tx_end < {{open_end}}
    AND f.valid_end > $as_of AND f.valid_start <= $as_of
  RETURN f
}
WITH f WHERE {{visible_fact:f}} AND f.embedding IS NOT NULL
WITH f LIMIT $cap + 1
WITH collect(f) AS cands
WITH size(cands) AS n, cands
UNWIND CASE WHEN n > 0 AND n <= $cap THEN cands ELSE [null] END AS c
WITH n, c, CASE WHEN c IS NULL THEN -2.0 ELSE vector.similarity.cosine(c.embedding, $vector) END AS score
ORDER BY score DESC
LIMIT $k
RETURN n, collect(CASE WHEN c IS NULL THEN null ELSE {f: c {.id, .fact_id, .group_id, .subject, .predicate, .object,
  .statement, valid_from: toString(c.valid_from), valid_to: toString(c.valid_to), created_at: toString(c.created_at), expired_at: toString(c.expired_at), .expired_by, .episode_ids, .extractor,
  .prompt_version, .confidence, .reinforcement_count},
  subject_id: startNode(c).id, object_id: endNode(c).id, score: score} END) AS rows
