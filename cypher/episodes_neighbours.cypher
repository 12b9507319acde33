// The turn before and after each episode in its session (by time, then id), visible at
// (as_of, known_at), with the entities both turns mention (recall asks for those next).
UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.group_id = $group_id AND e.session_id IS NOT NULL
CALL (e) {
  MATCH (p:Episode)
  WHERE p.group_id = e.group_id AND p.session_id = e.session_id AND p.occurred_at <= e.occurred_at
    AND (p.occurred_at < e.occurred_at OR p.id < e.id)
    AND {{visible_episode:p}}
  RETURN p AS n ORDER BY p.occurred_at DESC, p.id DESC LIMIT 1
  UNION
  MATCH (q:Episode)
  WHERE q.group_id = e.group_id AND q.session_id = e.session_id AND q.occurred_at >= e.occurred_at
    AND (q.occurred_at > e.occurred_at OR q.id > e.id)
    AND {{visible_episode:q}}
  RETURN q AS n ORDER BY q.occurred_at ASC, q.id ASC LIMIT 1
}
RETURN collect({id: id, n: n {.id, .group_id, .role, .speaker, .content, occurred_at: toString(n.occurred_at), created_at: toString(n.created_at), .session_id, .source,
  .content_sha256, .metadata, .status, .status_reason, .archive_ref},
  id_mentions: [(e)-[:MENTIONS]->(x:Entity) WHERE x.group_id = $group_id | x.id],
  n_mentions: [(n)-[:MENTIONS]->(x:Entity) WHERE x.group_id = $group_id | x.id]}) AS rows
