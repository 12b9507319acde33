// How many versions believed now each entity has at an end, per predicate (a version with the entity at
// both ends counts twice): the hub report.
CALL () {
  MATCH (n:Entity)-[f:FACT]->(:Entity)
  WHERE n.group_id = $group_id AND f.group_id = $group_id AND f.expired_at IS NULL
  RETURN n, f
  UNION ALL
  MATCH (:Entity)-[f:FACT]->(n:Entity)
  WHERE n.group_id = $group_id AND f.group_id = $group_id AND f.expired_at IS NULL
  RETURN n, f
}
RETURN n.id AS id, n.name AS name, f.predicate AS predicate, count(f) AS n
ORDER BY id, name, predicate
