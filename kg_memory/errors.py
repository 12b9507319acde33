"""Every error kgmem raises derives from :class:`KgMemError`.

The CLI catches ``KgMemError`` and prints ``Error: <message>`` with a non-zero exit
code; library users can catch the specific subclasses.
"""

from __future__ import annotations

import re

EXIT_CHECK_FAILED = 1
EXIT_CONFIG = 2
EXIT_INPUT = 3
EXIT_STORE = 4
EXIT_MODEL = 5
EXIT_NOT_FOUND = 6
EXIT_EPISODES_FAILED = 7
EXIT_BUSY = 8
EXIT_ARCHIVE = 9

# Every exit code the CLI uses, one meaning each (the README's table is this one, tested).
EXIT_CODES: dict[int, str] = {
    0: "success",
    EXIT_CHECK_FAILED: "a check failed (`doctor`, `bench contradictions`, `jobs run-nightly`), or an unexpected "
                       "kgmem error",
    EXIT_CONFIG: "configuration: a bad option, setting, store URL or config file (an unknown key is named)",
    EXIT_INPUT: "bad input: every problem as `path:line: what is wrong; what to do`; nothing was written",
    EXIT_STORE: "the store: unreachable, or an error from SQLite or Neo4j",
    EXIT_MODEL: "a model is missing or corrupt: the message names the install command",
    EXIT_NOT_FOUND: "not found: an entity, fact or episode the command names",
    EXIT_EPISODES_FAILED: "`ingest` stored everything, but some episodes failed extraction: `--retry-failed`",
    EXIT_BUSY: "busy: another maintenance run holds the group's jobs lock",
    EXIT_ARCHIVE: "the archive: a body could not be archived or restored, or failed its sha256 check",
}


class KgMemError(Exception):
    """Base class of all kgmem errors."""

    exit_code = EXIT_CHECK_FAILED


class ConfigError(KgMemError):
    """Settings, store URLs or arguments that cannot work. ``params``: the Python argument names the
    message names, as written in it (``as_of``); a surface shows them its own way (the CLI as ``--as-of``)."""

    exit_code = EXIT_CONFIG

    def __init__(self, message: str, *, params: tuple[str, ...] = ()):
        super().__init__(message)
        self.params = params

    def as_flags(self) -> str:
        """The message with each named argument as its command-line option."""
        text = str(self)
        for p in self.params:
            text = re.sub(rf"(?<![\w-]){re.escape(p)}\b", "--" + p.replace("_", "-"), text)
        return text


class InputError(KgMemError):
    """Bad input data. Carries every problem found as ``path:line: message``."""

    exit_code = EXIT_INPUT

    def __init__(self, problems: list[str], hint: str = "Fix the input, or pass --on-error skip to ingest the "
                                                             "good records."):
        self.problems = list(problems)
        self.hint = hint
        head = self.problems[0] if self.problems else "bad input"
        more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
        super().__init__(head + more)


class StoreError(KgMemError):
    """The store could not be reached or refused an operation."""

    exit_code = EXIT_STORE


class SchemaError(StoreError):
    """The store's schema is missing, newer than this kgmem, or broken."""


class UnsafeIdentifierError(KgMemError):
    """A label, type, predicate or table name failed the strict identifier pattern."""


class ModelMissingError(KgMemError):
    """The local embedding model's weights are not installed."""

    exit_code = EXIT_MODEL


class ExtractionError(KgMemError):
    """An extractor failed on an episode (the episode stays stored and is marked failed)."""


class NotFoundError(KgMemError):
    """A named entity, fact or episode does not exist in the group."""

    exit_code = EXIT_NOT_FOUND


class FlushTimeout(KgMemError):
    """``Memory.flush(timeout=...)`` ran out of time with episodes still waiting (they stay stored, pending)."""
