"""Query planning for index searches that filter after the index (Neo4j's vector
and full-text indexes): how many hits to ask for, how to widen, and what to
remember between questions. Pure logic, outside the store class, tested on its
own (tests/unit/test_neo4j_fetch.py)."""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

MAX_FETCH = 100_000  # the most hits one index query asks for
# The least first request of a vector-index query, in multiples of k. Asking for 4k hits cost 6 ms more
# than 1.5k on a 120k-episode index (21.6 against 15.6 ms), while a second, wider query cost a whole one
# (27 ms): the share that survives the group filter differs by question (0 of the 150 nearest to 75%), so
# the remembered share was often wrong (docs/benchmarks.md, #11, round eight).
VECTOR_FETCH_FLOOR = 4
# How many questions the floor stays on after a first request fell short. A group whose shares are steady
# (the bench's random vectors: 0.83 each time) never falls short and asks for ~1.5k: 15 ms alone on the
# 120k index against 21 ms at 4k; one whose nearest hits are often another tenant's falls short every few
# questions and keeps the floor (docs/benchmarks.md, #11, round nine).
FLOOR_MEMORY = 256
T = TypeVar("T")
R = TypeVar("R")


def first_fetch(k: int, share: float | None, floor: int = 0) -> int:
    """How many index hits to ask for first: what the remembered share of hits
    that survive the filter says k needs (2k, at least 40, when nothing is known),
    and at least ``floor``."""
    guess = min(MAX_FETCH, max(40, int(k / share * 1.2) + 8)) if share else max(2 * k, 40)
    return min(MAX_FETCH, max(guess, floor))


def widen(run: Callable[[int], tuple[list[R], int, int]], k: int, memory: SurvivalMemory, day: float,
          floor: int = 0) -> list[R]:
    """Run an index query whose filter applies to its ``fetch`` best hits (``run``
    returns the rows kept, the raw hit count and the kept count), widening until k
    rows survive or the index has no more hits. The first request comes from the
    share that survived for the group at the nearest as-of day seen before, so a
    group that owns most of the index is not over-fetched, one that owns little
    does not widen step by step, and a question about an early date does not make
    the next question about now fetch thousands of hits. The first request is at
    least ``floor`` hits (``VECTOR_FETCH_FLOOR``) while the memory knows no share
    yet or a first request fell short within the last ``FLOOR_MEMORY`` questions."""
    share = memory.guess(day)
    fetch = first_fetch(k, share, floor if share is None or memory.fell_short_lately() else 0)
    requests = 0
    while True:
        rows, raw, kept = run(fetch)
        requests += 1
        if raw:
            memory.note(day, kept / raw)
        if len(rows) >= k or raw < fetch or fetch >= MAX_FETCH:
            memory.note_question(fell_short=requests > 1)
            return rows
        fetch = next_fetch(fetch, k, kept, raw)


def next_fetch(fetch: int, k: int, kept: int, raw: int) -> int:
    """The next, wider request after ``kept`` of ``raw`` hits survived the filter
    and k were wanted: what that share says k needs, at least twice and at most
    eight times as many as before (a share seen in a few hits is a rough guess)."""
    want = int(k / (kept / raw) * 1.2) + 8 if kept and raw else 8 * fetch
    return min(MAX_FETCH, max(2 * fetch, min(8 * fetch, want)))


class SurvivalMemory:
    """The share of an index's hits that passed the group and time filter,
    remembered by the as-of day it was seen at. The share at the nearest day
    seen at or before is the guess for a new question: it grows with the as-of
    date for episodes (more of the group is visible), and changes slowly for facts."""

    LIMIT = 4096

    def __init__(self) -> None:
        self.days: list[float] = []
        self.shares: dict[float, float] = {}
        self.questions = 0  # questions answered through this memory
        self.last_short: int | None = None  # the question whose first request last fell short
        self._lock = threading.Lock()  # concurrent recalls share the store

    def note_question(self, fell_short: bool) -> None:
        with self._lock:
            self.questions += 1
            if fell_short:
                self.last_short = self.questions

    def fell_short_lately(self) -> bool:
        """Whether a first request fell short within the last ``FLOOR_MEMORY`` questions."""
        with self._lock:
            return self.last_short is not None and self.questions - self.last_short < FLOOR_MEMORY

    def note(self, day: float, share: float) -> None:
        key = float(int(day))
        with self._lock:
            if key not in self.shares:
                if len(self.days) >= self.LIMIT:
                    self.days = []
                    self.shares = {}
                bisect.insort(self.days, key)
            self.shares[key] = max(share, 1e-4)

    def guess(self, day: float) -> float | None:
        with self._lock:
            if not self.days:
                return None
            # The nearest day at or before: for episodes its share is the lower one, so
            # the request is wide enough the first time.
            i = bisect.bisect_right(self.days, float(int(day)))
            return self.shares[self.days[i - 1] if i else self.days[0]]


class LargeFrontier:
    """Points (as_of, known_at) at which a group had more episodes visible than
    the exact scan takes. What an episode search can see only grows with both
    times (episodes are never edited or deleted, and gain embeddings only), so any
    question at or after such a point in both times needs the index, and the
    counting query can be skipped."""

    LIMIT = 64

    def __init__(self) -> None:
        self.points: list[tuple[datetime, datetime]] = []

    def covers(self, as_of: datetime, known_at: datetime) -> bool:
        return any(a <= as_of and kn <= known_at for a, kn in self.points)

    def add(self, as_of: datetime, known_at: datetime) -> None:
        points = self.points  # replaced whole, never changed in place: safe to read meanwhile
        keep = [(a, kn) for a, kn in points if not (a >= as_of and kn >= known_at)]
        self.points = [*keep[-(self.LIMIT - 1):], (as_of, known_at)]


def bounded(table: dict[Any, T], key: Any, make: Callable[[], T]) -> T:
    """``table[key]``, made on first use; a table of more than 10,000 groups starts over."""
    found = table.get(key)
    if found is None:
        if len(table) >= 10_000:
            table.clear()
        found = table.setdefault(key, make())
    return found


