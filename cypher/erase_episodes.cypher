// Erasure: remove episodes (with their mentions, text and vector) by id.
MATCH (e:Episode)
WHERE e.group_id = $group_id AND e.id IN $ids
DETACH DELETE e
RETURN count(*) AS removed
