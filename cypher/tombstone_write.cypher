// What erasure leaves: kind, when, why and how much; never content.
CREATE (:Tombstone {id: $id, group_id: $group_id, kind: $kind, erased_at: $erased_at, reason: $reason,
  episodes: $episodes, facts: $facts, entities: $entities})
