// As episode_vector_exact, over the fact versions visible at ($as_of, $known_at).
MATCH ()-[f:FACT]->()
USING INDEX f:FACT(group_id)
WHERE f.group_id = $group_id AND f.embedding IS NOT NULL
  AND f.created_at <= $known_at AND (f.expired_at IS NULL OR f.expired_at > $known_at)
  AND (f.valid_from IS NULL OR f.valid_from <= $as_of) AND (f.valid_to IS NULL OR f.valid_to > $as_of)
WITH f LIMIT $cap + 1
WITH collect(f) AS cands
WITH size(cands) AS n, cands
UNWIND CASE WHEN n > 0 AND n <= $cap THEN cands ELSE [null] END AS c
WITH n, c, CASE WHEN c IS NULL THEN -2.0 ELSE vector.similarity.cosine(c.embedding, $vector) END AS score
ORDER BY score DESC
LIMIT $k
RETURN n, CASE WHEN c IS NULL THEN null ELSE c {.id, .fact_id, .group_id, .subject, .predicate, .object,
  .statement, valid_from: toString(c.valid_from), valid_to: toString(c.valid_to), created_at: toString(c.created_at), expired_at: toString(c.expired_at), .expired_by, .episode_ids, .extractor,
  .prompt_version, .confidence, .reinforcement_count} END AS f,
  startNode(c).id AS subject_id, endNode(c).id AS object_id, score
