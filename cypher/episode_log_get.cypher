// A group's episode log: how far a client-side index must catch up, and whether it must reload.
OPTIONAL MATCH (c:EpisodeLog {group_id: $group_id})
RETURN coalesce(c.seq, 0) AS seq, coalesce(c.reset, 0) AS reset
