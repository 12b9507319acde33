"""The folders tell the architecture (docs/architecture.md), and these tests hold them to it:
which package may import which, that no store imports a sibling store, that few modules sit
at the root and none is long."""

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "kg_memory"

# What each part of the library may import at run time (imports only for type checking are
# free). A part is a package under kg_memory/ or a module at its root. Lower layers first.
LIBRARY = {
    "errors": set(),
    "progress": set(),
    "data": set(),  # package data (the built-in ontology, pinned requirements)
    "core": {"errors"},
    "settings": {"core", "errors"},
    "store": {"core", "errors"},
    "embed": {"errors", "settings"},
    "extract": {"core", "embed", "errors", "settings"},
    "ingest": {"core", "embed", "errors", "extract", "progress", "settings", "store"},
    "recall": {"core", "embed", "errors", "extract", "settings", "store"},
    "maintenance": {"core", "embed", "errors", "extract", "ingest", "progress", "settings", "store"},
}
LIBRARY["memory"] = set(LIBRARY) | {"recall"}
LIBRARY["agent"] = {"core", "errors", "ingest", "memory", "recall", "settings"}
LIBRARY["tools"] = {"agent"}
LIBRARY["__init__"] = {"core", "errors", "memory", "settings"}
SURFACES = {"service", "cli", "bench", "testing", "__main__"}
STORE_IMPLEMENTATIONS = ("sqlite", "neo4j", "reference")
MAX_ROOT_MODULES = 12
MAX_LINES = 800


def _type_checking_only(tree: ast.Module) -> set[int]:
    """Line numbers of the imports under ``if TYPE_CHECKING:``."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for sub in node.body:
                lines.update(range(sub.lineno, (sub.end_lineno or sub.lineno) + 1))
    return lines


def runtime_imports(path: Path) -> set[str]:
    """What a module imports at run time, as dotted names (a name imported from a package
    counts as the module it may be)."""
    tree = ast.parse(path.read_text())
    skip = _type_checking_only(tree)
    here = list(path.relative_to(PKG.parent).with_suffix("").parts[:-1])
    out: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            base = ".".join(here[: len(here) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else (node.module or "")
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def part_of(dotted: str) -> str | None:
    parts = dotted.split(".")
    if parts[0] != "kg_memory" or len(parts) < 2:
        return None
    name = parts[1]
    return name if (PKG / name).is_dir() or (PKG / f"{name}.py").exists() else None


def _part(path: Path) -> str:
    rel = path.relative_to(PKG)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def test_every_part_of_the_library_is_placed_in_a_layer():
    parts = {_part(p) for p in PKG.rglob("*.py")}
    assert parts <= set(LIBRARY) | SURFACES, parts - set(LIBRARY) - SURFACES


def test_each_part_imports_only_the_layers_below_it():
    for path in PKG.rglob("*.py"):
        me = _part(path)
        if me in SURFACES:
            continue
        for mod in runtime_imports(path):
            other = part_of(mod)
            if other and other != me:
                assert other in LIBRARY[me], f"{path.relative_to(PKG)} imports {mod} ({me} may not use {other})"


def test_the_library_never_imports_its_surfaces():
    """The CLI and the HTTP service sit on the library; the service does not reach into the CLI,
    and nothing but the CLI runs a benchmark."""
    for path in PKG.rglob("*.py"):
        me = _part(path)
        used = {part_of(m) for m in runtime_imports(path)}
        if me == "service":
            assert "cli" not in used, path
        if me not in ("cli", "__main__"):
            assert "bench" not in used or me == "bench", path


def test_no_store_imports_a_sibling_store():
    """Only ``store/url.py`` knows every store class; the port, the reference store and each
    store's own package import no other implementation."""
    for path in (PKG / "store").rglob("*.py"):
        rel = path.relative_to(PKG / "store")
        me = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        if me == "url":
            continue
        for mod in runtime_imports(path):
            parts = mod.split(".")
            if parts[:2] == ["kg_memory", "store"] and len(parts) > 2:
                assert parts[2] not in STORE_IMPLEMENTATIONS or parts[2] == me, f"store/{rel} imports {mod}"


def test_nothing_below_the_facade_opens_a_store_implementation():
    for part in ("core", "ingest", "recall", "extract", "maintenance", "agent"):
        for path in (PKG / part).rglob("*.py"):
            for mod in runtime_imports(path):
                assert not any(mod.startswith(f"kg_memory.store.{s}") for s in (*STORE_IMPLEMENTATIONS, "url")), \
                    f"{path.relative_to(PKG)} imports {mod}"


def test_ingest_and_recall_need_only_the_narrow_port():
    """Ingest and recall are typed against ``StoreCore`` (writes, and reads at a time), not the
    whole ``Store`` with erasure, maintenance and held indexes; mypy holds them to it."""
    for part in ("ingest", "recall"):
        for path in (PKG / part).rglob("*.py"):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("store.base"):
                    names = {a.name for a in node.names}
                    assert "Store" not in names, f"{path.relative_to(PKG)} imports the whole Store port"


def test_few_modules_at_the_root_and_none_long():
    root = sorted(p.name for p in PKG.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root
    long = {str(p.relative_to(PKG)): n for p in PKG.rglob("*.py") if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, long


def test_the_checks_can_fail():
    """Each rule would catch a break: a store module reaches the CLI, the pipeline opens SQLite."""
    keys = runtime_imports(PKG / "service" / "keys.py")
    assert part_of("kg_memory.store.base") == "store" and any(part_of(m) == "store" for m in keys)
    assert "store" not in LIBRARY["core"] and "cli" not in LIBRARY["memory"]
    pipeline = runtime_imports(PKG / "ingest" / "pipeline.py")
    assert "kg_memory.store.base" in pipeline  # resolved from '..store.base'
    merged = runtime_imports(PKG / "core" / "merged.py")
    assert "kg_memory.store.base" not in merged  # imported only for type checking
