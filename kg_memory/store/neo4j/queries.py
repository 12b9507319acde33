"""The Cypher registry: ``cypher/*.cypher`` loaded once, one named query per file."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from ...errors import KgMemError
from ..timefilter import expand_cypher

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
# The data queries that read every group by design (the store's totals for doctor, the list of groups);
# every other one filters by group_id, from an index that starts at the group (tests check both).
WHOLE_STORE = frozenset({"counts_all", "groups_list"})


@lru_cache(maxsize=1)
def registry() -> dict[str, str]:
    out: dict[str, str] = {}
    for entry in resources.files("kg_memory.queries").iterdir():
        name = entry.name
        if not name.endswith(".cypher"):
            continue
        stem = name[: -len(".cypher")]
        if not _NAME.match(stem):
            raise KgMemError(f"cypher/{name}: query names must be lower_snake_case")
        out[stem] = expand_cypher(entry.read_text(encoding="utf-8"))  # the time rules, compiled
    return out


def query(name: str) -> str:
    """The text of the named query. Raises if no such file exists."""
    try:
        return registry()[name]
    except KeyError:
        raise KgMemError(f"no Cypher query named {name!r} in cypher/") from None


def script(name: str) -> list[str]:
    """A migration file's statements (split on ';', comments dropped)."""
    text = "\n".join(line for line in query(name).splitlines() if not line.lstrip().startswith("//"))
    return [s.strip() for s in text.split(";") if s.strip()]


def migration_names() -> list[str]:
    return sorted(n for n in registry() if n.startswith("migration_"))
