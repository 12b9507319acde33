UNWIND $ids AS id
MATCH (e:Episode {id: id})-[:MENTIONS]->(n:Entity)
WHERE e.group_id = $group_id AND n.group_id = $group_id
RETURN e.id AS episode_id, collect(n.id) AS entity_ids
