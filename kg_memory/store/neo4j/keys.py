"""Neo4j's encodings: the indexed copies of interval ends, the per-group Lucene token and time
keys, and the conversions between the driver's values and kgmem's."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import numpy as np
from neo4j.time import DateTime as Neo4jDateTime

from ...core.models import Episode, FactVersion
from ...core.text import query_terms
from ...core.timeutil import ensure_utc
from ..base import SearchHits, TimeFilter
from .queries import query

# Stand-ins for open ends in the indexed copies of a version's interval ends (migrations 0005
# and 0009): OPEN_END is the last nanosecond of year 9999, after every instant a Python datetime
# can name, so no as-of sees an open fact as ended; fact_vector_exact and facts_for_entities
# spell it as a literal. OPEN_START is the first instant, which a start at or before any as-of
# equals in effect.
OPEN_END = Neo4jDateTime(9999, 12, 31, 23, 59, 59, 999_999_999, tzinfo=UTC)
OPEN_START = datetime(1, 1, 1, tzinfo=UTC)


def interval_keys(f: FactVersion) -> dict[str, Any]:
    """The indexed copies of a version's interval ends (migration 0005)."""
    return {"tx_end": f.expired_at or OPEN_END, "valid_end": f.valid_to or OPEN_END,
            "valid_start": f.valid_from or OPEN_START}

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)  # a placeholder point when a query reads every version
LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')


def to_dt(v: Any) -> datetime | None:
    """Times come back as ISO text (toString in the projections): hydrating native
    DateTime values costs the Python driver far more than parsing the text."""
    if v is None:
        return None
    if isinstance(v, str):
        return ensure_utc(datetime.fromisoformat(v.split("[", 1)[0]))
    if hasattr(v, "to_native"):
        v = v.to_native()
    return ensure_utc(v)


def group_key(group_id: str) -> str:
    """One Lucene token per group, so full-text search filters by tenant inside the index."""
    return "g" + hashlib.sha256(group_id.encode("utf-8")).hexdigest()[:24]


def to_dt_required(v: Any) -> datetime:
    dt = to_dt(v)
    assert dt is not None
    return dt


TIME_KEY_MAX = "9" * 20  # the key of an open end


def time_key(dt: datetime | None, open_value: str) -> str:
    """Fixed-width digits (YYYYMMDDhhmmssffffff, UTC) that sort like the time,
    for Lucene ranges; ``open_value`` for an open end (see migration 0007)."""
    return open_value if dt is None else ensure_utc(dt).strftime("%Y%m%d%H%M%S%f").zfill(20)


def lucene_query(group_id: str, field: str, text: str, tf: TimeFilter | None = None) -> str | None:
    """Terms OR-ed in ``field``, restricted to the group inside the index. With
    ``tf`` (fact versions), also to versions that had not ended, in either time,
    before (as_of, known_at); the exact filter runs on what comes back."""
    terms = query_terms(text)
    if not terms:
        return None
    body = " OR ".join(LUCENE_SPECIAL.sub(r"\\\1", t) for t in terms)
    when = ""
    if tf is not None:
        a, k = time_key(tf.as_of, ""), time_key(tf.known_at, "")
        when = f" AND vend:[{a} TO {TIME_KEY_MAX}] AND tend:[{k} TO {TIME_KEY_MAX}]"
    return f"group_key:{group_key(group_id)}{when} AND {field}:({body})"


def cosine(neo4j_score: float) -> float:
    """Neo4j reports cosine similarity as (1 + cos) / 2; back to the plain cosine, as SQLite gives."""
    return 2.0 * float(neo4j_score) - 1.0


def row_cosine(row: Any) -> float | None:
    """A full-text hit's cosine with the query vector (None without one)."""
    return None if row["sim"] is None else cosine(row["sim"])


def to_list(v: np.ndarray | None) -> list[float] | None:
    return None if v is None else [float(x) for x in np.asarray(v, dtype=np.float32)]


def f32_bytes(v: np.ndarray) -> bytes:
    """A vector as the held vectors read it (float32 bytes), beside the list of numbers the
    server's vector index reads."""
    return np.ascontiguousarray(v, dtype=np.float32).tobytes()


def bump_logs(tx: Any, groups: list[str], reset: bool, episodes: Iterable[str] = (),
               facts: Iterable[str] = ()) -> dict[str, int]:
    """Advance the vector logs of ``groups`` in the writing transaction, noting which of them
    had episode vectors and which fact versions changed: the new seq of each."""
    eps, fs = set(episodes), set(facts)
    rows = [{"group_id": g, "episodes": g in eps, "facts": g in fs} for g in sorted(set(groups))]
    return {r["group_id"]: int(r["seq"]) for r in tx.run(query("vector_log_bump"), {"rows": rows, "reset": reset})}


def hits_of(vec_rows: list[tuple[Episode, float]], text_rows: list[tuple[Episode, float, float | None]],
          fact_rows: list[tuple[FactVersion, float, float | None]],
          fact_vector: list[tuple[FactVersion, float]]) -> SearchHits:
    """A search's hits, but for the cosines of the text hits (which the caller knows how to get)."""
    return SearchHits(episode_vector=[(e.id, s) for e, s in vec_rows],
                      episode_text=[(e.id, s) for e, s, _ in text_rows],
                      fact_text=[(f, s) for f, s, _ in fact_rows], fact_vector=fact_vector,
                      episodes={e.id: e for e, _ in vec_rows} | {e.id: e for e, _, _ in text_rows})


def transient(exc: BaseException) -> bool:
    """A fault worth trying again. ``IncompleteCommit`` is a ``ServiceUnavailable`` whose commit may
    have landed: it is never transient (faults.READS keeps writes from retries; this keeps a read
    scope's commit from one)."""
    import neo4j

    if isinstance(exc, neo4j.exceptions.IncompleteCommit):
        return False
    return isinstance(exc, (neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.SessionExpired,
                            neo4j.exceptions.TransientError, ConnectionError, TimeoutError))


def describe(exc: BaseException) -> str:
    code = getattr(exc, "code", None)
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return f"{code}: {message}" if code else f"{type(exc).__name__}: {message}"
