MATCH (s:Entity)-[f:FACT]->(o:Entity)
WHERE f.group_id = $group_id AND f.embedding IS NOT NULL
  AND f.created_at <= $known_at AND (f.expired_at IS NULL OR f.expired_at > $known_at)
  AND (f.valid_from IS NULL OR f.valid_from <= $as_of) AND (f.valid_to IS NULL OR f.valid_to > $as_of)
WITH f, s, o, vector.similarity.cosine(f.embedding, $vector) AS score
ORDER BY score DESC
LIMIT $k
RETURN f, s.id AS subject_id, o.id AS object_id, score
