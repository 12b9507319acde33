// Maintenance jobs: their records (one per group, kind and id) and their named locks.
CREATE CONSTRAINT kgmem_job_record IF NOT EXISTS FOR (r:JobRecord) REQUIRE (r.group_id, r.kind, r.id) IS UNIQUE;
CREATE CONSTRAINT kgmem_job_lock IF NOT EXISTS FOR (l:JobLock) REQUIRE (l.group_id, l.name) IS UNIQUE
