// Replace episodes' bodies (archive or restore): the content, the archive pointer, and the
// text the full-text index reads. Everything else stays.
UNWIND $rows AS r
MATCH (e:Episode {id: r.id})
WHERE e.group_id = $group_id
SET e.content = r.content, e.archive_ref = r.archive_ref, e.index_text = r.index_text
RETURN count(e) AS changed
