"""`kgmem bench longmemeval`: recall@k of evidence turns (``has_answer``) and of
evidence sessions, per question type, for kgmem and simple baselines, plus the
seed paper's "time-travel" variant: dense search as of the question date that
over-fetches 10 x k and then post-filters by time."""

from __future__ import annotations

import json
import tempfile
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..core.timeutil import parse_datetime
from ..embed.base import Embedder
from ..errors import InputError
from ..ingest.formats import parse_file
from ..memory import Memory
from ..settings import Settings
from ..store.url import open_store
from .retrieval import BM25, top

METHODS = ("bm25", "dense", "time-travel", "ours")


def _metrics(turns: list[str], sessions: list[str], ev_turns: set[str], ev_sessions: set[str],
             ks: Sequence[int]) -> dict[str, float]:
    out = {}
    for k in ks:
        if ev_turns:
            out[f"turn_recall@{k}"] = len(set(turns[:k]) & ev_turns) / len(ev_turns)
        seen = list(dict.fromkeys(sessions))[:k]
        if ev_sessions:
            out[f"session_recall@{k}"] = len(set(seen) & ev_sessions) / len(ev_sessions)
    return out


def _mean(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = sorted({k for r in rows for k in r})
    return {k: round(100.0 * float(np.mean([r[k] for r in rows if k in r])), 2) for k in keys}


def run_longmemeval(path: str | Path, embedder: Embedder, ks: Sequence[int] = (1, 5, 10),
                    store_url: str | None = None, settings: Settings | None = None,
                    log: Callable[[str], None] = lambda _m: None) -> dict[str, Any]:
    ks = sorted(set(ks))
    kmax = max(ks)
    try:
        items = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError([f"{path}:1: cannot read LongMemEval JSON ({exc})"]) from None
    items = items if isinstance(items, list) else [items]
    parsed = parse_file(path, "longmemeval")
    if parsed.problems:
        raise InputError(parsed.problems)
    per: dict[str, dict[str, list[dict[str, float]]]] = {m: defaultdict(list) for m in METHODS}
    run = uuid.uuid4().hex[:6]
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(store_url or f"sqlite:///{Path(tmp) / 'lme.db'}", dim=embedder.dim)
        mem = Memory(store, settings=settings or Settings(), embedder=embedder)
        try:
            for qi, q in enumerate(items):
                gid = str(q.get("question_id") or f"lme-{qi}")
                group = f"{gid}-{run}"
                eps = [e.model_copy(update={"group_id": group}) for e in parsed.episodes if e.group_id == gid]
                if not eps:
                    continue
                mem.add_episodes(eps)
                ev_turns = {e.id for e in eps if e.metadata.get("has_answer")}
                ev_sessions = set(q.get("answer_session_ids") or []) or {e.session_id for e in eps
                                                                          if e.metadata.get("has_answer")}
                ev_sessions.discard(None)
                question = str(q["question"])
                asked = parse_datetime(q["question_date"]) if q.get("question_date") else None
                qtype = str(q.get("question_type", "unknown"))
                texts = [e.content for e in eps]
                vecs = embedder.embed(texts)
                qv = embedder.embed([question])[0]
                dense = vecs @ qv
                sess = [e.session_id or "" for e in eps]
                ids = [e.id for e in eps]
                rankings = {"bm25": top(BM25(texts).scores(question), kmax), "dense": top(dense, kmax)}
                over = top(dense, 10 * kmax)  # the paper: over-fetch 10 x k, then filter by time
                rankings["time-travel"] = [i for i in over if asked is None or eps[i].occurred_at <= asked][:kmax]
                for name, idx in rankings.items():
                    per[name][qtype].append(_metrics([ids[i] for i in idx], [sess[i] for i in idx], ev_turns,
                                                     ev_sessions, ks))
                res = mem.recall(question, group=group, as_of=asked, k=kmax)
                turns = [s.episode.id for s in res.episodes]
                per["ours"][qtype].append(_metrics(turns, [s.episode.session_id or "" for s in res.episodes],
                                                   ev_turns, ev_sessions, ks))
                log(f"{gid}: done")
        finally:
            store.close()
    methods = {}
    for name, types in per.items():
        rows = [r for rs in types.values() for r in rs]
        methods[name] = {"overall": _mean(rows) if rows else {},
                         "by_type": {t: _mean(rs) | {"questions": len(rs)} for t, rs in types.items()}}
    return {"questions": sum(len(v) for v in per["ours"].values()), "ks": ks, "methods": methods}
