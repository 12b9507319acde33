// Put failed episodes of a group (or of every group when $group_id is null) back in the queue.
MATCH (e:Episode)
WHERE e.status = 'failed' AND ($group_id IS NULL OR e.group_id = $group_id)
SET e.status = 'pending', e.status_reason = null
RETURN count(e) AS requeued
