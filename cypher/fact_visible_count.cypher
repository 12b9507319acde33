MATCH ()-[f:FACT]->()
WHERE f.group_id = $group_id AND f.embedding IS NOT NULL
  AND f.created_at <= $known_at AND (f.expired_at IS NULL OR f.expired_at > $known_at)
  AND (f.valid_from IS NULL OR f.valid_from <= $as_of) AND (f.valid_to IS NULL OR f.valid_to > $as_of)
WITH f LIMIT $cap
RETURN count(f) AS n
