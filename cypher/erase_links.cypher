// Erasure: RELATED_TO links of facts with no version left.
UNWIND $fact_ids AS fid
OPTIONAL MATCH ()-[f:FACT]->() WHERE f.group_id = $group_id AND f.fact_id = fid
WITH fid, count(f) AS left WHERE left = 0
MATCH (l:RelatedTo) WHERE l.group_id = $group_id AND (l.fact_id = fid OR l.other_id = fid)
DETACH DELETE l
