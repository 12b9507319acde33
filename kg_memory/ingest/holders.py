"""Whose slot a change is, by what is held.

A group's own predicates are mostly things' slots ("the car is insured with Direct Line"). People speak of a
thing's slot in other words than they first named the thing: "I moved the car insurance over to Admiral",
"we dropped Aviva" (the home's insurer). Read alone, such a fact starts a slot of a new subject ("car
insurance", the speaker) and the old value stays current. Under a group's own ontology, a fact whose
subject holds nothing of its slot is the slot of the one thing that does hold it:

- when the speaker says it, the one whose value the change replaces or ends, by its words ("we dropped
  Aviva": the home's; "we dropped Saga", read by meaning alone as no slot in particular, ends Saga where
  it is held, in one of the group's own slots); else
- the one its subject names inside its own name ("the car insurance": the car's, in one of its own slots),
  whose name its subject begins ("Stark" for Stark Industries) or ends ("the compost": the peat-free
  compost), or says in the other number ("printer repairs": the printers'; "the chillies": the chilli);
  or, for a subject that is only an entity type's noun ("the band"), the one thing that holds the slot; else
- said by the speaker of the speaker, the one thing that alone holds the slot ("we hired Saffron Kitchen for
  the food": the caterer of the one thing that has one); said of words that name no thing, the speaker's,
  when the speaker alone holds it ("we put the standard labour rate up to £72").

An end said by a thing's value of the thing ("Keith quit The Strays", The Strays' drummer) ends the thing's
slot. Only one holder settles it; with none or several, the fact keeps its subject. Facts of the same episode
said of the same subject and slot follow (an end and its successor). A value the speaker holds is the
speaker's (the pipeline settles its slot), and the default ontology's facts are never moved.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from ..core.merged import find_live
from ..core.models import normalize_name
from ..core.temporal import names_value
from ..core.vocab import Vocabulary
from ..extract.base import ExtractedFact, Extraction
from ..store.base import StoreCore, TimeFilter

# words that never name a thing on their own (a span made only of them is no holder)
_FILLER = frozenset({"the", "a", "an", "our", "my", "their", "his", "her", "its", "your", "of", "and", "new",
                     "old", "now", "s"})

_HELD_LIMIT = 200  # the facts read of the things a batch's facts may mean (a thing holds a few slots)
_SAID_BY_PART = 5  # the facts a value's words find by text, to see which hold it (a slot has one holder, or none)
Held = dict[str, set[tuple[str, str]]]  # subject key -> {(predicate, value key)}
Holder = tuple[str, str | None]  # the holder's key, and the slot when the value settled it


def rehomed(store: StoreCore, group_id: str, vocab: Vocabulary, extractions: dict[str, Extraction],
            order: Sequence[str], speakers: dict[str, str], now: datetime) -> dict[str, Extraction]:
    """``extractions`` with each fact said of the one thing that holds its slot (see the module's doc);
    episodes in ``order`` (time order), whose earlier facts count as held, each said by its ``speakers``
    name."""
    facts = [f for eid in order if eid in extractions for f in extractions[eid].facts if _movable(f, vocab)]
    if not facts:
        return extractions
    held, names = _held_now(store, group_id, vocab, facts, now, {normalize_name(n) for n in speakers.values()})
    out = dict(extractions)
    for eid in order:
        if eid in extractions:
            speaker = normalize_name(speakers.get(eid, ""))
            out[eid] = replace(extractions[eid], facts=_settled(extractions[eid].facts, vocab, held, names, speaker))
    return out


def _movable(f: ExtractedFact, vocab: Vocabulary) -> bool:
    return bool(vocab.own) and (any(p in vocab.own for p in _slots(f)) or bool(f.ending and _replaced(f))) \
        or _steps_in(f)  # (under the default ontology too: "Harriet retired, and her replacement is Olu")


def _steps_in(f: ExtractedFact) -> bool:
    """A fact said of one who ended, replacing them ("Dev pulled out; Ruth is covering": Dev's slot, Ruth)."""
    return not f.ending and bool(f.replaces) and normalize_name(f.replaces) == normalize_name(f.subject)


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


def _numbers(name: str) -> tuple[str, ...]:
    """A name's key in the other number, its last word's ending changed as English changes it ("printer repairs"
    are the printers'; "chillies" may be "chilli" or "chilly"; "batch": "batches")."""
    head, _, last = normalize_name(name).rpartition(" ")
    if not last.isalpha() or len(last) < 3:
        return ()
    if last.endswith("ies"):
        forms: tuple[str, ...] = (last[:-3] + "y", last[:-3] + "i", last[:-1])  # (lorry, chilli, movie)
    elif last.endswith(("ches", "shes", "sses", "xes")):
        forms = (last[:-2],)
    elif last.endswith("s") and not last.endswith("ss"):
        forms = (last[:-1],)
    elif last.endswith("y"):
        forms = (last + "s", last[:-1] + "ies")
    else:
        forms = (last + "s", last + "es")
    return tuple(f"{head} {f}".lstrip() for f in forms)


def _held_now(store: StoreCore, group_id: str, vocab: Vocabulary, facts: list[ExtractedFact], now: datetime,
              speakers: set[str]) -> tuple[Held, dict[str, str]]:
    """What the subjects the facts may mean hold now of the facts' slots, and what holds the values the
    facts replace (in any slot; a value said by part of its name, "Saga" for "Saga Insurance", is found by
    the facts' text), by subject key; and the holders' names."""
    named = {f.subject for f in facts} | {f.object for f in facts if f.ending} | {_replaced(f) for f in facts}
    keys = {k for name in named for k in (normalize_name(name), *_spans(name), *_numbers(name))}
    found = find_live(store, group_id, sorted(k for k in keys if k))
    slots = sorted({p for f in facts for p in _slots(f)} | set(vocab.own))
    tf = TimeFilter(as_of=now, known_at=now)
    # (one read: the facts true and believed now of those slots with any of them as subject or as value)
    versions = store.facts_for_entities(group_id, sorted({e.id for e in found.values()}), tf, _HELD_LIMIT,
                                        predicates=slots) if found else []
    for p in sorted({p for f in facts for p in _slots(f) if p in vocab.own and vocab.is_single(p)}):
        # who holds each of the group's single slots said ("the band": which one; the one holder of a slot)
        versions += store.list_facts(group_id, tf, predicate=p, limit=_SAID_BY_PART)
    named = {n for f in facts if f.predicate in vocab.own and vocab.is_single(f.predicate) for n in f.named}
    for said in sorted({v for f in facts if (v := _replaced(f))} | named):
        versions += [v for v, _ in store.fact_text_search(group_id, said, _SAID_BY_PART, tf)
                     if v.expired_at is None and names_value(said, v.object)]
    for short in sorted({k for f in facts if " " not in (k := normalize_name(f.subject)) and k not in found
                         and k not in speakers}):
        # a thing said by the first word of its name ("Stark" for Stark Industries): what those hold
        versions += [v for v, _ in store.fact_text_search(group_id, short, _SAID_BY_PART, tf)
                     if v.expired_at is None and normalize_name(v.subject).startswith(short + " ")]
    held: Held = {}
    names: dict[str, str] = {}
    for version in versions:
        key = normalize_name(version.subject)
        held.setdefault(key, set()).add((version.predicate, normalize_name(version.object)))
        names.setdefault(key, version.subject)
    return held, names


def _settled(facts: list[ExtractedFact], vocab: Vocabulary, held: Held, names: dict[str, str], speaker: str
             ) -> list[ExtractedFact]:
    """One episode's facts, each movable one said of its slot's holder; ``held`` learns what they state."""
    moved: dict[tuple[str, str], Holder] = {}  # (subject key, slot) -> the holder
    out = []
    for f in facts:
        if _movable(f, vocab) and not vocab.own:  # (the default ontology's: only one who steps in moves)
            f = _stepped_in(f, vocab, held, names)
        elif _movable(f, vocab):
            f = _stepped_in(f, vocab, held, names)
            quit_ = _quit(f, vocab, held, names)
            if quit_ is not f:  # (the one who quit: their successor in the turn follows, "and Lola took over")
                moved[(normalize_name(f.subject), quit_.predicate)] = (normalize_name(quit_.subject), None)
            f = quit_
            subject = normalize_name(f.subject)
            target = next((moved[(subject, p)] for p in _slots(f) if (subject, p) in moved), None) \
                or _holder(f, subject, held, vocab, speaker)
            if target is not None and target[0] != subject:
                moved.update({(subject, p): target for p in (*_slots(f), *target[1:]) if p})
                f = _said_of(f, names.get(target[0], target[0]), target[1], vocab)
            _learn(f, held, names)
        out.append(f)
    return out


def _quit(f: ExtractedFact, vocab: Vocabulary, held: Held, names: dict[str, str]) -> ExtractedFact:
    """"Keith quit The Strays": an end said by the one a thing holds as the value of one of the group's own
    slots, of the thing, is that slot of the thing ending that value (The Strays' drummer, Keith), when the
    subject holds nothing of the end's slot; the value settles the slot, whatever meaning read."""
    subject, thing = normalize_name(f.subject), normalize_name(f.object)
    if not f.ending or not thing or any(p in _slots(f) for p, _ in held.get(subject, ())):
        return f
    slots = {p for p, v in held.get(thing, ()) if p in vocab.own and names_value(f.subject, v)}
    if len(slots) != 1:
        return f
    slot, owner = slots.pop(), names.get(thing, f.object)
    return replace(f, subject=owner, predicate=slot, object=f.subject, replaces=f.subject, alternatives=(),
                   needs_slot=False, statement=f"{owner} no longer {slot.replace('_', ' ')} {f.subject}")


def _stepped_in(f: ExtractedFact, vocab: Vocabulary, held: Held, names: dict[str, str]) -> ExtractedFact:
    """"Dev pulled out; Ruth Okafor is covering the day": one said to step in after a name (a fact said of
    the name, replacing it) holds the slot of the one thing that holds that name in one of the group's own
    slots (the wedding's photographer), or under the default ontology in one of its slots (the speaker's
    manager). With none or several, the fact stays the name's, which holds no such slot, so the pipeline drops
    it."""
    gone = normalize_name(f.subject)
    if not _steps_in(f):
        return f
    holding = {(k, p) for k, hs in held.items() if k != gone for p, v in hs
               if (p in vocab.own or not vocab.own) and p in _slots(f) and names_value(f.subject, v)}
    if len(holding) != 1:
        return f
    key, slot = holding.pop()
    entity = vocab.predicates[slot].object_kind == "entity"  # (the slot's kind, now it is known)
    return _said_of(replace(f, predicate=slot, object_kind="entity" if entity else "value", alternatives=(),
                            needs_slot=False),
                    names.get(key, key), None, vocab)


def _holder(f: ExtractedFact, subject: str, held: Held, vocab: Vocabulary, speaker: str) -> Holder | None:
    by_speaker = subject == speaker
    slots = set(_slots(f))
    mine = held.get(subject, set())
    if any(p in slots for p, _ in mine):
        return None  # its subject holds the slot: the change is its own
    value = _replaced(f) if by_speaker or not mine and f.subject.islower() else ""  # (a named thing's own change
    # names its own old value: "Van 3 left Halfords" is no change of Van 2's; a thing said by no name of its own
    if value:  # may be the value's holder: "Sue has passed the hall diary on to Pat", the church hall's)
        if any(names_value(value, v) for _, v in mine):
            return None  # a value the speaker holds: the pipeline settles which of the speaker's slots
        holding = {(k, p) for k, hs in held.items() if k != subject for p, v in hs
                   if names_value(value, v) and (p in slots or f.ending and p in vocab.own)}
        settled = {h for h in holding if h[1] in slots} or holding
        if len(settled) == 1:
            key, slot = settled.pop()
            return key, (slot if slot not in slots else None)
    if not any(p in vocab.own for p in slots):
        return None
    by_value = _named_holder(f, subject, held, vocab)
    if by_value is not None:
        return by_value
    # (the names inside its name, and the name in the other number: "printer" is "printers"; "the band": any)
    named = [*_spans(f.subject), *_numbers(f.subject), *_headed(subject, held), *_shortened(subject, held)] \
        if not _a_type(f.subject, vocab) else list(held)
    by_name = {k for k in named if k != subject and any(p in slots for p, _ in held.get(k, ()))}
    return (by_name.pop(), None) if len(by_name) == 1 else _sole(f, subject, held, vocab, speaker)


def _headed(subject: str, held: Held) -> list[str]:
    """The things a name begins or ends, in either number ("the figs": the fig trees; "the compost": the
    peat-free compost)."""
    forms = (subject, *_numbers(subject))
    return [k for k in held if any(k.startswith(s + " ") or k.endswith(" " + s) for s in forms)]


def _shortened(subject: str, held: Held) -> list[str]:
    """The things whose name a name says with words left out, its first and last kept ("the water unit": the
    water rescue unit)."""
    words = subject.split()
    if len(words) < 2:
        return []
    return [k for k in held if len(said := k.split()) > len(words) and said[0] == words[0]
            and said[-1] == words[-1] and _in_order(words, said)]


def _in_order(words: list[str], among: list[str]) -> bool:
    rest = iter(among)
    return all(w in rest for w in words)


def _named_holder(f: ExtractedFact, subject: str, held: Held, vocab: Vocabulary) -> Holder | None:
    """"Lucy double-booked, so Priya Shah will photograph the wedding": a new value of a single slot of the
    group's, said in a sentence that names the value one thing alone holds in that slot now (Lucy, our
    photographer), is that thing's change."""
    if f.ending or not f.named or not vocab.is_single(f.predicate) or f.predicate not in vocab.own:
        return None
    holding = {k for n in f.named for k, hs in held.items() if k != subject
               for p, v in hs if p == f.predicate and names_value(n, v) and not names_value(f.object, v)}
    return (holding.pop(), None) if len(holding) == 1 else None


def _sole(f: ExtractedFact, subject: str, held: Held, vocab: Vocabulary, speaker: str) -> Holder | None:
    """"We hired Saffron Kitchen for the food": a single slot of the group's that only one thing holds, said
    by the speaker of the speaker, is that thing's. The other way only for a subject that names no thing
    ("standard labour" of "the standard labour rate"): a named thing's fact is not the speaker's because the
    speaker alone holds the slot, nor is one thing's another's."""
    if f.predicate not in vocab.own or not vocab.is_single(f.predicate):
        return None
    holders = {k for k, hs in held.items() if any(p == f.predicate for p, _ in hs)}
    only = next(iter(holders)) if len(holders) == 1 else None
    if subject != speaker:
        # "We've put the standard labour rate up to £72": words said before the slot's noun that name no
        # thing (no capital, no number) are how the speaker says the slot the speaker alone holds
        return (only, None) if only == speaker and _unnamed(f.subject) else None
    return (only, None) if only is not None and only != subject else None


def _unnamed(subject: str) -> bool:
    return subject == subject.lower() and not any(c.isdigit() for c in subject)


def _a_type(subject: str, vocab: Vocabulary) -> bool:
    """A subject that is only an entity type's noun ("the band", "the van"): the one thing of the slot."""
    key = normalize_name(subject)
    return any(key in (t.lower(), f"{t.lower()}s") for t in vocab.entity_types)


def _said_of(f: ExtractedFact, holder: str, slot: str | None, vocab: Vocabulary) -> ExtractedFact:
    """The fact said of its holder (and in the slot that holds its value, when that settled it)."""
    if slot is not None:
        f = replace(f, predicate=slot, alternatives=(), needs_slot=False)
    spec = vocab.predicates.get(f.predicate)
    if spec is not None and not f.ending and not f.any_object:
        statement = spec.render(holder, f.object)
    elif slot is not None:
        statement = f"{holder} no longer {slot}"
    else:
        statement = f.statement.replace(f.subject, holder, 1) if f.subject in f.statement else f.statement
    return replace(f, subject=holder, statement=statement)


def _learn(f: ExtractedFact, held: Held, names: dict[str, str]) -> None:
    if f.ending or not f.object:
        return
    key = normalize_name(f.subject)
    held.setdefault(key, set()).add((f.predicate, normalize_name(f.object)))
    names.setdefault(key, f.subject)
