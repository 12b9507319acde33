// Erasure: remove fact versions by id, with their evidence.
CALL () {
  MATCH (x:Evidence)
  WHERE x.group_id = $group_id AND x.version_id IN $ids
  DELETE x
}
MATCH ()-[f:FACT]->()
WHERE f.group_id = $group_id AND f.id IN $ids
DELETE f
RETURN count(*) AS removed
