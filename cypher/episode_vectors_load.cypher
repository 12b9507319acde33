// One page of a group's episodes and their vectors, for the client-side index (a first read, or one
// after the group's log was reset): the $page rows after id $after, in id order, through the (group_id,
// id) index of migration 0017, named so that no other index is planned, in the order the ORDER BY on both
// its properties takes from it. (Ordered by e.id alone, the planner sorted the whole group for every page,
// and a filter on the vector read every vector: 142 s a page at 1M.) A row without a vector comes with a
// null one, which the reader skips. The vector comes as float32 bytes when the writer stored them (every
// write since migration 0015), else as the list the vector index reads. One record per row: one collected
// list of 100k rows took the server twice as long.
MATCH (e:Episode) USING INDEX e:Episode(group_id, id)
WHERE e.group_id = $group_id AND e.id > $after
WITH e ORDER BY e.group_id, e.id LIMIT $page
RETURN e.id AS id, e.occurred_at.epochSeconds * 1000000 + e.occurred_at.nanosecond / 1000 AS occurred,
  e.created_at.epochSeconds * 1000000 + e.created_at.nanosecond / 1000 AS created, coalesce(e.embedding_f32, e.embedding) AS vector
