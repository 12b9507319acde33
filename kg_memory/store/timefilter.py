"""The temporal core's time rules (``temporal.FACT_VISIBLE`` and friends),
compiled for each backend. Stores never write a time filter by hand: SQLite
builds its numpy masks and SQL here, and the Cypher registry fills the
``{{rule:var}}`` placeholders of ``cypher/*.cypher`` from here.

Open ends have one meaning (``None`` in the model: open). Each backend encodes
it once, below: SQLite's in-memory columns hold the smallest and largest int64,
its SQL tests ``IS NULL``, and Neo4j keeps indexed copies of the ends with the
first instant and the last nanosecond of year 9999 (migrations 0005 and 0009)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from ..core.temporal import EPISODE_VISIBLE, FACT_ENDED, FACT_VISIBLE, Bound
from ..core.timeutil import micros

RULES: dict[str, tuple[Bound, ...]] = {"visible_fact": FACT_VISIBLE, "ended_fact": FACT_ENDED,
                                       "visible_episode": EPISODE_VISIBLE}

# -- numpy (the SQLite store's in-memory columns) -----------------------------------------------
NEG_INF_TIME = int(np.iinfo(np.int64).min)
POS_INF_TIME = int(np.iinfo(np.int64).max)
NUMPY_COLUMNS = {"created_at": "created", "expired_at": "expired", "valid_from": "vf", "valid_to": "vt",
                 "occurred_at": "occurred"}
_NP = {"<=": np.less_equal, "<": np.less, ">": np.greater}


def numpy_mask(rule: tuple[Bound, ...], as_of: object, known_at: object
               ) -> Callable[[Mapping[str, np.ndarray]], np.ndarray]:
    """A mask over columns in which open ends are stored as the int64 extremes."""
    at = {"as_of": micros(as_of), "known_at": micros(known_at)}  # type: ignore[arg-type]

    def mask(cols: Mapping[str, np.ndarray]) -> np.ndarray:
        out: np.ndarray | None = None
        for b in rule:
            col = cols[NUMPY_COLUMNS[b.field]]
            m = _NP[b.op](col, at[b.point])
            if b.open_as == "fails":
                m &= (col != POS_INF_TIME) & (col != NEG_INF_TIME)
            out = m if out is None else out & m
        assert out is not None
        return out

    return mask


# -- SQL (SQLite rows: ISO text that sorts as time, NULL for open) ------------------------------
def sql_filter(rule: tuple[Bound, ...], alias: str = "") -> tuple[str, list[str]]:
    """``(where, points)``: the condition with ``?`` placeholders, and which point
    (``as_of``/``known_at``) each placeholder takes, in order."""
    prefix = f"{alias}." if alias else ""
    parts, points = [], []
    for b in rule:
        col = f"{prefix}{b.field}"
        cmp = f"{col} {b.op} ?"
        if b.open_as in (None, "fails"):
            parts.append(cmp if b.open_as is None else f"({col} IS NOT NULL AND {cmp})")
        elif (b.open_as == "-inf") == (b.op in ("<=", "<")):
            parts.append(f"({col} IS NULL OR {cmp})")  # the open end satisfies the bound
        else:
            parts.append(f"({col} IS NOT NULL AND {cmp})")
        points.append(b.point)
    return " AND ".join(parts), points


# -- Cypher (Neo4j: indexed copies of the ends, open ends as far-off instants) ------------------
NEO4J_OPEN_END = "datetime('9999-12-31T23:59:59.999999999Z')"
NEO4J_OPEN_START = "datetime('0001-01-01T00:00:00Z')"
CYPHER_COLUMNS = {"expired_at": "tx_end", "valid_to": "valid_end", "valid_from": "valid_start"}


def cypher_filter(rule: tuple[Bound, ...], var: str) -> str:
    """The rule over ``var``'s properties, with ``$as_of`` and ``$known_at``."""
    parts = []
    for b in rule:
        if b.open_as == "fails":  # the raw property: an open end is null and fails
            parts.append(f"{var}.{b.field} IS NOT NULL AND {var}.{b.field} {b.op} ${b.point}")
        else:
            parts.append(f"{var}.{CYPHER_COLUMNS.get(b.field, b.field)} {b.op} ${b.point}")
    return "(" + " AND ".join(parts) + ")"


def expand_cypher(text: str) -> str:
    """Fill ``{{rule:var}}`` placeholders (``{{visible_fact:f}}``) and ``{{open_end}}``."""
    import re

    def fill(m: re.Match[str]) -> str:
        name, var = m.group(1), m.group(2)
        if name == "open_end":
            return NEO4J_OPEN_END
        if name not in RULES or not var:
            raise KeyError(f"unknown time rule placeholder {m.group(0)!r}")
        return cypher_filter(RULES[name], var)

    return re.sub(r"\{\{(\w+)(?::([\w.]+))?\}\}", fill, text)
