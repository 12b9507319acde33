UNWIND $ids AS id
MATCH (e:Episode {id: id})-[:MENTIONS]->(n:Entity)
WHERE e.group_id = $group_id AND n.group_id = $group_id
WITH e.id AS episode_id, collect(n.id) AS entity_ids
RETURN collect({episode_id: episode_id, entity_ids: entity_ids}) AS rows
