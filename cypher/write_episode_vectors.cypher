// Store episode vectors (the list the vector index reads, float32 bytes for held vectors, and the
// write's vector log position); each written episode's times come back, in microseconds since 1970,
// so the writing process can add the rows to the vectors it holds without reading them again.
UNWIND $rows AS r
MATCH (e:Episode {id: r.id})
WHERE e.group_id = r.group_id
SET e.embedding = r.embedding, e.embedding_f32 = r.blob, e.vseq = r.vseq
RETURN e.group_id AS group_id, e.id AS id,
  e.occurred_at.epochSeconds * 1000000 + e.occurred_at.nanosecond / 1000 AS occurred,
  e.created_at.epochSeconds * 1000000 + e.created_at.nanosecond / 1000 AS created
