// The group's job records of one kind, by (at, id).
MATCH (r:JobRecord)
WHERE r.group_id = $group_id AND r.kind = $kind AND r.id IS NOT NULL
RETURN r.id AS id, toString(r.at) AS at, r.body AS body
ORDER BY r.at, r.id
