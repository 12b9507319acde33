// Ids of the group's episodes that mention any of $entity_ids, or whose content contains $text (any case).
CALL () {
  MATCH (e:Episode)-[:MENTIONS]->(n:Entity)
  WHERE e.group_id = $group_id AND n.group_id = $group_id AND n.id IN $entity_ids
  RETURN e.id AS id
  UNION
  MATCH (e:Episode)
  WHERE $text IS NOT NULL AND e.group_id = $group_id AND e.occurred_at IS NOT NULL AND toLower(e.content) CONTAINS toLower($text)
  RETURN e.id AS id
}
RETURN id ORDER BY id
