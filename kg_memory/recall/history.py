"""Reading a fact's history: versions in valid-time order, and why each version's
belief closed. Pure functions over what ``Store.history`` returns; the CLI's
``history`` and ``timeline`` both present these."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..core.models import FactVersion

_MIN = datetime.min.replace(tzinfo=None)
_MAX = datetime.max.replace(tzinfo=None)


def day(t: datetime | None, open_as: str = "open") -> str:
    """A valid-time end as people read it: the day, or ``open_as`` for an open end."""
    return f"{t:%Y-%m-%d}" if t else open_as


def instant(t: datetime) -> str:
    """A belief-time instant: to the second, since one ingest spans seconds."""
    return f"{t:%Y-%m-%d %H:%M:%S}"


def short_id(vid: str | None) -> str:
    """``fv_24ad76f939994dd5…`` -> ``fv_24ad76f9`` (``--json`` keeps full ids)."""
    if not vid:
        return "-"
    prefix, _, rest = vid.partition("_")
    return f"{prefix}_{rest[:8]}" if rest else vid[:11]


def version_order(v: FactVersion) -> tuple[datetime, datetime, datetime, str]:
    """Valid time first (open start first), then when we came to believe it, then
    when we stopped (a closed belief before the one that replaced it)."""
    start = v.valid_from.replace(tzinfo=None) if v.valid_from else _MIN
    stop = v.expired_at.replace(tzinfo=None) if v.expired_at else _MAX
    return (start, v.created_at.replace(tzinfo=None), stop, v.id)


@dataclass(frozen=True)
class Closing:
    kind: str  # current | restated | ended | corrected | superseded | retired
    text: str
    by: str | None = None


def closing(v: FactVersion, versions: dict[str, FactVersion]) -> Closing:
    """Why the belief in ``v`` closed, from the version (or episode) that closed it."""
    if v.expired_at is None:
        return Closing("current", "current")
    by = versions.get(v.expired_by or "")
    if by is None:
        if (v.expired_by or "").startswith("ep_"):
            return Closing("ended", f"ended by episode {short_id(v.expired_by)}", v.expired_by)
        return Closing("retired", f"retired by {short_id(v.expired_by)}", v.expired_by)
    if by.fact_id == v.fact_id:
        if by.valid_to is not None and (v.valid_to is None or by.valid_to < v.valid_to):
            return Closing("ended", f"ended {by.valid_to:%Y-%m-%d}", by.id)
        more = by.reinforcement_count - v.reinforcement_count
        return Closing("restated", f"restated (evidence +{more})" if more > 0 else "restated", by.id)
    starts_no_later = by.valid_from is None or (v.valid_from is not None and by.valid_from <= v.valid_from)
    if starts_no_later:
        return Closing("corrected", f"corrected: {by.object} instead", by.id)
    return Closing("superseded", f"superseded: {by.object} from {by.valid_from:%Y-%m-%d}", by.id)


def by_fact(versions: list[FactVersion]) -> list[tuple[str, list[FactVersion]]]:
    """Versions grouped by fact identity, each group and the groups in valid-time order."""
    groups: dict[str, list[FactVersion]] = {}
    for v in versions:
        groups.setdefault(v.fact_id, []).append(v)
    ordered = [(fid, sorted(vs, key=version_order)) for fid, vs in groups.items()]
    return sorted(ordered, key=lambda item: (item[1][0].subject, item[1][0].predicate, version_order(item[1][0])))


def version_json(v: FactVersion, why: Closing) -> dict[str, object]:
    """A version as JSON with why its belief closed (``kgmem history --json`` and the HTTP history route)."""
    d = v.model_dump(mode="json")
    d["closing"] = {"kind": why.kind, "text": why.text, "by": why.by}
    return d
