// Advance the episode logs of $groups (sorted by the caller, so two writers lock them in one
// order) inside the writing transaction; the lock on each log node orders a group's writers, so
// its seq values commit in order. $reset also moves the log's reset point: readers reload the group.
UNWIND $groups AS g
MERGE (c:EpisodeLog {group_id: g})
WITH c, coalesce(c.seq, 0) + 1 AS next
SET c.seq = next, c.reset = CASE WHEN $reset THEN next ELSE coalesce(c.reset, 0) END
RETURN c.group_id AS group_id, next AS seq
