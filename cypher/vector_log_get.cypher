// A group's vector log: how far a client-side index must catch up, and whether it must reload.
// A log written before it kept the positions of episodes and facts apart counts both as changed
// at its seq.
OPTIONAL MATCH (c:EpisodeLog {group_id: $group_id})
RETURN coalesce(c.seq, 0) AS seq, coalesce(c.reset, 0) AS reset,
  coalesce(c.episodes, c.seq, 0) AS episodes, coalesce(c.facts, c.seq, 0) AS facts
