// How many episodes pass the pre-filter, counted up to $cap (decides exact scan or index).
MATCH (e:Episode)
WHERE e.group_id = $group_id AND e.occurred_at <= $as_of AND e.created_at <= $known_at AND e.embedding IS NOT NULL
WITH e LIMIT $cap
RETURN count(e) AS n
