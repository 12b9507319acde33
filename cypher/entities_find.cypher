MATCH (n:Entity)
WHERE n.group_id = $group_id AND n.key IN $keys
RETURN n
