"""Boundaries the style guide sets: no store imports a sibling store, and recall,
the pipeline and the temporal core import no store implementation."""

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "kg_memory"
STORES = {"sqlite", "neo4j", "reference", "sqlite_migrations"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(("." * node.level) + node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_no_store_imports_a_sibling_store():
    for path in (PKG / "store").glob("*.py"):
        me = path.stem
        if me == "url":  # the factory: the one module that knows every store class
            continue
        for mod in imported_modules(path):
            name = mod.lstrip(".").split(".")[-1]
            if name in STORES and name != me and not (me == "sqlite" and name == "sqlite_migrations"):
                raise AssertionError(f"store/{path.name} imports {mod}")


def test_ranking_and_rules_import_no_store_implementation():
    for name in ("recall.py", "pipeline.py", "temporal.py", "history.py", "timeline.py", "text.py"):
        for mod in imported_modules(PKG / name):
            assert not any(mod.endswith(f"store.{s}") for s in STORES), f"{name} imports {mod}"
