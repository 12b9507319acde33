// Erasure of a whole group: every episode, fact version, entity and link it holds, each found through an
// index that starts at the group (the existence tests let the composite indexes answer).
CALL () { MATCH ()-[f:FACT]->() WHERE f.group_id = $group_id DELETE f RETURN count(*) AS facts }
CALL () { MATCH (e:Episode) WHERE e.group_id = $group_id AND e.occurred_at IS NOT NULL DETACH DELETE e RETURN count(*) AS episodes }
CALL () { MATCH (n:Entity) WHERE n.group_id = $group_id AND n.key IS NOT NULL DETACH DELETE n RETURN count(*) AS entities }
CALL () { MATCH (l:RelatedTo) WHERE l.group_id = $group_id AND l.fact_id IS NOT NULL DELETE l RETURN count(*) AS links }
CALL () { MATCH (x:Evidence) WHERE x.group_id = $group_id AND x.episode_id IS NOT NULL DELETE x RETURN count(*) AS evidence }
RETURN episodes, facts, entities
