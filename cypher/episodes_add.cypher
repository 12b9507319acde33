// Idempotent: an episode with the same (group, role, content hash, occurred_at), or the same id,
// is kept and not duplicated. $token marks what this call created, to tell added from skipped.
UNWIND $rows AS r
OPTIONAL MATCH (x:Episode {id: r.props.id})
WITH r, x
WHERE x IS NULL
MERGE (e:Episode {dedupe_key: r.dedupe_key, group_id: r.props.group_id})
ON CREATE SET e += r.props, e.ingest_token = $token
RETURN r.props.id AS id, e.ingest_token = $token AND e.id = r.props.id AS created
