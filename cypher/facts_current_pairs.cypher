// Believed-now versions (expired_at null) for (subject, predicate) pairs.
UNWIND $pairs AS p
MATCH (s:Entity {id: p.subject_id})-[f:FACT]->(o:Entity)
WHERE s.group_id = $group_id AND f.group_id = $group_id AND f.predicate = p.predicate AND f.expired_at IS NULL
RETURN f, s.id AS subject_id, o.id AS object_id
