// Erasure: drop the mentions of the erased entities, then remove them and the candidates
// that no fact and no mention names any more.
CALL () {
  MATCH (:Episode)-[m:MENTIONS]->(n:Entity)
  WHERE n.group_id = $group_id AND n.id IN $erased
  DELETE m
}
MATCH (n:Entity)
WHERE n.group_id = $group_id AND n.id IN $candidates
  AND NOT EXISTS { (n)-[:FACT]-() } AND NOT EXISTS { ()-[:MENTIONS]->(n) }
DETACH DELETE n
RETURN count(*) AS removed
