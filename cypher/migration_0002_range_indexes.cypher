// Range indexes: episodes by group and time, fact identity and time properties.
CREATE INDEX kgmem_episode_group_time IF NOT EXISTS FOR (e:Episode) ON (e.group_id, e.occurred_at);
CREATE INDEX kgmem_episode_session IF NOT EXISTS FOR (e:Episode) ON (e.group_id, e.session_id, e.occurred_at);
CREATE INDEX kgmem_episode_status IF NOT EXISTS FOR (e:Episode) ON (e.status);
CREATE INDEX kgmem_fact_identity IF NOT EXISTS FOR ()-[f:FACT]-() ON (f.fact_id);
CREATE INDEX kgmem_fact_current IF NOT EXISTS FOR ()-[f:FACT]-() ON (f.group_id, f.predicate);
CREATE INDEX kgmem_fact_valid_from IF NOT EXISTS FOR ()-[f:FACT]-() ON (f.valid_from);
CREATE INDEX kgmem_fact_valid_to IF NOT EXISTS FOR ()-[f:FACT]-() ON (f.valid_to);
CREATE INDEX kgmem_fact_created_at IF NOT EXISTS FOR ()-[f:FACT]-() ON (f.created_at);
CREATE INDEX kgmem_fact_expired_at IF NOT EXISTS FOR ()-[f:FACT]-() ON (f.expired_at)
