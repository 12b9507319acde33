MATCH (e:Episode)-[:MENTIONS]->(n:Entity)
WHERE e.group_id = $group_id AND e.id IN $ids AND n.group_id = $group_id
RETURN e.id AS episode_id, collect(n.id) AS entity_ids
