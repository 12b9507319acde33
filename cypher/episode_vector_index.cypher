// Vector index with the filter applied to $fetch candidates; the caller widens $fetch until k survive.
CALL db.index.vector.queryNodes('kgmem_episode_embedding', $fetch, $vector) YIELD node, score
WHERE node.group_id = $group_id AND node.occurred_at <= $as_of AND node.created_at <= $known_at
RETURN node.id AS id, score
ORDER BY score DESC
LIMIT $k
