// Maintenance query: pending episodes of one group, or of every group when $group_id is null.
MATCH (e:Episode)
WHERE e.status IN $statuses AND ($group_id IS NULL OR e.group_id = $group_id)
RETURN e
ORDER BY e.occurred_at, e.id
LIMIT $limit
