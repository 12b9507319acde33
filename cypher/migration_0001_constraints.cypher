// Identity and dedupe constraints.
CREATE CONSTRAINT kgmem_episode_id IF NOT EXISTS FOR (e:Episode) REQUIRE e.id IS UNIQUE;
CREATE CONSTRAINT kgmem_episode_dedupe IF NOT EXISTS FOR (e:Episode) REQUIRE e.dedupe_key IS UNIQUE;
CREATE CONSTRAINT kgmem_entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT kgmem_entity_key IF NOT EXISTS FOR (n:Entity) REQUIRE (n.group_id, n.key) IS UNIQUE;
CREATE CONSTRAINT kgmem_fact_version_id IF NOT EXISTS FOR ()-[f:FACT]-() REQUIRE f.id IS UNIQUE
