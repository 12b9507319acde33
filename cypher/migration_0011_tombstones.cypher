// Tombstones by group.
CREATE INDEX kgmem_tombstone_group IF NOT EXISTS FOR (t:Tombstone) ON (t.group_id)
