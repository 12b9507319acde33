"""`kgmem bench locomo`: evidence recall@k and hit@k on LoCoMo, for kgmem's
recall and the baselines, on the same turns in the same run."""

from __future__ import annotations

import json
import re
import tempfile
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..embed.base import Embedder
from ..errors import InputError
from ..formats import iter_locomo_samples, locomo_group, parse_file
from ..memory import Memory
from ..settings import Settings
from ..store.url import open_store
from .retrieval import BM25, memor_scores, top

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
METHODS = ("bm25", "dense", "paper", "memor", "memor-dated", "ours")
_DIA = re.compile(r"^D\d+:\d+$")


def parse_evidence(raw: Sequence[Any], known: set[str]) -> tuple[list[str], list[str]]:
    """Split multi-id strings; keep ids that exist; return (ids, dropped)."""
    ids, dropped = [], []
    for item in raw:
        for part in re.split(r"[;,\s]+", str(item).strip()):
            if not part:
                continue
            if _DIA.match(part) and part in known:
                ids.append(part)
            else:
                dropped.append(part)
    return list(dict.fromkeys(ids)), dropped


def _score(ranked: list[str], evidence: list[str], ks: Sequence[int]) -> dict[str, float]:
    out = {}
    ev = set(evidence)
    for k in ks:
        got = set(ranked[:k]) & ev
        out[f"recall@{k}"] = len(got) / len(ev)
        out[f"hit@{k}"] = 1.0 if got else 0.0
    return out


def _mean(rows: list[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {}
    return {key: round(100.0 * float(np.mean([r[key] for r in rows])), 2) for key in rows[0]}


def ours_ranking(res: Any, dia_of: dict[str, str]) -> list[str]:
    """kgmem's episodes in rank order. Facts count through their provenance:
    recall already lifts the episodes that the top facts came from."""
    return list(dict.fromkeys(d for d in (dia_of.get(s.episode.id) for s in res.episodes) if d))


def run_locomo(paths: Sequence[str | Path], embedder: Embedder, ks: Sequence[int] = (1, 5, 10, 20),
               store_url: str | None = None, settings: Settings | None = None,
               log: Callable[[str], None] = lambda _m: None) -> dict[str, Any]:
    settings = settings or Settings()
    ks = sorted(set(ks))
    kmax = max(ks)
    per: dict[str, dict[str, list[dict[str, float]]]] = {m: defaultdict(list) for m in METHODS}
    adversarial = 0
    questions = 0
    dropped_all: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        url = store_url or f"sqlite:///{Path(tmp) / 'locomo.db'}"
        store = open_store(url, dim=embedder.dim)
        mem = Memory(store, settings=settings, embedder=embedder)
        try:
            for path in paths:
                try:
                    raw = json.loads(Path(path).read_text(encoding="utf-8"))
                except (OSError, json.JSONDecodeError) as exc:
                    raise InputError([f"{path}:1: cannot read LoCoMo JSON ({exc})"]) from None
                run_id = uuid.uuid4().hex[:6]
                parsed = parse_file(path, "locomo")
                for si, sample in enumerate(iter_locomo_samples(raw)):
                    source_group = locomo_group(sample, Path(path), si)
                    group = f"{source_group}-{run_id}"  # a fresh group even on a reused store
                    eps = [e.model_copy(update={"group_id": group}) for e in parsed.episodes
                           if e.group_id == source_group]
                    log(f"{path}: {len(eps)} turns")
                    mem.add_episodes(eps)
                    dia_of = {e.id: str(e.metadata["dia_id"]) for e in eps if e.metadata.get("dia_id")}
                    turns = [e for e in eps if e.metadata.get("dia_id")]
                    dia = [e.metadata["dia_id"] for e in turns]
                    # Every method sees the same turn text: the speaker, what was said, any image caption.
                    plain = [f"{e.speaker}: {e.content}" + (f" [image: {e.metadata['blip_caption']}]"
                                                            if e.metadata.get("blip_caption") else "") for e in turns]
                    dated = [f"{t} ({e.occurred_at:%d %B %Y})" for t, e in zip(plain, turns, strict=True)]
                    v_plain = embedder.embed(plain)
                    v_dated = embedder.embed(dated)
                    bm_plain, bm_dated = BM25(plain), BM25(dated)
                    long_mask = np.array([len(e.content) >= 20 for e in turns])
                    known = set(dia)
                    for qa in sample.get("qa", []):
                        cat = int(qa.get("category", 0))
                        if cat == 5:
                            adversarial += 1
                            continue
                        if cat not in CATEGORIES:
                            continue
                        evidence, dropped = parse_evidence(qa.get("evidence", []), known)
                        dropped_all.extend(dropped)
                        if not evidence:
                            continue
                        questions += 1
                        q = str(qa["question"])
                        qv = embedder.embed([q])[0]
                        rankings = {
                            "bm25": top(bm_plain.scores(q), kmax),
                            "dense": top(v_plain @ qv, kmax),
                            "paper": top(v_plain @ qv, kmax, long_mask),
                            "memor": top(memor_scores(q, qv, bm_plain, v_plain, plain), kmax),
                            "memor-dated": top(memor_scores(q, qv, bm_dated, v_dated, dated), kmax),
                        }
                        for name, idx in rankings.items():
                            per[name][CATEGORIES[cat]].append(_score([dia[i] for i in idx], evidence, ks))
                        res = mem.recall(q, group=group, k=kmax)
                        per["ours"][CATEGORIES[cat]].append(_score(ours_ranking(res, dia_of), evidence, ks))
        finally:
            store.close()
    methods = {}
    for name, cats in per.items():
        rows = [r for rs in cats.values() for r in rs]
        methods[name] = {"overall": _mean(rows),
                         "by_category": {c: _mean(rs) | {"questions": len(rs)} for c, rs in cats.items()}}
    return {"questions": questions, "adversarial_excluded": adversarial, "ks": ks,
            "dropped_evidence": sorted(set(dropped_all)), "methods": methods}
