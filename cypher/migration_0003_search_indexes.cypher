// Vector (cosine, dimension from the embedder) and full-text (English analyzer) indexes.
CREATE VECTOR INDEX kgmem_episode_embedding IF NOT EXISTS FOR (e:Episode) ON (e.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX kgmem_entity_embedding IF NOT EXISTS FOR (n:Entity) ON (n.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}};
CREATE VECTOR INDEX kgmem_fact_embedding IF NOT EXISTS FOR ()-[f:FACT]-() ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}};
CREATE FULLTEXT INDEX kgmem_episode_text IF NOT EXISTS FOR (e:Episode) ON EACH [e.index_text, e.group_key]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX kgmem_fact_text IF NOT EXISTS FOR ()-[f:FACT]-() ON EACH [f.search_text, f.group_key, f.belief_key]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
