// One FACT relationship per fact version.
UNWIND $rows AS r
MATCH (s:Entity {id: r.subject_id}), (o:Entity {id: r.object_id})
WHERE s.group_id = r.props.group_id AND o.group_id = r.props.group_id
CREATE (s)-[f:FACT]->(o)
SET f = r.props
RETURN count(f) AS written
