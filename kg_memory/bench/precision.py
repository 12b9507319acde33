"""`kgmem bench precision`: how many of the facts believed now are worth keeping.

Each file (a conversation in any input format kgmem reads) goes through ``Memory.ingest_files`` on a
fresh store with the chosen extractor; a set of update cases (``kgmem-contradictions/1``, the domain
sets) puts each case's turns in a group of its own under the ontology the set names, and its facts
believed now are one source. A seeded sample of each group's current facts is looked up in a
labels file (JSON lines ``{"source", "statement", "label", "note"}``, labels ``useful``, ``weak`` or
``junk`` by docs/labelling.md). A label is reused for as long as the fact's statement is unchanged, by
any extractor; facts with no label are written to a to-do file for a person to label, and counted apart.
"""

from __future__ import annotations

import json
import random
import tempfile
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

LABELS = ("useful", "weak", "junk")


def load_labels(path: Path) -> dict[tuple[str, str], str]:
    if not path.exists():
        return {}
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        if row.get("label") not in LABELS:
            raise ValueError(f"{path}:{n}: label {row.get('label')!r}; use useful, weak or junk")
        out[(row["source"], row["statement"])] = row["label"]
    return out


def sample(statements: list[str], source: str, n: int, seed: int) -> list[str]:
    """The same draw for the same facts: seeded by the source's name, over the sorted statements."""
    pool = sorted(set(statements))
    rng = random.Random(seed + zlib.crc32(source.encode()))
    return pool if len(pool) <= n else sorted(rng.sample(pool, n))


def _current_statements(paths: Sequence[Path], extractor: str, log: Callable[[str], None]) -> dict[str, list[str]]:
    """The statements of the facts believed now, per source (file name, and group when a file has several)."""
    from ..embed.base import make_embedder
    from ..memory import Memory
    from ..settings import load_settings

    out: dict[str, list[str]] = {}
    embedder = make_embedder(load_settings(extractor=extractor))  # loaded once for every conversation
    with tempfile.TemporaryDirectory(prefix="kgmem-precision-") as tmp:
        for path in paths:
            settings = load_settings(store=f"sqlite:///{Path(tmp) / (path.stem + '.db')}", extractor=extractor,
                                     group=path.stem)
            with Memory.open(settings.store, settings=settings, embedder=embedder) as mem:
                log(f"{path.name}: ingesting with the {extractor} extractor")
                cases = _update_cases(path)
                if cases is not None:
                    out[path.name] = _case_statements(mem, path, cases)
                    continue
                mem.ingest_files([path], group=path.stem)
                groups = [g for g, _ in mem.groups()]
                for g in groups:
                    source = path.name if len(groups) == 1 else f"{path.name}#{g}"
                    out[source] = [f.statement for f in mem.facts(group=g, limit=100_000)]
    return out


def _update_cases(path: Path) -> dict[str, Any] | None:
    """The cases of a ``kgmem-contradictions/1`` file, or None for a conversation."""
    if path.suffix != ".json":
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None  # not ours to judge here: ingest reports it
    return data if isinstance(data, dict) and data.get("format") == "kgmem-contradictions/1" else None


def _case_statements(mem: Any, path: Path, data: dict[str, Any]) -> list[str]:
    """Every case's turns in a group of its own, under the case's (or the set's) ontology; the
    statements of the facts believed now in all of them."""
    from .contradictions import start_case

    out: list[str] = []
    for case in data["cases"]:
        group = f"case-{case['id']}"
        mem.add_episodes(start_case(mem, path, data, case, group))
        out += [f.statement for f in mem.facts(group=group, limit=100_000)]
    return out


def run_precision(paths: Sequence[Path], extractor: str, labels_path: Path, todo_path: Path, n: int = 40,
                  seed: int = 7, log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    labels = load_labels(labels_path)
    current = _current_statements(paths, extractor, log)
    sources: dict[str, Any] = {}
    todo: list[dict[str, str]] = []
    total: Counter[str] = Counter()
    for source, statements in current.items():
        drawn = sample(statements, source, n, seed)
        counts: Counter[str] = Counter(labels.get((source, s), "unlabelled") for s in drawn)
        todo += [{"source": source, "statement": s, "label": "", "note": ""} for s in drawn
                 if (source, s) not in labels]
        sources[source] = {"facts_now": len(set(statements)), "sampled": len(drawn), **_shares(counts)}
        total += counts
    if todo:
        todo_path.parent.mkdir(parents=True, exist_ok=True)
        todo_path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in todo), encoding="utf-8")
    return {"extractor": extractor, "sample_per_source": n, "seed": seed, "sources": sources,
            "all": _shares(total), "todo": str(todo_path) if todo else None}


def _shares(counts: Counter[str]) -> dict[str, Any]:
    labelled = sum(counts[k] for k in LABELS)
    out: dict[str, Any] = {k: counts[k] for k in LABELS}
    out["unlabelled"] = counts["unlabelled"]
    out.update({f"{k}_pct": round(100 * counts[k] / labelled, 1) if labelled else None for k in LABELS})
    return out
