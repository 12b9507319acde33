// The first read of a group's vectors goes in pages of rows in id order (#36): one answer of a 1M
// episode group outlived the connection. Each page is a seek on (group, id) from the last id read,
// so a page costs its own rows and the whole read follows the group, not the store.
CREATE INDEX kgmem_episode_group_id IF NOT EXISTS FOR (e:Episode) ON (e.group_id, e.id);
CREATE INDEX kgmem_fact_group_id IF NOT EXISTS FOR ()-[f:FACT]-() ON (f.group_id, f.id)
