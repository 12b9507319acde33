// One page of the episodes of a group that have a vector, for the client-side index (a first read,
// or one after the group's log was reset): the $page rows after id $after, in id order, through the
// (group_id, id) index of migration 0017. The vector comes as float32 bytes when the writer stored
// them (every write since migration 0015), else as the list the vector index reads. One record per
// row: a single collected list of 100k rows took the server twice as long.
MATCH (e:Episode)
WHERE e.group_id = $group_id AND e.id > $after AND e.embedding IS NOT NULL
WITH e ORDER BY e.id LIMIT $page
RETURN e.id AS id, e.occurred_at.epochSeconds * 1000000 + e.occurred_at.nanosecond / 1000 AS occurred,
  e.created_at.epochSeconds * 1000000 + e.created_at.nanosecond / 1000 AS created, coalesce(e.embedding_f32, e.embedding) AS vector
