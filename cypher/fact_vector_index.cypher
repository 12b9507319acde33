CALL db.index.vector.queryRelationships('kgmem_fact_embedding', $fetch, $vector) YIELD relationship, score
WITH relationship AS f, score
WHERE f.group_id = $group_id
  AND f.created_at <= $known_at AND (f.expired_at IS NULL OR f.expired_at > $known_at)
  AND (f.valid_from IS NULL OR f.valid_from <= $as_of) AND (f.valid_to IS NULL OR f.valid_to > $as_of)
MATCH (s:Entity)-[f]->(o:Entity)
RETURN f, s.id AS subject_id, o.id AS object_id, score
ORDER BY score DESC
LIMIT $k
