// An open end stood for 9999-12-31T00:00, so an as-of later on that last day saw open facts as
// ended. It is now the last nanosecond of year 9999, after every instant kgmem represents (Python
// stops at the microsecond). Interval ends that held the old stand-in are moved to the new one.
MATCH ()-[f:FACT]->()
WHERE f.tx_end = datetime('9999-12-31T00:00:00Z') AND f.expired_at IS NULL
SET f.tx_end = datetime('9999-12-31T23:59:59.999999999Z');
MATCH ()-[f:FACT]->()
WHERE f.valid_end = datetime('9999-12-31T00:00:00Z') AND f.valid_to IS NULL
SET f.valid_end = datetime('9999-12-31T23:59:59.999999999Z')
