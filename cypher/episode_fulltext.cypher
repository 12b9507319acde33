// BM25 (Lucene). $query already restricts the group (group_key field); the time filter
// runs on the $fetch best hits. One row: how many hits the index gave (raw) and the
// survivors, so the caller widens $fetch only while the index has more to give.
CALL db.index.fulltext.queryNodes('kgmem_episode_text', $query, {limit: $fetch}) YIELD node, score
WITH collect({node: node, score: score}) AS hits
RETURN size(hits) AS raw,
  [h IN hits WHERE h.node.group_id = $group_id AND h.node.occurred_at <= $as_of
     AND h.node.created_at <= $known_at | {id: h.node.id, score: h.score}][0..$k] AS rows
