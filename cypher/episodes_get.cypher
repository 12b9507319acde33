UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.group_id = $group_id
RETURN collect({e: e {.id, .group_id, .role, .speaker, .content, occurred_at: toString(e.occurred_at), created_at: toString(e.created_at), .session_id, .source, .content_sha256, .metadata, .status, .status_reason, .archive_ref}}) AS rows
