// Counts for one group, or all groups when $group_id is null (doctor).
CALL () { MATCH (e:Episode) WHERE $group_id IS NULL OR e.group_id = $group_id
  RETURN count(e) AS episodes, count(CASE WHEN e.status = 'pending' THEN 1 END) AS pending,
         count(CASE WHEN e.status = 'failed' THEN 1 END) AS failed }
CALL () { MATCH (n:Entity) WHERE $group_id IS NULL OR n.group_id = $group_id RETURN count(n) AS entities }
CALL () { MATCH ()-[f:FACT]->() WHERE $group_id IS NULL OR f.group_id = $group_id
  RETURN count(f) AS facts, count(CASE WHEN f.expired_at IS NULL THEN 1 END) AS current }
RETURN episodes, pending, failed, entities, facts, current
