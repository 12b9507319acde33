// Up to $n turns of the session before $before, latest first (ties by id). A null $session_id
// reads the group's session-less turns, as the reference store does.
MATCH (e:Episode)
WHERE e.group_id = $group_id AND e.occurred_at < $before
  AND (e.session_id = $session_id OR (e.session_id IS NULL AND $session_id IS NULL))
WITH e
ORDER BY e.occurred_at DESC, e.id DESC
LIMIT $n
RETURN e {.id, .group_id, .role, .speaker, .content, occurred_at: toString(e.occurred_at), created_at: toString(e.created_at), .session_id, .source, .content_sha256, .metadata, .status, .status_reason, .archive_ref} AS e
