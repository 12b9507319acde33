"""The server's metrics in the Prometheus text format (names start ``kgmem_``), kept in process:
requests by route, method and status; request latency as a histogram by route; episodes taken in."""

from __future__ import annotations

import threading
from collections import defaultdict

# latency bucket bounds, in seconds: a recall is tens of ms, an add that waits for extraction hundreds
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def _labels(**kv: str) -> str:
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in kv.items()) + "}"


def _escape(v: str) -> str:
    return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, str, str], int] = defaultdict(int)
        self.latency: dict[str, list[int]] = {}
        self.latency_sum: dict[str, float] = defaultdict(float)
        self.latency_count: dict[str, int] = defaultdict(int)
        self.episodes = 0
        self.rate_limited = 0

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        with self._lock:
            self.requests[(route, method, str(status))] += 1
            counts = self.latency.setdefault(route, [0] * len(BUCKETS))
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    counts[i] += 1
            self.latency_sum[route] += seconds
            self.latency_count[route] += 1
            if status == 429:
                self.rate_limited += 1

    def added(self, n: int) -> None:
        with self._lock:
            self.episodes += n

    def text(self, pending: int | None = None) -> str:
        with self._lock:
            lines = ["# HELP kgmem_http_requests_total HTTP requests answered, by route template, method and status.",
                     "# TYPE kgmem_http_requests_total counter"]
            for (route, method, status), n in sorted(self.requests.items()):
                lines.append(f"kgmem_http_requests_total{_labels(route=route, method=method, status=status)} {n}")
            lines += ["# HELP kgmem_http_request_duration_seconds Time to answer a request, by route template.",
                      "# TYPE kgmem_http_request_duration_seconds histogram"]
            for route, counts in sorted(self.latency.items()):
                for bound, n in zip(BUCKETS, counts, strict=True):
                    lines.append(f"kgmem_http_request_duration_seconds_bucket{_labels(route=route, le=str(bound))} {n}")
                total = self.latency_count[route]
                lines.append(f"kgmem_http_request_duration_seconds_bucket{_labels(route=route, le='+Inf')} {total}")
                lines.append(f"kgmem_http_request_duration_seconds_sum{_labels(route=route)} "
                             f"{self.latency_sum[route]:.6f}")
                lines.append(f"kgmem_http_request_duration_seconds_count{_labels(route=route)} {total}")
            lines += ["# HELP kgmem_episodes_added_total Episodes stored through the API.",
                      "# TYPE kgmem_episodes_added_total counter", f"kgmem_episodes_added_total {self.episodes}",
                      "# HELP kgmem_rate_limited_total Requests refused with 429.",
                      "# TYPE kgmem_rate_limited_total counter", f"kgmem_rate_limited_total {self.rate_limited}"]
        if pending is not None:
            lines += ["# HELP kgmem_extraction_waiting Episodes accepted (202) and not yet extracted by this process.",
                      "# TYPE kgmem_extraction_waiting gauge", f"kgmem_extraction_waiting {pending}"]
        return "\n".join(lines) + "\n"
