"""`kgmem bench serve`: `kgmem serve http` under load on loopback, timed as a client sees it.

It starts the server as a subprocess on a fresh store (SQLite by default, or a Neo4j URL),
makes one key per group, and runs ``clients`` threads for ``seconds``. Each request picks a
random group and is a recall (60%), an add that waits for extraction (20%) or one that does
not (20%). Every turn of a group carries that group's marker word, so a recall that shows
another group's turn or fact is counted as a cross-group read. Reported: throughput, p50 /
p95 / p99 per route, 5xx and 429 answers, cross-group reads, and the server's RSS.

Timed tests are not part of the test suite; this is where speed is measured."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .scale import percentiles

MIX = (("recall", 0.6), ("add_wait", 0.2), ("add_no_wait", 0.2))  # an agent recalls before each answer
NAMES = ["Ana", "Bruno", "Chen", "Dara", "Eli", "Femi", "Gus", "Hana", "Ivo", "Jun"]
PLACES = ["Lisbon", "Porto", "Oslo", "Quito", "Lagos", "Hanoi", "Perth", "Cusco", "Tunis", "Riga"]


def _marker(i: int) -> str:
    return f"zq{i:03d}marker"


def _turn(rng: random.Random, gi: int) -> str:
    return (f"Note {_marker(gi)}: {rng.choice(NAMES)} moved to {rng.choice(PLACES)} and works at "
            f"{rng.choice(['Acme', 'Globex', 'Initech', 'Umbrella'])}.")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


class _Run:
    def __init__(self, base: str, tokens: dict[str, str], groups: list[str]):
        self.base, self.tokens, self.groups = base, tokens, groups
        self.samples: dict[str, list[float]] = defaultdict(list)
        self.status: dict[str, int] = defaultdict(int)
        self.cross = 0
        self.ids: dict[int, set[str]] = defaultdict(set)  # episode ids each group's adds answered with
        self.errors: list[str] = []
        self.lock = threading.Lock()

    def client(self, seed: int, until: float) -> None:
        import httpx

        rng = random.Random(seed)
        with httpx.Client(base_url=self.base, timeout=60) as http:
            while time.monotonic() < until:
                gi = rng.randrange(len(self.groups))
                op = rng.choices([m for m, _ in MIX], [w for _, w in MIX])[0]
                self.one(http, rng, gi, op)

    def one(self, http: Any, rng: random.Random, gi: int, op: str) -> None:
        group = self.groups[gi]
        headers = {"Authorization": f"Bearer {self.tokens[group]}"}
        t0 = time.perf_counter()
        if op == "recall":
            r = http.get(f"/v1/groups/{group}/recall", params={"q": f"Where did {rng.choice(NAMES)} move?", "k": 5},
                         headers=headers)
        else:
            r = http.post(f"/v1/groups/{group}/episodes", params={"wait": str(op == "add_wait").lower()},
                          json={"content": _turn(rng, gi)}, headers=headers)
        seconds = time.perf_counter() - t0
        crossed = self.crossed(r.json(), gi) if op == "recall" and r.status_code == 200 else 0
        added = r.json().get("episode_ids", []) if op != "recall" and r.status_code < 300 else []
        with self.lock:
            self.ids[gi].update(added)
            self.samples[op].append(seconds)
            self.status[str(r.status_code)] += 1
            self.cross += crossed
            if r.status_code >= 500 and len(self.errors) < 5:
                self.errors.append(r.text[:300])

    def crossed(self, body: dict[str, Any], gi: int) -> int:
        """Turns and facts in a recall of group ``gi`` that came from another group: a turn with another
        group's marker, or a fact or turn whose episode id another group's add answered with."""
        mine = _marker(gi)
        with self.lock:
            others = {e for gj, ids in self.ids.items() if gj != gi for e in ids}
        bad = sum(1 for e in body.get("episodes", []) if mine not in e["content"] or e["id"] in others)
        return bad + sum(1 for f in body.get("facts", []) if others.intersection(f["episode_ids"]))


def _start(url: str, home: Path, port: int) -> subprocess.Popen[str]:
    """The server, its log (one access line per request) to a file: a pipe nobody reads would fill and block it."""
    env = {**os.environ, "KGMEM_HOME": str(home)}
    with open(home / "server.log", "w") as log:
        return subprocess.Popen([sys.executable, "-m", "kg_memory", "serve", "http", "--port", str(port),
                                 "--store", url], env=env, stdout=subprocess.DEVNULL, stderr=log, text=True)


def _wait_ready(base: str, proc: subprocess.Popen[str]) -> float:
    import httpx

    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 180:
        if proc.poll() is not None:
            raise RuntimeError("the server exited before it was ready")
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return time.perf_counter() - t0
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError("the server did not start in 180 s")


def run_serve(store: str | None, clients: int = 20, seconds: float = 60.0, groups: int = 50, seed: int = 7,
              log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    from ..service.keys import KeyRing
    from ..store.url import open_store

    with tempfile.TemporaryDirectory(prefix="kgmem-bench-serve-") as tmp:
        home = Path(tmp)
        url = store or f"sqlite:///{home / 'serve.db'}"
        names = [f"bench-serve-{seed}-{i:03d}" for i in range(groups)]
        st = open_store(url)
        try:
            ring = KeyRing(st)
            tokens = {g: ring.create(g, name="bench serve")[1] for g in names}
        finally:
            st.close()
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        proc = _start(url, home, port)
        try:
            start_s = _wait_ready(base, proc)
            log(f"server ready in {start_s:.1f} s; {groups} groups get 3 turns each")
            run = _Run(base, tokens, names)
            _seed_groups(run, seed)
            rss_before = _rss_mb(proc.pid)
            log(f"{clients} clients for {seconds:.0f} s")
            until = time.monotonic() + seconds
            threads = [threading.Thread(target=run.client, args=(seed * 1000 + i, until)) for i in range(clients)]
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - t0
            rss_after = _rss_mb(proc.pid)
        finally:
            t_stop = time.perf_counter()
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(300)
            except subprocess.TimeoutExpired:
                proc.kill()
            drain_s = time.perf_counter() - t_stop
    total = sum(len(v) for v in run.samples.values())
    return {"store": "sqlite" if store is None else "neo4j", "clients": clients, "seconds": round(wall, 1),
            "groups": groups, "requests": total, "requests_per_s": round(total / wall, 1),
            "routes": {op: percentiles(v) for op, v in sorted(run.samples.items())},
            "status": dict(sorted(run.status.items())),
            "server_errors_5xx": sum(n for s, n in run.status.items() if s.startswith("5")),
            "cross_group_reads": run.cross, "first_errors": run.errors, "server_start_s": round(start_s, 1),
            "server_rss_mb": {"after_seeding": rss_before, "after_load": rss_after},
            "shutdown_drain_s": round(drain_s, 1)}


def _seed_groups(run: _Run, seed: int) -> None:
    import httpx

    rng = random.Random(seed)
    with httpx.Client(base_url=run.base, timeout=60) as http:
        for gi, group in enumerate(run.groups):
            turns = [{"content": _turn(rng, gi)} for _ in range(3)]
            r = http.post(f"/v1/groups/{group}/episodes", json=turns,
                          headers={"Authorization": f"Bearer {run.tokens[group]}"})
            r.raise_for_status()
            run.ids[gi].update(r.json()["episode_ids"])
