// Time keys (YYYYMMDDhhmmssffffff text, which sorts like time) for where a version's two
// intervals end, for the full-text index: the Lucene ranges vend >= as_of and tend >= known_at
// drop the history that ended before, so it no longer crowds the hits. A range only walks the
// keys it covers, and few versions end after now, so the common "now" search stays cheap (start
// keys would be walked almost whole, so there are none). Open ends get all nines. They replace
// belief_key, which only knew "retired or not".
MATCH ()-[f:FACT]->()
WHERE f.vend IS NULL
SET f.vend = CASE WHEN f.valid_to IS NULL THEN '99999999999999999999' ELSE
        right('00000' + toString(f.valid_to.year), 4) +
        right('00000' + toString(f.valid_to.month), 2) +
        right('00000' + toString(f.valid_to.day), 2) +
        right('00000' + toString(f.valid_to.hour), 2) +
        right('00000' + toString(f.valid_to.minute), 2) +
        right('00000' + toString(f.valid_to.second), 2) +
        right('00000' + toString(f.valid_to.microsecond), 6) END,
    f.tend = CASE WHEN f.expired_at IS NULL THEN '99999999999999999999' ELSE
        right('00000' + toString(f.expired_at.year), 4) +
        right('00000' + toString(f.expired_at.month), 2) +
        right('00000' + toString(f.expired_at.day), 2) +
        right('00000' + toString(f.expired_at.hour), 2) +
        right('00000' + toString(f.expired_at.minute), 2) +
        right('00000' + toString(f.expired_at.second), 2) +
        right('00000' + toString(f.expired_at.microsecond), 6) END
REMOVE f.belief_key
