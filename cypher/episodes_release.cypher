// Give up $owner's claims on these episodes (they stay pending).
MATCH (e:Episode)
WHERE e.id IN $ids AND e.claimed_by = $owner AND ($group_id IS NULL OR e.group_id = $group_id)
REMOVE e.claimed_by, e.claimed_until
