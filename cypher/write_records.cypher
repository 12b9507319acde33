// Job records: one per (group, kind, id); a second write replaces the first.
UNWIND $rows AS r
MERGE (x:JobRecord {group_id: r.group_id, kind: r.kind, id: r.id})
SET x.at = r.at, x.body = r.body
