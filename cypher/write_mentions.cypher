UNWIND $rows AS r
MATCH (e:Episode {id: r.episode_id}), (n:Entity {id: r.entity_id})
WHERE e.group_id = r.group_id AND n.group_id = r.group_id
MERGE (e)-[m:MENTIONS]->(n)
ON CREATE SET m.group_id = r.group_id
