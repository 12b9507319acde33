// BM25 (Lucene). $query already restricts the group (group_key field); the time filter
// runs on the $fetch best hits. The shape of the answer is episode_vector_index's, plus the
// cosine of each hit with $vector when one is given (recall scores every candidate both ways).
CALL db.index.fulltext.queryNodes('kgmem_episode_text', $query, {limit: $fetch}) YIELD node, score
WITH collect({node: node, score: score}) AS hits
WITH size(hits) AS raw, [h IN hits WHERE h.node.group_id = $group_id AND {{visible_episode:h.node}}] AS survivors
WITH raw, size(survivors) AS kept, survivors[0..$k] AS best
UNWIND CASE WHEN best = [] THEN [null] ELSE best END AS h
WITH raw, kept, h.node AS n, h.score AS score
RETURN raw, kept, collect(CASE WHEN n IS NULL THEN null ELSE {id: n.id, score: score,
  sim: CASE WHEN $vector IS NULL OR n.embedding IS NULL THEN null ELSE vector.similarity.cosine(n.embedding, $vector) END,
  e: n {.id, .group_id, .role, .speaker, .content, occurred_at: toString(n.occurred_at),
  created_at: toString(n.created_at), .session_id, .source, .content_sha256, .metadata, .status, .status_reason, .archive_ref}} END) AS rows
