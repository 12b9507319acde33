// Fact versions by group alone (the time-filtered exact scan and counts start here).
CREATE INDEX kgmem_fact_group IF NOT EXISTS FOR ()-[f:FACT]-() ON (f.group_id)
