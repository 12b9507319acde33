UNWIND $rows AS r
MATCH (e:Episode {id: r.id})
WHERE e.group_id = r.group_id
SET e.embedding = r.embedding, e.embedding_f32 = r.blob, e.vseq = r.vseq
