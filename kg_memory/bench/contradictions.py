"""Runs ``kgmem-contradictions/1`` files exactly as their ``about`` field says.

Each case is replayed into a fresh group, one episode at a time, with the
transaction clock set to the episode's ``recorded_at`` (else ``t``). Each check
recalls at (as_of, known_at) — null meaning now, the clock after the last
episode — takes the top 5 facts, and passes when every ``expect`` string occurs
case-insensitively in some fact (subject, predicate, object or statement) and no
``reject`` string occurs in any. A file (or a case) may name an ``ontology``, a TOML
file relative to it, that each case's group is given before its episodes."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.models import Episode
from ..core.timeutil import FixedClock, parse_datetime
from ..errors import InputError
from ..memory import Memory

TOP_FACTS = 5


def load_cases(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError([f"{p}: no such file"]) from None
    except json.JSONDecodeError as exc:
        raise InputError([f"{p}:{exc.lineno}: invalid JSON ({exc.msg})"]) from None
    if not isinstance(data, dict) or data.get("format") != "kgmem-contradictions/1":
        raise InputError([f"{p}:1: not a kgmem-contradictions/1 file (missing \"format\")"])
    return data


def start_case(mem: Memory, path: str | Path, data: dict[str, Any], case: dict[str, Any], group: str
               ) -> list[Episode]:
    """Set the case's (or the set's) ontology on ``group`` and return the case's turns as episodes, each
    recorded when its ``recorded_at`` says (else when it happened); the caller adds them."""
    ontology = case.get("ontology") or data.get("ontology")
    if ontology:
        mem.set_ontology(Path(path).parent / ontology, group=group)
    return [Episode(group_id=group, role=e.get("role", "user"), content=e["text"], occurred_at=parse_datetime(e["t"]),
                    created_at=parse_datetime(e.get("recorded_at") or e["t"]), session_id=case["id"], source=str(path))
            for e in case["episodes"]]


def fact_text(f: dict[str, Any]) -> str:
    return " | ".join(str(f.get(k) or "") for k in ("subject", "predicate", "object", "statement")).lower()


def run_contradictions(path: str | Path, make_memory: Callable[[FixedClock], Memory],
                       progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    data = load_cases(path)
    cases = data["cases"]
    checks = passed = 0
    failures: list[dict[str, Any]] = []
    by_kind: dict[str, dict[str, int]] = {}
    run_id = uuid.uuid4().hex[:8]
    for case in cases:
        first = case["episodes"][0]
        clock = FixedClock(parse_datetime(first.get("recorded_at") or first["t"]))
        mem = make_memory(clock)
        group = f"contra-{run_id}-{case['id']}"
        try:
            for ep in start_case(mem, path, data, case, group):
                clock.set(ep.created_at)
                mem.add_episodes([ep])
            for i, chk in enumerate(case["checks"]):
                res = mem.recall(chk["query"], group=group, as_of=chk.get("as_of"),
                                 known_at=chk.get("known_at"), k=TOP_FACTS)
                facts = res.to_json()["facts"][:TOP_FACTS]
                texts = [fact_text(f) for f in facts]
                missing = [x for x in chk.get("expect", []) if not any(x.lower() in t for t in texts)]
                present = [x for x in chk.get("reject", []) if any(x.lower() in t for t in texts)]
                ok = not missing and not present
                checks += 1
                kind = by_kind.setdefault(case.get("kind", "unknown"), {"checks": 0, "passed": 0})
                kind["checks"] += 1
                if ok:
                    passed += 1
                    kind["passed"] += 1
                else:
                    failures.append({
                        "case": case["id"], "check": i, "query": chk["query"], "as_of": chk.get("as_of"),
                        "missing": missing, "rejected_present": present,
                        "got": [f"{f['subject']} {f['predicate']} {f['object']}" for f in facts],
                    })
        finally:
            mem.close()
        if progress:
            progress(1)
    return {"cases": len(cases), "checks": checks, "passed": passed,
            "pass_rate": round(passed / checks, 4) if checks else 0.0, "failures": failures,
            "by_kind": by_kind}
