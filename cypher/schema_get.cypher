// The schema-version node (global: the schema is shared by all groups).
MATCH (s:KgmemSchema {id: 'kgmem'})
RETURN s.version AS version, s.migrations AS migrations, s.embedding_dim AS embedding_dim
