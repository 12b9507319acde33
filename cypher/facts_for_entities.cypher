// Versions touching the entities, valid at $as_of and believed at $known_at.
MATCH (s:Entity)-[f:FACT]->(o:Entity)
WHERE f.group_id = $group_id AND (s.id IN $ids OR o.id IN $ids)
  AND f.created_at <= $known_at AND (f.expired_at IS NULL OR f.expired_at > $known_at)
  AND (f.valid_from IS NULL OR f.valid_from <= $as_of) AND (f.valid_to IS NULL OR f.valid_to > $as_of)
RETURN f, s.id AS subject_id, o.id AS object_id
LIMIT $limit
