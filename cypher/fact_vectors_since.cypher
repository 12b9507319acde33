// The fact versions of a group written or expired after log position $since (each such write
// stores the position), for the client-side index to catch up; looked up through the
// (group_id, vseq) index of migration 0016. Rows as in fact_vectors_load.
MATCH ()-[f:FACT]->()
WHERE f.group_id = $group_id AND f.vseq > $since AND f.embedding IS NOT NULL
RETURN f.id AS id,
  CASE WHEN f.valid_from IS NULL THEN null ELSE f.valid_from.epochSeconds * 1000000 + f.valid_from.nanosecond / 1000 END AS vf,
  CASE WHEN f.valid_to IS NULL THEN null ELSE f.valid_to.epochSeconds * 1000000 + f.valid_to.nanosecond / 1000 END AS vt,
  f.created_at.epochSeconds * 1000000 + f.created_at.nanosecond / 1000 AS created,
  CASE WHEN f.expired_at IS NULL THEN null ELSE f.expired_at.epochSeconds * 1000000 + f.expired_at.nanosecond / 1000 END AS expired,
  coalesce(f.embedding_f32, f.embedding) AS vector
