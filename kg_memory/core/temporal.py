"""Bitemporal rules as pure functions. No store, no I/O.

Every fact version has two closed-open intervals, ``None`` meaning open:

* valid time ``[valid_from, valid_to)``: when it was true in the world;
* transaction time ``[created_at, expired_at)``: when we believed it.

Stores persist what :func:`decide` returns and filter with the same predicate as
:func:`visible`; the contract suite checks that both stores agree with it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from .models import Episode, FactVersion, new_id


def starts_before_or_at(start: datetime | None, t: datetime) -> bool:
    return start is None or start <= t


def ends_after(end: datetime | None, t: datetime) -> bool:
    return end is None or end > t


def contains(start: datetime | None, end: datetime | None, t: datetime) -> bool:
    """``t`` lies in ``[start, end)``."""
    return starts_before_or_at(start, t) and ends_after(end, t)


def overlaps(
    a_start: datetime | None, a_end: datetime | None, b_start: datetime | None, b_end: datetime | None
) -> bool:
    """Closed-open intervals overlap when each starts before the other ends."""
    a_before_b_end = a_start is None or b_end is None or a_start < b_end
    b_before_a_end = b_start is None or a_end is None or b_start < a_end
    return a_before_b_end and b_before_a_end


def is_empty(start: datetime | None, end: datetime | None) -> bool:
    return start is not None and end is not None and end <= start


@dataclass(frozen=True)
class Bound:
    """One comparison of a time rule: ``field op point``. ``open_as`` says what an
    open (None) field means: ``"-inf"`` or ``"+inf"`` (it compares as the earliest
    or latest instant), ``"fails"`` (an open field never satisfies the bound), or
    None (the field is never open)."""

    field: str
    op: str  # "<=", "<" or ">"
    point: str  # "as_of" or "known_at"
    open_as: str | None = None


# The rules, stated once. ``holds`` evaluates them here; each store compiles them for its
# backend (kg_memory/store/timefilter.py): numpy masks and SQL on SQLite, Cypher on Neo4j.
FACT_VISIBLE = (Bound("created_at", "<=", "known_at"), Bound("expired_at", ">", "known_at", "+inf"),
                Bound("valid_from", "<=", "as_of", "-inf"), Bound("valid_to", ">", "as_of", "+inf"))
FACT_ENDED = (Bound("created_at", "<=", "known_at"), Bound("expired_at", ">", "known_at", "+inf"),
              Bound("valid_to", "<=", "as_of", "fails"))
EPISODE_VISIBLE = (Bound("occurred_at", "<=", "as_of"), Bound("created_at", "<=", "known_at"))

_CMP = {"<=": lambda a, b: a <= b, "<": lambda a, b: a < b, ">": lambda a, b: a > b}


def _open_result(b: Bound) -> bool:
    """Whether an open (None) field satisfies ``b``: -inf is never > a point and
    +inf is never <= one; "fails" and never-open fields fail."""
    if b.open_as == "fails" or b.open_as is None:
        return False
    return (b.open_as == "-inf") == (b.op in ("<=", "<"))


@functools.lru_cache(maxsize=256)
def rule_check(rule: tuple[Bound, ...], as_of: datetime, known_at: datetime) -> Callable[[object], bool]:
    """``rule`` at (as_of, known_at) as one predicate over rows, for judging many
    rows at the same point (a recall's candidates). The same answer as ``holds``."""
    points = {"as_of": as_of, "known_at": known_at}
    bounds = [(b.field, _CMP[b.op], points[b.point], _open_result(b)) for b in rule]

    def check(row: object) -> bool:
        for name, cmp, point, when_open in bounds:
            value = getattr(row, name)
            if not (when_open if value is None else cmp(value, point)):
                return False
        return True

    return check


def holds(rule: tuple[Bound, ...], row: object, as_of: datetime, known_at: datetime) -> bool:
    """Whether ``row`` (a version or an episode) satisfies ``rule`` at (as_of, known_at)."""
    return rule_check(rule, as_of, known_at)(row)


def visible(v: FactVersion, as_of: datetime, known_at: datetime) -> bool:
    """The as-of filter every store applies (``FACT_VISIBLE``): true at ``as_of``, believed at ``known_at``."""
    return holds(FACT_VISIBLE, v, as_of, known_at)


def episode_visible(e: Episode, as_of: datetime, known_at: datetime) -> bool:
    """An episode is visible at (as_of, known_at) once it has happened and been stored:
    ``occurred_at <= as_of`` and ``created_at <= known_at``. Episodes never close."""
    return holds(EPISODE_VISIBLE, e, as_of, known_at)


def ended(v: FactVersion, as_of: datetime, known_at: datetime) -> bool:
    """Believed at ``known_at`` to have stopped being true by ``as_of`` (a closed
    valid time that ends at or before it). What ``Store.ended_facts`` returns."""
    return holds(FACT_ENDED, v, as_of, known_at)


def superseded_evidence(occurred_at: datetime, citing: list[FactVersion], as_of: datetime,
                        known_at: datetime) -> bool:
    """An episode is superseded evidence at (as_of, known_at) when a fact it
    supports had ended by ``as_of`` after it was said (a later episode changed or
    ended it), and no fact it supports still holds. The episode that reports the
    end ("I quit yesterday", said after the end) is not superseded."""
    return bool(superseded_episodes({"": occurred_at}, {"": citing}, as_of, known_at))


def superseded_episodes(said: dict[str, datetime], citing: dict[str, list[FactVersion]], as_of: datetime,
                        known_at: datetime) -> set[str]:
    """``superseded_evidence`` for many episodes at one point (``said``: each
    episode's ``occurred_at``; ``citing``: the versions that cite it). A version
    cited by many of them is judged once."""
    is_visible, is_ended = rule_check(FACT_VISIBLE, as_of, known_at), rule_check(FACT_ENDED, as_of, known_at)
    judged: dict[str, tuple[bool, datetime | None]] = {}

    def judge(v: FactVersion) -> tuple[bool, datetime | None]:
        """(still holds, the end it had reached by as_of or None)."""
        if v.id not in judged:
            judged[v.id] = (is_visible(v), v.valid_to if is_ended(v) else None)
        return judged[v.id]

    out: set[str] = set()
    for eid, versions in citing.items():
        verdicts = [judge(v) for v in versions]
        overtaken = any(end is not None and said[eid] < end for _, end in verdicts)
        if overtaken and not any(holds_now for holds_now, _ in verdicts):
            out.add(eid)
    return out


@dataclass(frozen=True)
class Candidate:
    """A fact the extractor proposes, with its entities already resolved to ids."""

    group_id: str
    subject_id: str
    subject: str
    predicate: str
    object_id: str
    object: str
    statement: str
    valid_from: datetime
    valid_to: datetime | None
    episode_id: str
    ending: bool = False  # "I quit my job at X": closes the value, adds nothing
    dated: bool = False  # the valid time came from the text, not from when it was said
    extractor: str = "rules"
    prompt_version: str | None = None
    confidence: float = 1.0
    any_object: bool = False  # an ending that names no value ("I quit my job")
    said: str = ""  # an ending's value as said, when it names no known value ("the Zone 2 plan")
    started_by: datetime | None = None  # a start said as a period: the latest it may have begun


@dataclass
class Expiry:
    version_id: str
    expired_at: datetime
    expired_by: str


@dataclass
class Decision:
    """What to persist: new versions, and versions whose transaction time closes."""

    kind: str  # add | supersede | reinforce | end | late | noop
    inserts: list[FactVersion] = field(default_factory=list)
    expiries: list[Expiry] = field(default_factory=list)

    @property
    def facts_added(self) -> int:
        return 1 if self.kind in ("add", "supersede", "late") else 0

    @property
    def facts_invalidated(self) -> int:
        return len(self.expiries) if self.kind in ("supersede", "end") else 0


MAX_PROVENANCE = 50  # episode ids kept per version; reinforcement_count keeps the total


def _provenance(ids: tuple[str, ...], new: str) -> tuple[str, ...]:
    """Append the new evidence, keeping the most recent MAX_PROVENANCE ids, so a
    fact restated a thousand times does not copy a thousand ids into each version."""
    merged = tuple(dict.fromkeys((*ids, new)))
    return merged[-MAX_PROVENANCE:]


_MIN_TIME = datetime.min.replace(tzinfo=UTC)
_MAX_TIME = datetime.max.replace(tzinfo=UTC)


def _canonical(v: FactVersion) -> tuple[datetime, datetime, datetime, str, str]:
    """An order for versions that is the same on every store (ids are random)."""
    return (v.valid_from or _MIN_TIME, v.valid_to or _MAX_TIME, v.created_at, v.object, v.statement)


def _successor(v: FactVersion, now: datetime, **changes: object) -> FactVersion:
    return v.replace(id=new_id("fv"), created_at=now, expired_at=None, expired_by=None, **changes)


def decide(c: Candidate, current: list[FactVersion], single_valued: bool, now: datetime) -> Decision:
    """Decide how a candidate changes the believed facts of its (subject, predicate).

    ``current`` holds the versions of that subject and predicate believed now
    (``expired_at`` is None), whatever their valid time. Nothing is edited: a
    change closes a version's transaction time and writes a successor version.
    """
    current = sorted(current, key=_canonical)  # the decision must not depend on the store's row order
    same = [v for v in current if v.object_id == c.object_id]
    if c.ending:
        if c.any_object and single_valued:
            return _decide_ending(c, current, now)
        return _decide_ending(c, same or [v for v in current if c.said and names_value(c.said, v.object)], now)

    # Restating a value we already hold for that time reinforces it.
    for v in same:
        touches = overlaps(v.valid_from, v.valid_to, c.valid_from, c.valid_to) or v.valid_to == c.valid_from
        if touches and (ends_after(v.valid_to, c.valid_from) or not c.dated):
            new_from = v.valid_from
            if c.dated and (v.valid_from is None or c.valid_from < v.valid_from):
                new_from = c.valid_from
            succ = _successor(
                v, now, valid_from=new_from,
                reinforcement_count=v.reinforcement_count + 1,
                episode_ids=_provenance(v.episode_ids, c.episode_id),
            )
            return Decision("reinforce", [succ], [Expiry(v.id, now, succ.id)])

    new = FactVersion(
        group_id=c.group_id, subject_id=c.subject_id, subject=c.subject, predicate=c.predicate,
        object_id=c.object_id, object=c.object, statement=c.statement,
        valid_from=c.valid_from, valid_to=c.valid_to, created_at=now,
        episode_ids=(c.episode_id,), extractor=c.extractor, prompt_version=c.prompt_version,
        confidence=c.confidence,
    )
    if not single_valued:
        return Decision("add", [new])

    t = _began(c, current)
    new = new.replace(valid_from=t)
    others = [v for v in current if v.object_id != c.object_id
              and not (v.valid_to is not None and v.valid_to <= t)]  # not ended before the new value starts
    # A newer value already known ends the late, older fact where it starts. Settle the
    # end first, so that every version below is cut against the same final interval.
    later = [v.valid_from for v in others if v.valid_from is not None and v.valid_from > t
             and (c.valid_to is None or v.valid_from < c.valid_to)]
    new_to = min([e for e in (c.valid_to, *later) if e is not None], default=None)
    late = bool(later)
    inserts: list[FactVersion] = []
    expiries: list[Expiry] = []
    for v in others:
        if v.valid_from is not None and v.valid_from > t:
            continue  # starts after t: it bounded the new value above
        # v holds at t: close it at t, keeping any tail after a bounded new value.
        expiries.append(Expiry(v.id, now, new.id))
        if not is_empty(v.valid_from, t):
            inserts.append(_successor(v, now, valid_to=t))
        if new_to is not None and ends_after(v.valid_to, new_to):
            inserts.append(_successor(v, now, valid_from=new_to))
    new = new.replace(valid_to=new_to)
    if is_empty(new.valid_from, new.valid_to):
        return Decision("noop")
    kind = "supersede" if expiries else ("late" if late else "add")
    return Decision(kind, [new, *inserts], expiries)


def _began(c: Candidate, current: list[FactVersion]) -> datetime:
    """When a new value began. Said as a period ("promoted this spring", "moved in March") that began before
    another value known to hold from inside it, the change came after that value: at the period's end (or
    when it was said), not at the period's start, where it would pass for an earlier value."""
    bound = c.started_by
    if bound is not None and any(v.object_id != c.object_id and v.valid_from is not None
                                 and c.valid_from < v.valid_from < bound for v in current):
        return bound
    return c.valid_from


def names_value(said: str, value: str) -> bool:
    """Does an ending said as ``said`` name ``value``? When the words of one are a run of the other's:
    "quit the Zone 2 plan" ends "Zone 2", "sold my Civic" ends "Honda Civic"."""
    a, b = re.findall(r"\w+", said.lower()), re.findall(r"\w+", value.lower())
    return bool(a and b) and (_run_in(b, a) or _run_in(a, b))


def _run_in(run: list[str], words: list[str]) -> bool:
    return any(words[i:i + len(run)] == run for i in range(len(words) - len(run) + 1))


def _decide_ending(c: Candidate, targets: list[FactVersion], now: datetime) -> Decision:
    end = c.valid_from
    inserts: list[FactVersion] = []
    expiries: list[Expiry] = []
    for v in targets:
        starts_later = v.valid_to is None and v.valid_from is not None and v.valid_from > end
        if not contains(v.valid_from, v.valid_to, end) and not starts_later:
            continue
        succ = None
        if not is_empty(v.valid_from, end):
            succ = _successor(v, now, valid_to=end, episode_ids=_provenance(v.episode_ids, c.episode_id))
            inserts.append(succ)
        expiries.append(Expiry(v.id, now, succ.id if succ else c.episode_id))
    if not expiries:
        return Decision("noop")
    return Decision("end", inserts, expiries)


def decide_correction(current: list[FactVersion], object_id: str, obj: str, statement: str, episode_id: str,
                      now: datetime, extractor: str = "api") -> Decision:
    """We were wrong about a fact: the belief in each of its current versions closes, and
    a version with the right value takes its place over the same valid time (valid time
    is untouched). The replacement is a new fact, so history reads it as a correction."""
    fact_id = new_id("fact")
    inserts: list[FactVersion] = []
    expiries: list[Expiry] = []
    for v in sorted(current, key=_canonical):
        if v.object_id == object_id:
            continue  # already says that
        succ = _successor(v, now, fact_id=fact_id, object_id=object_id, object=obj, statement=statement,
                          episode_ids=(episode_id,), reinforcement_count=1, extractor=extractor,
                          prompt_version=None, confidence=1.0)
        inserts.append(succ)
        expiries.append(Expiry(v.id, now, succ.id))
    return Decision("correct", inserts, expiries) if expiries else Decision("noop")


def lineage(start: set[str], versions: list[FactVersion]) -> list[FactVersion]:
    """The versions connected to ``start`` (version or fact ids) through a shared fact id
    or a closing (``expired_by``): a fact with its restatements, and the corrections and
    changes that replaced it and that it replaced. Returned in the given order."""
    ids = set(start)
    changed = True
    while changed:
        changed = False
        for v in versions:
            linked = v.id in ids or v.fact_id in ids or (v.expired_by in ids if v.expired_by else False)
            if not linked:
                linked = any(w.expired_by == v.id for w in versions if w.id in ids)
            if linked and not {v.id, v.fact_id} <= ids:
                ids |= {v.id, v.fact_id}
                changed = True
    return [v for v in versions if v.id in ids]


def decide_merge(moving: list[FactVersion], staying: list[FactVersion], absorbed_id: str, survivor_id: str,
                 survivor: str, single_valued: Callable[[str], bool], now: datetime, by: str) -> Decision:
    """An entity merge. Every version believed now with the absorbed entity at an end
    (``moving``) closes and a successor names the survivor instead. The versions of a
    subject and predicate that then collide with the survivor's own (``staying``: its
    versions believed now for the predicates that moved) are reconciled by
    :func:`reconcile`. Nothing is edited; every closed belief names ``by``."""
    expiries = [Expiry(v.id, now, by) for v in sorted(moving, key=lambda v: v.id)]
    moved: list[FactVersion] = []
    for v in sorted(moving, key=_canonical):
        ends: dict[str, str] = {}
        if v.subject_id == absorbed_id:
            ends.update(subject_id=survivor_id, subject=survivor)
        if v.object_id == absorbed_id:
            ends.update(object_id=survivor_id, object=survivor)
        succ = _successor(v, now, **ends)
        if succ.subject_id != succ.object_id:  # "Acme Inc. owns Acme" is no fact once they are one
            moved.append(succ)
    touched = {(v.subject_id, v.predicate) for v in moved}
    leaving = {v.id for v in moving}
    staying = [v for v in staying if v.id not in leaving]
    stored = {v.id for v in staying}
    inserts: list[FactVersion] = []
    for pair in sorted(touched):
        group = [v for v in (*staying, *moved) if (v.subject_id, v.predicate) == pair]
        final = reconcile(group, single_valued(pair[1]), now)
        kept = {id(v) for v in final}
        expiries += [Expiry(v.id, now, by) for v in group if v.id in stored and id(v) not in kept]
        inserts += [v for v in final if v.id not in stored]
    return Decision("merge", inserts, expiries)


def reconcile(versions: list[FactVersion], single_valued: bool, now: datetime) -> list[FactVersion]:
    """The versions one subject and predicate should hold once two entities are one. The
    same value over touching valid times is one version (the provenance joined). For a
    single-valued predicate, a value that starts later ends an earlier one where it starts,
    as :func:`decide` does for a new value; of two starting together, the later believed
    wins. Versions that need no change are returned as they are (the same objects)."""
    out: list[FactVersion] = []
    for obj in sorted({v.object_id for v in versions}):
        out += _coalesce([v for v in versions if v.object_id == obj], now)
    if not single_valued:
        return out
    order = sorted(out, key=lambda v: (v.valid_from or _MIN_TIME, v.created_at, v.id))
    final: list[FactVersion] = []
    for i, v in enumerate(order):
        cut = min((w.valid_from or _MIN_TIME for w in order[i + 1:] if w.object_id != v.object_id
                   and ends_after(v.valid_to, w.valid_from or _MIN_TIME)), default=None)
        if cut is None:
            final.append(v)
        elif not is_empty(v.valid_from, cut):
            final.append(_successor(v, now, valid_to=cut))
    return final


def _coalesce(same: list[FactVersion], now: datetime) -> list[FactVersion]:
    """One value's versions with touching or overlapping valid times joined into one."""
    runs: list[list[FactVersion]] = []
    for v in sorted(same, key=lambda v: (v.valid_from or _MIN_TIME, v.created_at, v.id)):
        if runs and not _ends_before(runs[-1], v.valid_from):
            runs[-1].append(v)
        else:
            runs.append([v])
    out = []
    for run in runs:
        if len(run) == 1:
            out.append(run[0])
            continue
        first = run[0]
        ends = [v.valid_to for v in run]
        out.append(_successor(
            first, now, valid_to=None if None in ends else max(e for e in ends if e is not None),
            episode_ids=tuple(dict.fromkeys(i for v in run for i in v.episode_ids)),
            reinforcement_count=sum(v.reinforcement_count for v in run)))
    return out


def _ends_before(run: list[FactVersion], start: datetime | None) -> bool:
    """Whether every version of ``run`` ends strictly before ``start`` (so they do not touch)."""
    if start is None:
        return False
    return all(v.valid_to is not None and v.valid_to < start for v in run)


def decide_unmerge(written: list[FactVersion], closed: list[FactVersion], now: datetime, by: str) -> Decision:
    """Undo a merge: the versions it wrote that are still believed close, and the versions
    it closed are believed again, as new versions with the same fact, values, valid time and
    provenance. History keeps both: what was believed before, during and after the merge."""
    expiries = [Expiry(v.id, now, by) for v in sorted(written, key=lambda v: v.id) if v.expired_at is None]
    inserts = [_successor(v, now) for v in sorted(closed, key=_canonical)]
    return Decision("unmerge", inserts, expiries)
