MERGE (s:KgmemSchema {id: 'kgmem'})
ON CREATE SET s.migrations = [], s.embedding_dim = $dim
SET s.migrations = CASE WHEN $name IN s.migrations THEN s.migrations ELSE s.migrations + $name END,
    s.version = size(s.migrations) + 1, s.updated_at = datetime()
RETURN s.version AS version
