// BM25 (Lucene) over fact versions; see episode_fulltext for the shape of the answer (and the
// cosine with $vector).
CALL db.index.fulltext.queryRelationships('kgmem_fact_text', $query, {limit: $fetch}) YIELD relationship, score
WITH collect({f: relationship, score: score}) AS hits
WITH size(hits) AS raw, [h IN hits WHERE h.f.group_id = $group_id AND {{visible_fact:h.f}}
     ] AS survivors
WITH raw, size(survivors) AS kept, survivors[0..$k] AS best
UNWIND CASE WHEN best = [] THEN [null] ELSE best END AS h
WITH raw, kept, h.f AS f, h.score AS score
RETURN raw, kept, collect(CASE WHEN f IS NULL THEN null ELSE {f: f {.id, .fact_id, .group_id, .subject, .predicate, .object, .statement, valid_from: toString(f.valid_from), valid_to: toString(f.valid_to), created_at: toString(f.created_at), expired_at: toString(f.expired_at), .expired_by, .episode_ids, .extractor, .prompt_version, .confidence, .reinforcement_count},
  subject_id: startNode(f).id, object_id: endNode(f).id, score: score,
  sim: CASE WHEN $vector IS NULL OR f.embedding IS NULL THEN null ELSE vector.similarity.cosine(f.embedding, $vector) END} END) AS rows
