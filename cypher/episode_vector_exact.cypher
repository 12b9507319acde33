// Pre-filter on group and time, then rank every survivor exactly. Counts the survivors
// up to $cap + 1: n > $cap means "too many for a scan" and the caller uses the index.
MATCH (e:Episode)
WHERE e.group_id = $group_id AND {{visible_episode:e}} AND e.embedding IS NOT NULL
WITH e LIMIT $cap + 1
WITH collect(e) AS cands
WITH size(cands) AS n, cands
UNWIND CASE WHEN n > 0 AND n <= $cap THEN cands ELSE [null] END AS c
WITH n, c, CASE WHEN c IS NULL THEN -2.0 ELSE vector.similarity.cosine(c.embedding, $vector) END AS score
ORDER BY score DESC
LIMIT $k
RETURN n, collect(CASE WHEN c IS NULL THEN null ELSE {id: c.id, score: score, e: c {.id, .group_id, .role, .speaker, .content, occurred_at: toString(c.occurred_at),
  created_at: toString(c.created_at), .session_id, .source, .content_sha256, .metadata, .status, .status_reason, .archive_ref}} END) AS rows
