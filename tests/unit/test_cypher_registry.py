"""Every cypher/*.cypher file is used by the code, every name the code asks for
exists, and identifiers that reach query text are checked."""

import re
from pathlib import Path

import pytest

from kg_memory.core.idents import safe_identifier
from kg_memory.core.vocab import check_predicate, load_vocabulary
from kg_memory.errors import KgMemError, UnsafeIdentifierError
from kg_memory.store.neo4j.queries import WHOLE_STORE, migration_names, query, registry, script

PKG = Path(__file__).resolve().parents[2] / "kg_memory"
USE = re.compile(r'(?:query|_read|_collected|_exact|_widening|_read_rows)\(\s*"([a-z0-9_]+)"')


def names_used() -> set[str]:
    used: set[str] = set()
    for f in PKG.rglob("*.py"):
        used |= set(USE.findall(f.read_text()))
    return used


def test_every_file_is_used_and_every_name_exists():
    files = set(registry())
    used = names_used()
    assert used, "no query names found in the code"
    assert used - files == set(), "code asks for queries that have no file"
    unused = files - used - set(migration_names())
    assert unused == set(), f"cypher files nothing uses: {sorted(unused)}"
    assert migration_names() == sorted(migration_names()) and len(migration_names()) >= 3


def test_queries_use_parameters_and_filter_by_group():
    for name, text in registry().items():
        if name.startswith(("migration_", "schema_", "server_", "show_")) or name in WHOLE_STORE:
            continue
        assert "group_id" in text, f"{name} does not filter by group_id"
        assert "{{" not in text and "%s" not in text and "format(" not in text, name


def test_migration_scripts_split_into_statements():
    stmts = script("migration_0001_constraints")
    assert len(stmts) >= 4 and all(s.startswith("CREATE CONSTRAINT") for s in stmts)


def test_unknown_query_name():
    with pytest.raises(KgMemError):
        query("drop_everything")


@pytest.mark.parametrize("bad", ["x) DETACH DELETE n //", "Fact`", "a b", "1abc", "", "n{id:1}", "名前", "a" * 65])
def test_identifier_and_predicate_injection_is_refused(bad: str):
    with pytest.raises(UnsafeIdentifierError):
        safe_identifier(bad)
    with pytest.raises(UnsafeIdentifierError):
        check_predicate(bad)


def test_vocabulary_predicates_are_safe():
    vocab = load_vocabulary()
    assert all(check_predicate(p) == p for p in vocab.predicates)
    assert vocab.is_single("lives_in") and not vocab.is_single("plays")
