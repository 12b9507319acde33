MATCH (e:Episode)
WHERE e.group_id = $group_id AND e.session_id = $session_id AND e.occurred_at < $before
WITH e
ORDER BY e.occurred_at DESC
LIMIT $n
RETURN e {.id, .group_id, .role, .speaker, .content, occurred_at: toString(e.occurred_at), created_at: toString(e.created_at), .session_id, .source, .content_sha256, .metadata, .status, .status_reason} AS e
