MATCH (s:Entity)-[f:FACT]->(o:Entity)
WHERE o.group_id = $group_id AND o.id IN $ids AND f.group_id = $group_id AND f.expired_at IS NULL
RETURN f, s.id AS subject_id, o.id AS object_id
