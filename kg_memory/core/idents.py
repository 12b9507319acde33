"""Identifiers that must go into query text (labels, index names, table names)
are checked here against a strict pattern. Values never go into query text."""

from __future__ import annotations

import re

from ..errors import UnsafeIdentifierError

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def safe_identifier(name: str, what: str = "identifier") -> str:
    if not isinstance(name, str) or not _IDENT.match(name):
        raise UnsafeIdentifierError(f"{what} {name!r} is not allowed: letters, digits and _ only, a letter first")
    return name


def tuple_key(*parts: str) -> str:
    """A sha256 hex digest of the parts as a JSON array: no choice of parts can make two
    different tuples collide (unlike joining with a separator that a part may contain)."""
    import hashlib
    import json

    return hashlib.sha256(json.dumps(list(parts), ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()
