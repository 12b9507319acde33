// Vector index, then the group and time filter on the $fetch nearest; the caller widens
// $fetch until k survive or the index is exhausted (raw < fetch).
CALL db.index.vector.queryNodes('kgmem_episode_embedding', $fetch, $vector) YIELD node, score
WITH collect({node: node, score: score}) AS hits
RETURN size(hits) AS raw,
  [h IN hits WHERE h.node.group_id = $group_id AND h.node.occurred_at <= $as_of
     AND h.node.created_at <= $known_at | {id: h.node.id, score: h.score}][0..$k] AS rows
