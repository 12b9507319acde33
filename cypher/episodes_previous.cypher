MATCH (e:Episode)
WHERE e.group_id = $group_id AND e.session_id = $session_id AND e.occurred_at < $before
RETURN e
ORDER BY e.occurred_at DESC
LIMIT $n
