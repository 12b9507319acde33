"""The background extraction worker behind ``Memory.add(..., wait=False)``.

Nothing lives only in memory: an episode is committed to the store (status
``pending``) before ``add`` returns, and the worker only tells the pipeline which
groups to drain. If the process dies, the episodes are still pending in the
store, and the next run (a worker, ``kgmem ingest``, or ``process_pending``)
extracts them. The worker is one thread; ``max_waiting`` bounds how many
episodes may wait for it before ``add`` blocks (back-pressure, not drops).
Errors (failed episodes, a store fault) are kept and raised by ``flush``."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import ExtractionError, FlushTimeout, KgMemError, StoreError
from .pipeline import IngestStats

log = logging.getLogger(__name__)


@dataclass
class WorkerState:
    waiting: int = 0  # episodes submitted and not yet drained
    drained: int = 0
    runs: int = 0
    errors: list[str] = field(default_factory=list)
    stats: IngestStats = field(default_factory=IngestStats)


class ExtractionWorker:
    def __init__(self, drain: Callable[[str], IngestStats], max_waiting: int = 1000):
        self._drain = drain  # extracts every pending episode of one group
        self.max_waiting = max(1, max_waiting)
        self.state = WorkerState()
        self._cond = threading.Condition()
        self._groups: dict[str, int] = {}  # group -> episodes submitted since its last drain
        self._busy = False
        self._stop = False
        self._thread: threading.Thread | None = None

    # -- producer side -----------------------------------------------------------
    def submit(self, group: str, n: int = 1) -> None:
        """Tell the worker that ``n`` committed episodes of ``group`` wait for extraction.
        Blocks while more than ``max_waiting`` episodes wait (back-pressure)."""
        with self._cond:
            if self._stop:
                raise KgMemError("the memory is closed; open it again to add episodes")
            while self.state.waiting >= self.max_waiting and not self._stop:
                self._cond.wait(0.5)
            self._groups[group] = self._groups.get(group, 0) + n
            self.state.waiting += n
            self._ensure_thread()
            self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> IngestStats:
        """Wait until every episode submitted before this call is extracted. Raises
        the errors seen since the last flush (and clears them), or ``FlushTimeout``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._groups or self._busy:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise FlushTimeout(f"flush timed out after {timeout} s with {self.state.waiting} episodes "
                                       "still waiting for extraction (they are stored and stay pending)")
                self._cond.wait(left if left is not None else 1.0)
            errors, self.state.errors = self.state.errors, []
            stats, self.state.stats = self.state.stats, IngestStats()
        if errors:
            raise ExtractionError(f"{len(errors)} extraction errors since the last flush; first: {errors[0]} "
                                  "(failed episodes stay stored; `kgmem doctor` lists them, "
                                  "`kgmem ingest --retry-failed` retries them)")
        return stats

    def close(self, timeout: float | None = None) -> None:
        """Drain what was submitted, then stop the thread."""
        try:
            self.flush(timeout)
        except KgMemError as exc:
            log.warning("closing the extraction worker: %s", exc)
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    # -- the thread ---------------------------------------------------------------
    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._loop, name="kgmem-extract", daemon=True)
            self._thread.start()

    def _next(self) -> tuple[str, int] | None:
        with self._cond:
            while not self._groups and not self._stop:
                self._cond.wait()
            if not self._groups:
                return None
            group = next(iter(self._groups))
            n = self._groups.pop(group)
            self._busy = True
            return group, n

    def _loop(self) -> None:
        while True:
            item = self._next()
            if item is None:
                return
            group, n = item
            try:
                stats = self._drain(group)
                errors = list(stats.errors)
            except KgMemError as exc:
                stats, errors = IngestStats(), [str(exc)]
            except Exception as exc:  # a bug must not kill the worker; the episodes stay pending
                log.exception("extraction worker failed on group %s", group)
                stats, errors = IngestStats(), [str(StoreError(f"{type(exc).__name__}: {exc}"))]
            with self._cond:
                self._busy = False
                self.state.waiting = max(0, self.state.waiting - n)
                self.state.drained += n
                self.state.runs += 1
                self.state.errors.extend(errors)
                self.state.stats.merge(stats)
                self._cond.notify_all()

    def snapshot(self) -> dict[str, object]:
        with self._cond:
            return {"running": bool(self._thread and self._thread.is_alive()), "waiting": self.state.waiting,
                    "drained": self.state.drained, "runs": self.state.runs, "errors": list(self.state.errors)}
