"""The pure core: the data model, the bitemporal rules, erasure plans, the ontology and its
vocabulary, and the time, identifier, text and redaction helpers. No store, no I/O beyond
reading the package's own data."""
