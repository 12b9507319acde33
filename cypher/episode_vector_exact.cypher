// Pre-filter on group and time, then rank every survivor exactly.
MATCH (e:Episode)
WHERE e.group_id = $group_id AND e.occurred_at <= $as_of AND e.created_at <= $known_at AND e.embedding IS NOT NULL
WITH e, vector.similarity.cosine(e.embedding, $vector) AS score
ORDER BY score DESC
LIMIT $k
RETURN e.id AS id, score
