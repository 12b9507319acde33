// RELATED_TO links of new facts; a link already stored is kept as it was.
UNWIND $rows AS row
MERGE (l:RelatedTo {group_id: row.group_id, fact_id: row.fact_id, other_id: row.other_id})
  ON CREATE SET l.score = row.score
