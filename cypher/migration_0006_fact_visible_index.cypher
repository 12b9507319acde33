// The seek behind every "visible at (as_of, known_at)" fact query (see fact_vector_exact):
// versions still believed share tx_end 9999-12-31, so an equality on it and a range on
// valid_end find what is believed now and true at as_of; valid_start is checked from the entry.
CREATE INDEX kgmem_fact_visible IF NOT EXISTS FOR ()-[f:FACT]-() ON (f.group_id, f.tx_end, f.valid_end, f.valid_start)
