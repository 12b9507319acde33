MATCH (e:Episode)
WHERE e.group_id = $group_id AND e.id IN $ids
RETURN e
