// Maintenance query: pending episodes of one group, or of every group when $group_id is null.
MATCH (e:Episode)
USING INDEX e:Episode(status)
WHERE e.status = 'pending' AND ($group_id IS NULL OR e.group_id = $group_id)
WITH e
ORDER BY e.occurred_at, e.id
LIMIT $limit
RETURN e {.id, .group_id, .role, .speaker, .content, occurred_at: toString(e.occurred_at), created_at: toString(e.created_at), .session_id, .source, .content_sha256, .metadata, .status, .status_reason, .archive_ref} AS e
