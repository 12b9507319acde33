MATCH (n:Entity)
WHERE n.group_id = $group_id AND n.key IN $keys
RETURN n {.id, .group_id, .name, .key, .kind, .aliases, .merged_into, created_at: toString(n.created_at)} AS n
