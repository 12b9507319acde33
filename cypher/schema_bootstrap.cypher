// Before the first migration is recorded: one schema node, however many processes migrate a new
// server at once (MERGE alone may create two under concurrency; the constraint makes it wait).
CREATE CONSTRAINT kgmem_schema_id IF NOT EXISTS FOR (s:KgmemSchema) REQUIRE s.id IS UNIQUE
