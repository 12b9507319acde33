"""Progress reporting for long runs, in named phases (parse, store, embed,
extract). The library reports through this protocol; the CLI draws it on stderr,
so ``--json`` output on stdout stays clean."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    def phase(self, name: str, total: int | None = None) -> None:
        """A new phase starts (``total`` units of work, when known)."""

    def advance(self, n: int = 1) -> None:
        """``n`` more units of the current phase are done."""


class NoProgress:
    """Reports nothing (the library default)."""

    def phase(self, name: str, total: int | None = None) -> None:
        return None

    def advance(self, n: int = 1) -> None:
        return None
