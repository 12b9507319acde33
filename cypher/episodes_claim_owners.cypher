// Owners of claims on pending episodes (of one group, or of all when $group_id is null).
MATCH (e:Episode)
USING INDEX e:Episode(status)
WHERE e.status = 'pending' AND e.claimed_by IS NOT NULL AND ($group_id IS NULL OR e.group_id = $group_id)
RETURN DISTINCT e.claimed_by AS owner ORDER BY owner
