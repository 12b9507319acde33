MATCH (s:Entity)-[f:FACT]->(o:Entity)
WHERE f.group_id = $group_id AND (s.id = $entity_id OR o.id = $entity_id)
  AND ($predicate IS NULL OR f.predicate = $predicate)
RETURN f, s.id AS subject_id, o.id AS object_id
ORDER BY f.created_at, f.id
