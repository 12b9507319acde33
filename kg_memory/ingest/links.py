"""RELATED_TO links between facts, chosen when a fact is first stored (as in the seed
paper's memory tools): each new fact links to the ``k`` facts of its group, believed
and true at that moment or new in the same write, whose statement embeddings have a
cosine of at least ``min_cosine``. Links name fact ids, so they survive restatements;
``Memory.related`` follows them to the versions believed now."""

from __future__ import annotations

from datetime import datetime

import numpy as np

from ..core.models import FactVersion
from ..store.base import StoreCore, TimeFilter


def related_links(store: StoreCore, group_id: str, versions: list[FactVersion], vectors: dict[str, np.ndarray],
                  now: datetime, k: int, min_cosine: float) -> list[tuple[str, str, str, float]]:
    """``(group, fact_id, other_fact_id, cosine)`` for the new facts among ``versions``."""
    if k <= 0:
        return []
    firsts: dict[str, FactVersion] = {}
    for v in versions:
        if v.group_id == group_id and v.id in vectors:
            firsts.setdefault(v.fact_id, v)
    known = {v.fact_id for v in store.fact_versions(group_id, list(firsts))}
    new = [v for fid, v in firsts.items() if fid not in known]
    if not new:
        return []
    unit = {v.fact_id: _unit(vectors[v.id]) for v in new}
    tf = TimeFilter(as_of=now, known_at=now)
    out: list[tuple[str, str, str, float]] = []
    for v in new:
        best: dict[str, float] = {}
        for hit, score in store.fact_vector_search(group_id, unit[v.fact_id], k + 8, tf):
            if hit.fact_id != v.fact_id and score >= min_cosine:
                best[hit.fact_id] = max(score, best.get(hit.fact_id, score))
        for other, vec in unit.items():
            score = float(np.dot(unit[v.fact_id], vec))
            if other != v.fact_id and score >= min_cosine:
                best[other] = max(score, best.get(other, score))
        top = sorted(best.items(), key=lambda item: (-item[1], item[0]))[:k]
        out.extend((group_id, v.fact_id, other, round(score, 6)) for other, score in top)
    return out


def _unit(vec: np.ndarray) -> np.ndarray:
    v = np.asarray(vec, dtype=np.float32)
    n = float(np.linalg.norm(v))
    return v / n if n else v
