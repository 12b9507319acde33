// The first $limit episodes of the group by (occurred_at, id) after the cursor ($after_at, $after_id),
// before $before, archived or not ($archived null: both).
MATCH (e:Episode)
WHERE e.group_id = $group_id AND e.occurred_at IS NOT NULL
  AND ($after_at IS NULL OR e.occurred_at > $after_at OR (e.occurred_at = $after_at AND e.id > $after_id))
  AND ($before IS NULL OR e.occurred_at < $before)
  AND ($archived IS NULL OR (e.archive_ref IS NOT NULL) = $archived)
WITH e
ORDER BY e.occurred_at, e.id
LIMIT $limit
RETURN e {.id, .group_id, .role, .speaker, .content, occurred_at: toString(e.occurred_at), created_at: toString(e.created_at), .session_id, .source, .content_sha256, .metadata, .status, .status_reason, .archive_ref} AS e
