// Remove mentions (an entity merge moves them to the survivor).
UNWIND $rows AS r
MATCH (e:Episode {id: r.episode_id})-[m:MENTIONS]->(n:Entity {id: r.entity_id})
WHERE e.group_id = r.group_id AND n.group_id = r.group_id
DELETE m
