UNWIND $rows AS r
CREATE (n:Entity {id: r.id, group_id: r.group_id})
SET n += r
