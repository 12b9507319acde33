// The client-side episode vector index (#11): each group's (:EpisodeLog) counts the writes that
// changed its episodes' vectors (seq) and the last one after which every row must be read again
// (reset: erasure, a group swap). An episode carries the seq of the write that last changed it (vseq).
CREATE CONSTRAINT kgmem_episode_log_group IF NOT EXISTS FOR (c:EpisodeLog) REQUIRE c.group_id IS UNIQUE;
CREATE INDEX kgmem_episode_vseq IF NOT EXISTS FOR (e:Episode) ON (e.group_id, e.vseq)
