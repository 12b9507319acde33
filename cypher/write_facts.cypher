// One FACT relationship per fact version, and an (:Evidence) node per episode it cites.
UNWIND $rows AS r
MATCH (s:Entity {id: r.subject_id}), (o:Entity {id: r.object_id})
WHERE s.group_id = r.props.group_id AND o.group_id = r.props.group_id
CREATE (s)-[f:FACT]->(o)
SET f = r.props
FOREACH (ep IN coalesce(r.props.episode_ids, []) |
  CREATE (:Evidence {group_id: r.props.group_id, episode_id: ep, version_id: r.props.id}))
RETURN count(f) AS written
