// Cosine of $vector with the given episodes (text hits the vector search did not return),
// as Neo4j reports it: (1 + cos) / 2.
UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.group_id = $group_id AND e.embedding IS NOT NULL
RETURN e.id AS id, vector.similarity.cosine(e.embedding, $vector) AS score
