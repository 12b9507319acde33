"""Every error kgmem raises derives from :class:`KgMemError`.

The CLI catches ``KgMemError`` and prints ``Error: <message>`` with a non-zero exit
code; library users can catch the specific subclasses.
"""

from __future__ import annotations


class KgMemError(Exception):
    """Base class of all kgmem errors."""

    exit_code = 1


class ConfigError(KgMemError):
    """Settings, store URLs or command options that cannot work."""

    exit_code = 2


class InputError(KgMemError):
    """Bad input data. Carries every problem found as ``path:line: message``."""

    exit_code = 3

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        head = self.problems[0] if self.problems else "bad input"
        more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
        super().__init__(head + more)


class StoreError(KgMemError):
    """The store could not be reached or refused an operation."""

    exit_code = 4


class SchemaError(StoreError):
    """The store's schema is missing, newer than this kgmem, or broken."""


class UnsafeIdentifierError(KgMemError):
    """A label, type, predicate or table name failed the strict identifier pattern."""


class ModelMissingError(KgMemError):
    """The local embedding model's weights are not installed."""

    exit_code = 5


class ExtractionError(KgMemError):
    """An extractor failed on an episode (the episode stays stored and is marked failed)."""


class NotFoundError(KgMemError):
    """A named entity, fact or episode does not exist in the group."""

    exit_code = 6


class FlushTimeout(KgMemError):
    """``Memory.flush(timeout=...)`` ran out of time with episodes still waiting (they stay stored, pending)."""
