// The facts linked to $fact_id in either direction: best score first, ties by id.
CALL () {
  MATCH (l:RelatedTo {group_id: $group_id, fact_id: $fact_id})
  RETURN l.other_id AS other, l.score AS score
  UNION ALL
  MATCH (l:RelatedTo {group_id: $group_id, other_id: $fact_id})
  RETURN l.fact_id AS other, l.score AS score
}
WITH other, max(score) AS score WHERE other <> $fact_id
RETURN other, score
ORDER BY score DESC, other
LIMIT $k
