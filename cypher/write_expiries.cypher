// Close a version's transaction time (and the index keys derived from it): the only change ever
// made to a version (and the vector log position, vseq, that tells client-side indexes).
UNWIND $rows AS r
MATCH ()-[f:FACT {id: r.id}]->()
WHERE f.group_id = r.group_id AND f.expired_at IS NULL
SET f.expired_at = r.expired_at, f.expired_by = r.expired_by, f.tend = r.tend, f.tx_end = r.expired_at,
  f.vseq = r.vseq
RETURN count(f) AS expired
