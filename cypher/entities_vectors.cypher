// The stored name vectors of these entities.
MATCH (n:Entity)
WHERE n.group_id = $group_id AND n.id IN $ids AND n.embedding IS NOT NULL
RETURN n.id AS id, n.embedding AS embedding
