"""In-process indexes the stores hold: vectors with their time columns and BM25 postings
(``vectors``), and the per-group LRU caches (``cache``)."""
