// Index-ready copies of a version's interval ends, with far-off stand-ins for open ends (NULL
// cannot be range-indexed): tx_end (expired_at), valid_end (valid_to), valid_start (valid_from).
MATCH ()-[f:FACT]->()
WHERE f.tx_end IS NULL
SET f.tx_end = coalesce(f.expired_at, datetime('9999-12-31T00:00:00Z')),
    f.valid_end = coalesce(f.valid_to, datetime('9999-12-31T00:00:00Z')),
    f.valid_start = coalesce(f.valid_from, datetime('0001-01-01T00:00:00Z'))
