// Versions by version id or fact id, oldest belief first.
MATCH (s:Entity)-[f:FACT]->(o:Entity)
WHERE f.group_id = $group_id AND (f.id IN $ids OR f.fact_id IN $ids)
WITH s, f, o
ORDER BY f.created_at, f.id
RETURN collect({f: f {.id, .fact_id, .group_id, .subject, .predicate, .object, .statement, valid_from: toString(f.valid_from),
    valid_to: toString(f.valid_to), created_at: toString(f.created_at), expired_at: toString(f.expired_at),
    .expired_by, .episode_ids, .extractor, .prompt_version, .confidence, .reinforcement_count},
  subject_id: s.id, object_id: o.id}) AS rows
