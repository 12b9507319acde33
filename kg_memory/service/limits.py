"""A token bucket per key: ``rate`` requests a second on average, bursts of ``burst``."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable


class TokenBuckets:
    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic):
        self.rate, self.burst, self.clock = rate, burst, clock
        self._state: dict[str, tuple[float, float]] = {}  # key id -> (tokens, at)
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """0 when the request may go ahead (a token is spent), else the seconds until one is free."""
        now = self.clock()
        with self._lock:
            tokens, at = self._state.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - at) * self.rate)
            if tokens >= 1.0:
                self._state[key] = (tokens - 1.0, now)
                return 0.0
            self._state[key] = (tokens, now)
            return (1.0 - tokens) / self.rate


def retry_after(seconds: float) -> str:
    """The Retry-After header: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))
