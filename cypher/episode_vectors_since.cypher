// The episodes of a group whose vectors were written after log position $since (every such write
// stores the bytes and the position), for the client-side index to catch up. Looked up through
// the (group_id, vseq) index of migration 0015: the cost follows the new rows, not the group.
MATCH (e:Episode)
WHERE e.group_id = $group_id AND e.vseq > $since
RETURN e.id AS id, e.occurred_at.epochSeconds * 1000000 + e.occurred_at.nanosecond / 1000 AS occurred,
  e.created_at.epochSeconds * 1000000 + e.created_at.nanosecond / 1000 AS created, e.embedding_f32 AS vector
