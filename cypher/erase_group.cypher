// Erasure of a whole group: every episode, fact version, entity and link it holds.
CALL () { MATCH ()-[f:FACT]->() WHERE f.group_id = $group_id DELETE f RETURN count(*) AS facts }
CALL () { MATCH (e:Episode) WHERE e.group_id = $group_id DETACH DELETE e RETURN count(*) AS episodes }
CALL () { MATCH (n:Entity) WHERE n.group_id = $group_id DETACH DELETE n RETURN count(*) AS entities }
CALL () { MATCH (l:RelatedTo) WHERE l.group_id = $group_id DELETE l RETURN count(*) AS links }
CALL () { MATCH (x:Evidence) WHERE x.group_id = $group_id DELETE x RETURN count(*) AS evidence }
RETURN episodes, facts, entities
