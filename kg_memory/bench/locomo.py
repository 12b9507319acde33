"""`kgmem bench locomo`: evidence recall@k and hit@k on LoCoMo, for kgmem's
recall and the baselines, on the same turns in the same run."""

from __future__ import annotations

import json
import re
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..embed.base import Embedder
from ..errors import InputError
from ..ingest.formats import iter_locomo_samples, locomo_group, parse_file
from ..memory import Memory
from ..settings import Settings
from ..store.url import open_store
from .retrieval import BM25, memor_scores, top

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
METHODS = ("bm25", "dense", "paper", "memor", "memor-dated", "gold-facts", "ours", "facts")
# Methods that rank facts, not turns: the top k facts, each covering the turns it came from.
FACT_METHODS = ("gold-facts", "facts")
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


def _score_covering(ranked: list[list[str]], evidence: list[str], ks: Sequence[int]) -> dict[str, float]:
    """Recall when each ranked item (a fact) covers several turns: the top k items
    cover the union of their turns."""
    out = {}
    ev = set(evidence)
    for k in ks:
        got = {d for item in ranked[:k] for d in item} & ev
        out[f"recall@{k}"] = len(got) / len(ev)
        out[f"hit@{k}"] = 1.0 if got else 0.0
    return out


def gold_observations(sample: dict[str, Any], known: set[str]) -> tuple[list[str], list[list[str]]]:
    """LoCoMo's annotated facts (`session_N_observation`): their texts and the turns each cites."""
    texts: list[str] = []
    cites: list[list[str]] = []
    for key, value in sample.items():
        if not key.endswith("_observation") or not isinstance(value, dict):
            continue
        for speaker, items in value.items():
            for item in items if isinstance(items, list) else []:
                if not isinstance(item, list) or len(item) < 2:
                    continue
                ids, _ = parse_evidence(item[1] if isinstance(item[1], list) else [item[1]], known)
                if ids:
                    texts.append(f"{speaker}: {item[0]}" if speaker not in str(item[0]) else str(item[0]))
                    cites.append(ids)
    return texts, cites


def fact_ranking(res: Any, dia_of: dict[str, str]) -> list[list[str]]:
    """kgmem's facts in rank order, each as the turns of its provenance."""
    return [[d for d in (dia_of.get(e) for e in sf.fact.episode_ids) if d] for sf in res.facts]


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
    extraction: dict[str, Any] = {"extractor": "", "episodes": 0, "facts_current": 0, "llm_calls": 0,
                                  "prompt_tokens": 0, "completion_tokens": 0, "seconds": 0.0}
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
                    started = time.perf_counter()
                    stats = mem.add_episodes(eps)
                    extraction["seconds"] += time.perf_counter() - started
                    extraction["episodes"] += len(eps)
                    for key in ("llm_calls", "prompt_tokens", "completion_tokens"):
                        extraction[key] += getattr(stats, key)
                    extraction["facts_current"] += store.counts(group).get("facts_current", 0)
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
                    gold_texts, gold_cites = gold_observations(sample.get("observation", sample), known)
                    v_gold = embedder.embed(gold_texts) if gold_texts else np.zeros((0, embedder.dim))
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
                        gold = [gold_cites[i] for i in top(v_gold @ qv, kmax)] if gold_texts else []
                        per["gold-facts"][CATEGORIES[cat]].append(_score_covering(gold, evidence, ks))
                        res = mem.recall(q, group=group, k=kmax)
                        per["ours"][CATEGORIES[cat]].append(_score(ours_ranking(res, dia_of), evidence, ks))
                        per["facts"][CATEGORIES[cat]].append(
                            _score_covering(fact_ranking(res, dia_of), evidence, ks))
        finally:
            store.close()
    methods = {}
    for name, cats in per.items():
        rows = [r for rs in cats.values() for r in rs]
        methods[name] = {"overall": _mean(rows),
                         "by_category": {c: _mean(rs) | {"questions": len(rs)} for c, rs in cats.items()}}
    n = max(1, int(extraction["episodes"]))
    extraction |= {"extractor": mem.extractor.name + (f" ({mem.extractor.version})" if mem.extractor.version else ""),
                   "calls_per_episode": round(extraction["llm_calls"] / n, 3),
                   "prompt_tokens_per_episode": round(extraction["prompt_tokens"] / n, 1),
                   "completion_tokens_per_episode": round(extraction["completion_tokens"] / n, 1),
                   "seconds_per_episode": round(float(extraction["seconds"]) / n, 3),
                   "seconds": round(float(extraction["seconds"]), 1)}
    return {"questions": questions, "extraction": extraction, "adversarial_excluded": adversarial, "ks": ks,
            "dropped_evidence": sorted(set(dropped_all)), "methods": methods}
