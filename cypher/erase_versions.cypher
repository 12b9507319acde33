// Erasure: remove fact versions by id.
MATCH ()-[f:FACT]->()
WHERE f.group_id = $group_id AND f.id IN $ids
DELETE f
RETURN count(*) AS removed
