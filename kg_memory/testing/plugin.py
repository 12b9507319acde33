"""A pytest plugin (entry point ``pytest11: kgmem``) that runs kgmem's
contradiction and as-of checks against any memory backend.

Use it from your own test suite::

    pytest --kgmem-adapter mypackage.testing:make_adapter

``make_adapter`` takes no arguments and returns an object with ``ingest`` and
``recall`` (see :class:`kg_memory.testing.MemoryAdapter`). Each check of
``--kgmem-cases`` (default: the bundled planted-contradiction file) becomes one
test item named ``kgmem[case-id#n]``. Ingestion replays each case into a fresh
group with transaction time ``recorded_at`` (else ``t``); a check passes when
every ``expect`` string occurs in some returned fact (case-insensitive) and no
``reject`` string occurs in any of the top 5."""

from __future__ import annotations

import importlib
import json
import uuid
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from ..core.timeutil import parse_datetime

TOP = 5


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kgmem", "kgmem memory checks")
    group.addoption("--kgmem-adapter", default=None,
                    help="module:factory returning a memory adapter; enables the kgmem checks")
    group.addoption("--kgmem-cases", default=None,
                    help="a kgmem-contradictions/1 JSON file (default: the cases bundled with kgmem)")


def load_cases(path: str | None) -> dict[str, Any]:
    if path:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    return json.loads(resources.files("kg_memory.data").joinpath("contradictions.json").read_text("utf-8"))


def make_adapter(spec: str) -> Any:
    module, _, attr = spec.partition(":")
    if not attr:
        raise pytest.UsageError("--kgmem-adapter wants module:factory")
    return getattr(importlib.import_module(module), attr)()


class KgMemCase(pytest.Item):
    def __init__(self, *, case: dict[str, Any], adapter_spec: str, **kw: Any):
        super().__init__(**kw)
        self.case = case
        self.adapter_spec = adapter_spec
        self.add_marker("kgmem")

    def runtest(self) -> None:
        adapter = make_adapter(self.adapter_spec)
        group = f"kgmem-check-{uuid.uuid4().hex[:8]}-{self.case['id']}"
        for e in self.case["episodes"]:
            said = parse_datetime(e["t"])
            adapter.ingest(group, e["text"], said, parse_datetime(e.get("recorded_at") or e["t"]),
                           e.get("role", "user"))
        problems = []
        for i, chk in enumerate(self.case["checks"]):
            as_of = parse_datetime(chk["as_of"]) if chk.get("as_of") else None
            known = parse_datetime(chk["known_at"]) if chk.get("known_at") else None
            facts = [f.lower() for f in adapter.recall(group, chk["query"], as_of, known, TOP)[:TOP]]
            missing = [x for x in chk.get("expect", []) if not any(x.lower() in f for f in facts)]
            present = [x for x in chk.get("reject", []) if any(x.lower() in f for f in facts)]
            if missing or present:
                problems.append(f"check {i} {chk['query']!r} as_of={chk.get('as_of')}: missing {missing}, "
                                f"rejected but present {present}; got {facts}")
        if problems:
            raise AssertionError("\n".join(problems))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        return self.path, None, f"kgmem[{self.case['id']}]"


class KgMemCollector(pytest.Collector):
    def __init__(self, *, cases: dict[str, Any], adapter_spec: str, **kw: Any):
        super().__init__(**kw)
        self.cases = cases
        self.adapter_spec = adapter_spec

    def collect(self) -> list[pytest.Item]:
        return [KgMemCase.from_parent(self, name=f"kgmem[{c['id']}]", case=c, adapter_spec=self.adapter_spec)
                for c in self.cases["cases"]]


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    spec = config.getoption("--kgmem-adapter")
    if not spec:
        return
    cases = load_cases(config.getoption("--kgmem-cases"))
    collector = KgMemCollector.from_parent(session, name="kgmem-checks", cases=cases, adapter_spec=spec)
    items.extend(collector.collect())


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "kgmem: a kgmem memory check (from the kgmem pytest plugin)")
