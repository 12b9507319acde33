// Every entity of the group, by id.
MATCH (n:Entity)
WHERE n.group_id = $group_id AND n.key IS NOT NULL
RETURN n {.id, .group_id, .name, .key, .kind, .aliases, .merged_into, created_at: toString(n.created_at)} AS n
ORDER BY n.id
