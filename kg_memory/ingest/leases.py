"""Who is extracting what. Before extracting a batch, a writer claims its episodes in the
store with a lease (``Store.claim_pending``): two writers never extract the same episode.
A writer that crashes leaves claims behind; they end with their lease, and sooner when
the owner is a process on this machine that is gone (its claims are taken over at once,
so a re-run right after a crash resumes without waiting)."""

from __future__ import annotations

import os
import socket
import uuid


def claim_owner() -> str:
    """``host/pid/token``: unique per pipeline run, and telling which process holds a claim."""
    return f"{socket.gethostname()}/{os.getpid()}/{uuid.uuid4().hex[:12]}"


def dead_owners(owners: list[str]) -> list[str]:
    """The owners that are processes of this machine that no longer exist."""
    here = socket.gethostname()
    dead = []
    for owner in owners:
        host, _, rest = owner.partition("/")
        pid_text = rest.partition("/")[0]
        if host != here or not pid_text.isdigit() or int(pid_text) == os.getpid():
            continue
        try:
            os.kill(int(pid_text), 0)
        except ProcessLookupError:
            dead.append(owner)
        except PermissionError:
            continue  # alive, owned by another user
    return dead
