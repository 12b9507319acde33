// Counts over every group (doctor, the server's status).
CALL () { MATCH (e:Episode)
  RETURN count(e) AS episodes, count(CASE WHEN e.status = 'pending' THEN 1 END) AS pending,
         count(CASE WHEN e.status = 'failed' THEN 1 END) AS failed }
CALL () { MATCH (n:Entity) RETURN count(n) AS entities }
CALL () { MATCH ()-[f:FACT]->() RETURN count(f) AS facts, count(CASE WHEN f.expired_at IS NULL THEN 1 END) AS current }
RETURN episodes, pending, failed, entities, facts, current
