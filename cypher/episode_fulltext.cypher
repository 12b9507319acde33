// BM25 (Lucene) candidates, then the group and time filter; the caller widens $fetch until enough survive.
CALL db.index.fulltext.queryNodes('kgmem_episode_text', $query, {limit: $fetch}) YIELD node, score
WHERE node.group_id = $group_id AND node.occurred_at <= $as_of AND node.created_at <= $known_at
RETURN node.id AS id, score
ORDER BY score DESC
LIMIT $k
