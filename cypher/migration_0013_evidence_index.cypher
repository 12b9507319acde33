// Which versions cite each episode: one (:Evidence) node per (version, episode), looked up by episode
// (recall's superseded-evidence check, erasure) and by version (erasure).
CREATE INDEX kgmem_evidence_episode IF NOT EXISTS FOR (x:Evidence) ON (x.group_id, x.episode_id);
CREATE INDEX kgmem_evidence_version IF NOT EXISTS FOR (x:Evidence) ON (x.group_id, x.version_id)
