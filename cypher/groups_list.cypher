// Every group with its episode, entity and fact-version counts, by group id (kgmem groups).
CALL () { MATCH (e:Episode) RETURN e.group_id AS group_id, count(e) AS episodes, 0 AS entities, 0 AS facts
  UNION ALL MATCH (n:Entity) RETURN n.group_id AS group_id, 0 AS episodes, count(n) AS entities, 0 AS facts
  UNION ALL MATCH ()-[f:FACT]->() RETURN f.group_id AS group_id, 0 AS episodes, 0 AS entities, count(f) AS facts }
RETURN group_id, sum(episodes) AS episodes, sum(entities) AS entities, sum(facts) AS facts
ORDER BY group_id
