"""Whose slot a change is, by what is held.

A group's own predicates are mostly things' slots ("the car is insured with Direct Line"). People speak of a
thing's slot in other words than they first named the thing: "I moved the car insurance over to Admiral",
"we dropped Aviva" (the home's insurer). Read alone, such a fact starts a slot of a new subject ("car
insurance", the speaker) and the old value stays current. A fact of one of the group's own slots whose
subject holds nothing of that slot is the slot of the one thing that does hold it:

- when the speaker says it, the one whose value of the slot the change replaces or ends ("we dropped
  Aviva": the home's); else
- the one its subject names inside its own name ("the car insurance": the car's).

Only one holder settles it; with none or several, the fact keeps its subject. Facts of the same episode
said of the same subject and slot follow (an end and its successor). The built-in predicates (people's
slots) are never moved: a person's change is that person's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..core.merged import find_live
from ..core.models import normalize_name
from ..core.vocab import Vocabulary
from ..extract.base import ExtractedFact, Extraction
from ..store.base import StoreCore

# words that never name a thing on their own (a span made only of them is no holder)
_FILLER = frozenset({"the", "a", "an", "our", "my", "their", "his", "her", "its", "your", "of", "and", "new",
                     "old", "now", "s"})

Held = dict[str, set[tuple[str, str]]]  # subject key -> {(predicate, value key)}


def rehomed(store: StoreCore, group_id: str, vocab: Vocabulary, extractions: dict[str, Extraction],
            order: Sequence[str], speakers: dict[str, str]) -> dict[str, Extraction]:
    """``extractions`` with each fact of the group's own slots said of the one thing that holds the slot
    (see the module's doc); episodes in ``order`` (time order), whose earlier facts count as held, each
    said by its ``speakers`` name."""
    facts = [f for eid in order if eid in extractions for f in extractions[eid].facts if _movable(f, vocab)]
    if not facts:
        return extractions
    held, names = _held_now(store, group_id, facts)
    out = dict(extractions)
    for eid in order:
        if eid in extractions:
            out[eid] = replace(extractions[eid], facts=_settled(extractions[eid].facts, vocab, held, names,
                                                                  normalize_name(speakers.get(eid, ""))))
    return out


def _movable(f: ExtractedFact, vocab: Vocabulary) -> bool:
    return bool(vocab.own) and any(p in vocab.own for p in _slots(f))


def _slots(f: ExtractedFact) -> tuple[str, ...]:
    return (f.predicate, *f.alternatives)


def _replaced(f: ExtractedFact) -> str:
    return f.replaces or (f.object if f.ending else "")


def _spans(name: str) -> list[str]:
    """The names inside a name, longest first ("the car insurance": "car insurance" is the name, "car" and
    "insurance" inside it), as keys."""
    words = [w.removesuffix("'s").removesuffix("’s") for w in re.findall(r"[\w.'’&/-]+", name)]
    n = len(words)
    out = []
    for size in range(n - 1, 0, -1):
        for i in range(n - size + 1):
            part = words[i:i + size]
            if all(w.lower() in _FILLER for w in part):
                continue
            out.append(normalize_name(" ".join(part)))
    return [k for k in dict.fromkeys(out) if k]


def _held_now(store: StoreCore, group_id: str, facts: list[ExtractedFact]) -> tuple[Held, dict[str, str]]:
    """What the subjects the facts may mean hold now of the facts' slots, by subject key; and their names."""
    keys = {normalize_name(f.subject) for f in facts}
    keys |= {k for f in facts for k in _spans(f.subject)}
    values = {normalize_name(v) for f in facts if (v := _replaced(f))}
    found = find_live(store, group_id, sorted(k for k in keys | values if k))
    slots = sorted({p for f in facts for p in _slots(f)})
    pairs = [(e.id, p) for k, e in found.items() if k in keys for p in slots]
    objects = [found[k].id for k in sorted(values) if k in found]
    held: Held = {}
    names: dict[str, str] = {}
    for version in store.current_facts(group_id, pairs, objects):
        if version.predicate in slots:
            key = normalize_name(version.subject)
            held.setdefault(key, set()).add((version.predicate, normalize_name(version.object)))
            names.setdefault(key, version.subject)
    return held, names


def _settled(facts: list[ExtractedFact], vocab: Vocabulary, held: Held, names: dict[str, str], speaker: str
             ) -> list[ExtractedFact]:
    """One episode's facts, each movable one said of its slot's holder; ``held`` learns what they state."""
    moved: dict[tuple[str, str], str] = {}  # (subject key, slot) -> the holder's key
    out = []
    for f in facts:
        if _movable(f, vocab):
            subject = normalize_name(f.subject)
            target = next((moved[(subject, p)] for p in _slots(f) if (subject, p) in moved), None) \
                or _holder(f, subject, held, subject == speaker)
            if target is not None and target != subject:
                moved.update({(subject, p): target for p in _slots(f)})
                f = _said_of(f, names.get(target, target), vocab)
            _learn(f, held, names)
        out.append(f)
    return out


def _holder(f: ExtractedFact, subject: str, held: Held, by_speaker: bool) -> str | None:
    slots = set(_slots(f))
    if any(p in slots for p, _ in held.get(subject, ())):
        return None  # its subject holds the slot: the change is its own
    value = normalize_name(_replaced(f)) if by_speaker else ""
    if value:  # (a thing's own change names its own old value: "Van 3 left Halfords" is no change of Van 2's)
        by_value = {k for k, hs in held.items() if any(p in slots and v == value for p, v in hs)}
        if len(by_value) == 1:
            return by_value.pop()
    by_name = {k for k in _spans(f.subject) if any(p in slots for p, _ in held.get(k, ()))}
    return by_name.pop() if len(by_name) == 1 else None


def _said_of(f: ExtractedFact, holder: str, vocab: Vocabulary) -> ExtractedFact:
    spec = vocab.predicates.get(f.predicate)
    if spec is not None and not f.ending and not f.any_object:
        statement = spec.render(holder, f.object)
    else:
        statement = f.statement.replace(f.subject, holder, 1) if f.subject in f.statement else f.statement
    return replace(f, subject=holder, statement=statement)


def _learn(f: ExtractedFact, held: Held, names: dict[str, str]) -> None:
    if f.ending or not f.object:
        return
    key = normalize_name(f.subject)
    held.setdefault(key, set()).add((f.predicate, normalize_name(f.object)))
    names.setdefault(key, f.subject)
