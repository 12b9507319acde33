"""The reusable check suite (pytest11 plugin), run against both of our stores."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


def test_plugin_runs_the_bundled_checks(pytester: pytest.Pytester, store, monkeypatch: pytest.MonkeyPatch):
    if store.kind == "neo4j":
        from ..conftest import neo4j_url

        monkeypatch.setenv("KGMEM_STORE", neo4j_url())
        factory = "kg_memory.testing.factories:neo4j"
    else:
        factory = "kg_memory.testing.factories:sqlite"
    pytester.makepyfile(test_nothing="def test_placeholder():\n    assert True\n")
    result = pytester.runpytest_inprocess("--kgmem-adapter", factory, "-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=8)  # 7 kgmem checks + the placeholder
    result.stdout.fnmatch_lines(["*kgmem?home-move? PASSED*", "*kgmem?belief-correction? PASSED*"])


def test_plugin_reports_a_failing_backend(pytester: pytest.Pytester):
    pytester.makepyfile(forgetful="""
class Forgetful:
    def ingest(self, group, text, said_at, recorded_at, role="user"):
        pass
    def recall(self, group, query, as_of, known_at, k):
        return []

def make():
    return Forgetful()
""")
    pytester.syspathinsert()
    result = pytester.runpytest_inprocess("--kgmem-adapter", "forgetful:make", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=7)
    result.stdout.fnmatch_lines(["*missing*"])
