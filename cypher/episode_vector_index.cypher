// Vector index, then the group and time filter on the $fetch nearest. Returns how many hits
// the index gave (raw), how many passed the filter (kept) and the best $k of those: the caller
// widens $fetch until k survive or the index is exhausted, and learns kept/raw for next time.
CALL db.index.vector.queryNodes('kgmem_episode_embedding', $fetch, $vector) YIELD node, score
WITH collect({node: node, score: score}) AS hits
WITH size(hits) AS raw, [h IN hits WHERE h.node.group_id = $group_id AND {{visible_episode:h.node}}] AS survivors
WITH raw, size(survivors) AS kept, survivors[0..$k] AS best
UNWIND CASE WHEN best = [] THEN [null] ELSE best END AS h
WITH raw, kept, h.node AS n, h.score AS score
RETURN raw, kept, collect(CASE WHEN n IS NULL THEN null ELSE {id: n.id, score: score, e: n {.id, .group_id, .role, .speaker, .content, occurred_at: toString(n.occurred_at),
  created_at: toString(n.created_at), .session_id, .source, .content_sha256, .metadata, .status, .status_reason, .archive_ref}} END) AS rows
