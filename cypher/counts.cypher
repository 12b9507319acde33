// Counts for one group, each through an index that starts at the group (the existence tests let the
// composite indexes answer): the cost follows the group, not the store.
CALL () { MATCH (e:Episode) WHERE e.group_id = $group_id AND e.occurred_at IS NOT NULL
  RETURN count(e) AS episodes, count(CASE WHEN e.status = 'pending' THEN 1 END) AS pending,
         count(CASE WHEN e.status = 'failed' THEN 1 END) AS failed }
CALL () { MATCH (n:Entity) WHERE n.group_id = $group_id AND n.key IS NOT NULL RETURN count(n) AS entities }
CALL () { MATCH ()-[f:FACT]->() WHERE f.group_id = $group_id
  RETURN count(f) AS facts, count(CASE WHEN f.expired_at IS NULL THEN 1 END) AS current }
RETURN episodes, pending, failed, entities, facts, current
