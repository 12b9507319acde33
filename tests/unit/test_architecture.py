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


def _package_imports(path: Path) -> set[str]:
    """What a module imports, resolved to dotted names under kg_memory."""
    rel = path.relative_to(PKG.parent).with_suffix("")
    here = list(rel.parts[:-1])
    out = set()
    for mod in imported_modules(path):
        if mod.startswith("."):
            level = len(mod) - len(mod.lstrip("."))
            base = here[: len(here) - level + 1]
            out.add(".".join([*base, mod.lstrip(".")]).rstrip("."))
        else:
            out.add(mod)
    return out


def test_the_library_never_imports_its_surfaces():
    """The CLI and the HTTP service sit on the library; the library (memory, ingest, recall, extraction,
    maintenance, the stores) imports neither, and the service does not reach into the CLI."""
    for path in PKG.rglob("*.py"):
        part = path.relative_to(PKG).parts[0]
        mods = _package_imports(path)
        if part not in ("cli", "service", "bench", "__main__.py", "testing"):
            assert not any(m.startswith(("kg_memory.cli", "kg_memory.service")) for m in mods), path
        if part == "service":
            assert not any(m.startswith("kg_memory.cli") for m in mods), path


def test_the_import_check_can_fail():
    fake = PKG / "service" / "keys.py"
    assert any(m.startswith("kg_memory.store") for m in _package_imports(fake))
