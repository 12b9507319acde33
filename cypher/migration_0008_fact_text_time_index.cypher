// The fact full-text index again, now with the time keys of migration 0007.
DROP INDEX kgmem_fact_text IF EXISTS;
CREATE FULLTEXT INDEX kgmem_fact_text IF NOT EXISTS FOR ()-[f:FACT]-()
  ON EACH [f.search_text, f.group_key, f.vend, f.tend]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
