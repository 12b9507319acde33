// Cosine of $vector with the given fact versions; see episode_similarity.
UNWIND $ids AS id
MATCH ()-[f:FACT {id: id}]->()
WHERE f.group_id = $group_id AND f.embedding IS NOT NULL
RETURN f.id AS id, vector.similarity.cosine(f.embedding, $vector) AS score
