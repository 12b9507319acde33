// Move everything group $from holds to group $to (swap_groups runs it three times, through a
// parked name, in one transaction). The group's derived keys move with it.
CALL () { MATCH (e:Episode)-[m:MENTIONS]->() WHERE e.group_id = $from AND e.occurred_at IS NOT NULL AND m.group_id = $from SET m.group_id = $to }
CALL () { MATCH (e:Episode) WHERE e.group_id = $from AND e.occurred_at IS NOT NULL
  SET e.group_id = $to, e.group_key = $to_key, e.dedupe_key = $to + substring(e.dedupe_key, size($from)) }
CALL () { MATCH (n:Entity) WHERE n.group_id = $from AND n.key IS NOT NULL SET n.group_id = $to }
CALL () { MATCH ()-[f:FACT]->() WHERE f.group_id = $from SET f.group_id = $to, f.group_key = $to_key }
CALL () { MATCH (l:RelatedTo) WHERE l.group_id = $from AND l.fact_id IS NOT NULL SET l.group_id = $to }
CALL () { MATCH (x:Evidence) WHERE x.group_id = $from AND x.episode_id IS NOT NULL SET x.group_id = $to }
CALL () { MATCH (t:Tombstone) WHERE t.group_id = $from SET t.group_id = $to }
CALL () { MATCH (r:JobRecord) WHERE r.group_id = $from AND r.kind IS NOT NULL AND r.id IS NOT NULL SET r.group_id = $to }
