// The evidence of the versions written before migration 0013. Data only, in batches (auto-commit
// transactions of 2,000 versions, so a large store does not need it all in memory at once);
// MERGE makes a rerun after an interruption finish the job without duplicates.
MATCH ()-[f:FACT]->()
CALL (f) {
  UNWIND coalesce(f.episode_ids, []) AS ep
  MERGE (:Evidence {group_id: f.group_id, episode_id: ep, version_id: f.id})
} IN TRANSACTIONS OF 2000 ROWS
