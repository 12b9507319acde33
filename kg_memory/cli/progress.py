"""Progress on stderr, one bar per phase (parse, store, embed, extract).

On a terminal the bars are drawn live with rich; otherwise (a pipe, a log file,
CI) each phase prints one line when it ends. ``--json`` output on stdout stays clean."""

from __future__ import annotations

import sys
import time
from typing import Any

import typer


class CliProgress:
    def __init__(self, enabled: bool = True, unit: str = "episodes"):
        self.enabled = enabled
        self.unit = unit
        self.live = enabled and sys.stderr.isatty()
        self._rich: Any = None
        self._task: Any = None
        self._name: str | None = None
        self._done = 0
        self._total: int | None = None
        self._started = 0.0
        self._tasks: dict[str, Any] = {}  # a phase met again (the next batch) extends its bar

    def __enter__(self) -> CliProgress:
        if self.live:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._rich = Progress(TextColumn("{task.description:<15}"), BarColumn(), MofNCompleteColumn(),
                                  TextColumn(self.unit), TimeElapsedColumn(), console=Console(stderr=True),
                                  transient=False)
            self._rich.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._end_phase()
        if self._rich is not None:
            self._rich.stop()

    def phase(self, name: str, total: int | None = None) -> None:
        if not self.enabled:
            return
        self._end_phase()
        self._name, self._done, self._total, self._started = name, 0, total, time.monotonic()
        if self._rich is not None:
            task = self._tasks.get(name)
            if task is None:
                task = self._tasks[name] = self._rich.add_task(name, total=total)
            elif total is not None:
                self._rich.update(task, total=(self._rich.tasks[task].total or 0) + total)
            self._task = task

    def advance(self, n: int = 1) -> None:
        if not self.enabled or self._name is None:
            return
        self._done += n
        if self._rich is not None and self._task is not None:
            self._rich.update(self._task, advance=n)

    def _end_phase(self) -> None:
        if self._name is None:
            return
        if self._rich is None:
            took = time.monotonic() - self._started
            unit = "files" if self._name in ("check", "parse and store") else self.unit
            typer.echo(f"{self._name}: {self._done} {unit} in {took:.1f} s", err=True)
        self._name = None
