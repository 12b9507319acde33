UNWIND $rows AS r
MATCH (e:Episode {id: r.id})
WHERE e.group_id = r.group_id
SET e.status = r.status, e.status_reason = r.reason
REMOVE e.claimed_by, e.claimed_until
