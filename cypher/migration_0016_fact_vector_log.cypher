// The client-side fact vector index (#11): a fact version carries the position in its group's
// vector log (migration 0015) of the write that created or expired it (vseq), and float32 bytes of
// its vector; readers catch up through this index.
CREATE INDEX kgmem_fact_vseq IF NOT EXISTS FOR ()-[f:FACT]-() ON (f.group_id, f.vseq)
