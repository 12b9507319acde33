// One page of a group's fact versions and their vectors, for the client-side index (a first
// read, or one after the group's log was reset): the $page versions after id $after, in id order,
// through the (group_id, id) index of migration 0017 in its order (named: unnamed, the planner took the
// unique index on id, which reads every group's versions; as episode_vectors_load, a version
// without a vector comes with a null one, which the reader skips). Their interval ends and belief times in
// microseconds since 1970 (null: open), and the vector as float32 bytes when the writer stored them
// (every write since migration 0016), else as the list the vector index reads.
MATCH ()-[f:FACT]->() USING INDEX f:FACT(group_id, id)
WHERE f.group_id = $group_id AND f.id > $after
WITH f ORDER BY f.group_id, f.id LIMIT $page
RETURN f.id AS id,
  CASE WHEN f.valid_from IS NULL THEN null ELSE f.valid_from.epochSeconds * 1000000 + f.valid_from.nanosecond / 1000 END AS vf,
  CASE WHEN f.valid_to IS NULL THEN null ELSE f.valid_to.epochSeconds * 1000000 + f.valid_to.nanosecond / 1000 END AS vt,
  f.created_at.epochSeconds * 1000000 + f.created_at.nanosecond / 1000 AS created,
  CASE WHEN f.expired_at IS NULL THEN null ELSE f.expired_at.epochSeconds * 1000000 + f.expired_at.nanosecond / 1000 END AS expired,
  coalesce(f.embedding_f32, f.embedding) AS vector
