// RELATED_TO links between facts (by fact id), written when a fact is first stored.
CREATE INDEX kgmem_related_from IF NOT EXISTS FOR (l:RelatedTo) ON (l.group_id, l.fact_id);
CREATE INDEX kgmem_related_to IF NOT EXISTS FOR (l:RelatedTo) ON (l.group_id, l.other_id)
