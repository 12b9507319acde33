MATCH (s:Entity)-[f:FACT]->(o:Entity)
WHERE o.group_id = $group_id AND o.id IN $ids AND f.group_id = $group_id AND f.expired_at IS NULL
RETURN collect({f: f {.id, .fact_id, .group_id, .subject, .predicate, .object, .statement, valid_from: toString(f.valid_from), valid_to: toString(f.valid_to), created_at: toString(f.created_at), expired_at: toString(f.expired_at), .expired_by, .episode_ids, .extractor, .prompt_version, .confidence, .reinforcement_count}, subject_id: s.id, object_id: o.id}) AS rows
