// Advance the vector logs of the groups in $rows (sorted by the caller, so two writers lock them in
// one order) inside the writing transaction; the lock on each log node orders a group's writers, so
// its seq values commit in order. A row says whether the write changes the group's episode vectors
// and its fact versions; $reset also moves the reset point: readers reload the group. (The label is
// the one migration 0015 gave the log when it held episodes only.)
UNWIND $rows AS r
MERGE (c:EpisodeLog {group_id: r.group_id})
WITH c, r, coalesce(c.seq, 0) + 1 AS next
SET c.seq = next,
  c.reset = CASE WHEN $reset THEN next ELSE coalesce(c.reset, 0) END,
  c.episodes = CASE WHEN $reset OR r.episodes THEN next ELSE coalesce(c.episodes, c.seq) END,
  c.facts = CASE WHEN $reset OR r.facts THEN next ELSE coalesce(c.facts, c.seq) END
RETURN c.group_id AS group_id, next AS seq
