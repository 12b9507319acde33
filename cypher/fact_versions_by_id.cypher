// Versions by version id alone (the hits of a client-side vector search), each found through the
// unique constraint's index rather than by scanning the group.
UNWIND $ids AS id
MATCH (s:Entity)-[f:FACT {id: id}]->(o:Entity)
WHERE f.group_id = $group_id
RETURN collect({f: f {.id, .fact_id, .group_id, .subject, .predicate, .object, .statement, valid_from: toString(f.valid_from),
    valid_to: toString(f.valid_to), created_at: toString(f.created_at), expired_at: toString(f.expired_at),
    .expired_by, .episode_ids, .extractor, .prompt_version, .confidence, .reinforcement_count},
  subject_id: s.id, object_id: o.id}) AS rows
