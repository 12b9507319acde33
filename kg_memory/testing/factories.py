"""Adapter factories for kgmem's own stores, for ``--kgmem-adapter``:

    pytest --kgmem-adapter kg_memory.testing.factories:sqlite
    pytest --kgmem-adapter kg_memory.testing.factories:neo4j   # uses $KGMEM_STORE (a neo4j:// URL)
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..core.timeutil import FixedClock, utcnow
from ..errors import ConfigError
from ..memory import Memory
from .adapter import KgMemAdapter


def sqlite() -> KgMemAdapter:
    path = Path(tempfile.mkdtemp(prefix="kgmem-check-")) / "memory.db"
    return KgMemAdapter(Memory.open(f"sqlite:///{path}", clock=FixedClock(utcnow())))


def neo4j() -> KgMemAdapter:
    url = os.environ.get("KGMEM_STORE", "")
    if not url.startswith(("neo4j", "bolt")):
        raise ConfigError("the neo4j adapter needs KGMEM_STORE=neo4j://user:pass@host:7687")
    return KgMemAdapter(Memory.open(url, clock=FixedClock(utcnow())))
