// The content sha256 of every episode of the group (erasure clears the LLM cache with them).
MATCH (e:Episode) WHERE e.group_id = $group_id AND e.occurred_at IS NOT NULL
RETURN DISTINCT e.content_sha256 AS h ORDER BY h
