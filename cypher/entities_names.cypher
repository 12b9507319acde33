// Entity names of one group, by name (hints for a name that matched nothing).
MATCH (n:Entity) WHERE n.group_id = $group_id AND n.key IS NOT NULL
RETURN n.name AS name ORDER BY name LIMIT $limit
