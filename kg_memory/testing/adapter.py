"""The small interface a memory backend implements to run kgmem's checks."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from ..core.models import Episode
from ..core.timeutil import FixedClock
from ..memory import Memory


class MemoryAdapter(Protocol):
    """Two calls. Times are timezone-aware UTC.

    ``ingest``: store what was said at ``said_at`` (valid-time anchor), as if the
    memory learned it at ``recorded_at`` (transaction time).
    ``recall``: the facts the memory returns for ``query``, true at ``as_of`` as
    believed at ``known_at`` (None means now), best first, as readable strings."""

    def ingest(self, group: str, text: str, said_at: datetime, recorded_at: datetime, role: str = "user") -> None: ...

    def recall(self, group: str, query: str, as_of: datetime | None, known_at: datetime | None,
               k: int) -> list[str]: ...


class KgMemAdapter:
    """kgmem itself behind the adapter interface (used on both of our stores)."""

    def __init__(self, memory: Memory):
        self.memory = memory
        self.clock = memory.clock if isinstance(memory.clock, FixedClock) else FixedClock(datetime.now().astimezone())
        memory.clock = self.clock

    def ingest(self, group: str, text: str, said_at: datetime, recorded_at: datetime, role: str = "user") -> None:
        self.clock.set(recorded_at)
        self.memory.add_episodes([Episode(group_id=group, role=role, content=text, occurred_at=said_at,  # type: ignore[arg-type]
                                          created_at=recorded_at, source="adapter")])

    def recall(self, group: str, query: str, as_of: datetime | None, known_at: datetime | None,
               k: int) -> list[str]:
        res = self.memory.recall(query, group=group, as_of=as_of, known_at=known_at, k=k)
        return [f"{f.fact.subject} | {f.fact.predicate} | {f.fact.object} | {f.fact.statement}" for f in res.facts]
