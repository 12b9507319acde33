// The group's tombstones, oldest first.
MATCH (t:Tombstone) WHERE t.group_id = $group_id
RETURN t {.id, .group_id, .kind, erased_at: toString(t.erased_at), .reason, .episodes, .facts, .entities} AS t
ORDER BY t.erased_at, t.id
