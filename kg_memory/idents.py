"""Identifiers that must go into query text (labels, index names, table names)
are checked here against a strict pattern. Values never go into query text."""

from __future__ import annotations

import re

from .errors import UnsafeIdentifierError

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def safe_identifier(name: str, what: str = "identifier") -> str:
    if not isinstance(name, str) or not _IDENT.match(name):
        raise UnsafeIdentifierError(f"{what} {name!r} is not allowed: letters, digits and _ only, a letter first")
    return name
