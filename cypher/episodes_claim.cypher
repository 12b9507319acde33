// Claim up to $limit pending episodes for $owner until $until. The first SET takes each
// episode's write lock (waiting for a concurrent claimer to commit); the claim is then
// checked again on the committed values, so two claimers never both take an episode.
// Through the status index: the pending are few whatever the group's size, and the planner must not
// pick the group's index when its statistics lag (the add-plan test once saw it read the whole group).
MATCH (e:Episode)
USING INDEX e:Episode(status)
WHERE e.status = 'pending' AND ($group_id IS NULL OR e.group_id = $group_id)
  AND (e.claimed_by IS NULL OR e.claimed_until <= $now OR e.claimed_by = $owner OR e.claimed_by IN $steal)
WITH e
ORDER BY e.occurred_at, e.id
LIMIT $limit
SET e.claim_lock = true
WITH e
WHERE e.status = 'pending'
  AND (e.claimed_by IS NULL OR e.claimed_until <= $now OR e.claimed_by = $owner OR e.claimed_by IN $steal)
SET e.claimed_by = $owner, e.claimed_until = $until
REMOVE e.claim_lock
WITH e
ORDER BY e.occurred_at, e.id
RETURN e {.id, .group_id, .role, .speaker, .content, occurred_at: toString(e.occurred_at), created_at: toString(e.created_at), .session_id, .source, .content_sha256, .metadata, .status, .status_reason, .archive_ref} AS e
