// An entity's aliases and the entity it was merged into (null: none).
UNWIND $rows AS r
MATCH (n:Entity {id: r.id})
WHERE n.group_id = r.group_id
SET n.aliases = r.aliases, n.merged_into = r.merged_into
