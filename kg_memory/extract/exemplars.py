"""What a predicate's own examples say: each example's subject and value (the name it gives, the doer that is
its value), the verbs whose doer is the value, and the example texts masked, which the meaning reader
embeds to compare a clause's wording with each predicate's."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..core.vocab import Predicate, Vocabulary
from ..embed.base import Embedder
from . import dates, parse
from .clauses import readings
from .preps import CARE_VERBS, NOT_VALUE, WHEN_PREPS
from .reading import WHEN, Reading
from .shapes import kept_somewhere, said_verb
from .slotwords import listed_values
from .surface import surface_readings
from .values import AMOUNT, has_number, shapes_in

# a clause said in the passive ("is serviced by", "was paid for by", "is run by", any participle): its subject is
# what the verb is done to
PASSIVE = re.compile(r"\b(?:is|are|was|were|be|been|being|gets?|got)\s+(?:\w+ly\s+|now\s+|also\s+|still\s+)?"
                     r"\w+(?:\s+(?:up|off|out|over|down|in|after))?(?:\s+for(?:\s+(?:us|me|them|you|him|her))?)?\s+by\b",
                     re.I)  # ("made for us by", "picked up by")


@functools.lru_cache(maxsize=1024)  # (read per reader: a predicate's words are parsed once per process)
def value_verbs(p: Predicate) -> frozenset[str]:
    """The verbs (lemmas) whose doer is the predicate's value, not its subject, as the predicate's own text
    says: the verb of a name in the passive ("serviced_by"); a verb the value's noun does in the
    description ("the colleague who mentors a person"); a verb an example says in the passive with the
    value as its doer ("Van 12 is driven by Aisha"); and the verb of the value's noun when that noun is
    its doer's ("the driver ...": drive) and the examples or description use it."""
    verbs: set[str] = set()
    if p.name.endswith("_by"):
        verbs |= {t.lemma_.lower() for t in parse.parsed(f"It was {p.name[:-3].replace('_', ' ')} by them.")
                  if t.pos_ == "VERB"}
    said: set[str] = set()
    for text in (p.description, *p.examples):
        for t in parse.parsed(text):
            if t.pos_ == "VERB":
                said.add(t.lemma_.lower())
                if any(k.dep_ == "agent" for k in t.children):
                    verbs.add(t.lemma_.lower())
    # the description's head noun: its first noun that is no compound ("the class teacher a child has": teacher)
    head = next((t for t in parse.parsed(p.description) if t.pos_ == "NOUN" and t.dep_ != "compound"), None)
    if head is not None:
        verbs |= {k.lemma_.lower() for k in head.children if k.dep_ == "acl" and k.tag_ == "VBG"}  # ("the mechanic
        # working on a customer's vehicle")
        for clause in (k for k in head.children if k.dep_ == "relcl"):
            if any(c.dep_ in ("nsubj", "mark") and c.lower_ in ("who", "that", "which") for c in clause.children):
                # (a coordinated verb the small parser took for a plural noun: "maintains and repairs"; or for
                # the clause's subject: "a shop that stocks and sells a beer")
                joined = [c for c in clause.children if c.dep_ == "nsubj" and c.tag_ == "NNS"
                          and any(k.dep_ == "cc" for k in c.children)]
                verbs |= {v.lemma_.lower() for v in (clause, *clause.conjuncts, *joined) if v.pos_ == "VERB"
                          or v.tag_ in ("NNS", "VBZ")}
        verbs |= agent_verbs(head.lower_) & said
    # and the predicate's own name, an agent noun ("drummer": drum), when its examples say the verb in any form
    # (the small parser takes "Keith drums for ..." for a noun)
    forms = {t.lower_ for e in p.examples for t in parse.parsed(e)}
    for word in p.name.split("_"):
        verbs |= {v for v in agent_verbs(word) if {v + "s", v + "es", v + "ed", v + "ing"} & forms}
    if "_" not in p.name and p.object_kind == "entity" and {p.name + e for e in ("s", "es", "ed", "ing")} & forms:
        verbs.add(p.name)  # a role's own noun said as the verb its holder does ("Sophie hosts Night Shift", "Rosa is
        # engineering the Harlow album")
    return frozenset(verbs - {"be", "have", "do", "get"})


def ended_so(p: Predicate, verb: str) -> bool:
    """Does the predicate's own text say the verb (a lemma) as its end ("dropped", "stopped stocking") or as what its
    value does? Then one named who does so ends the slot of the thing they did it to."""
    return verb in value_verbs(p) or verb in _end_verbs(p)


@functools.lru_cache(maxsize=1024)  # (as value_verbs)
def _end_verbs(p: Predicate) -> frozenset[str]:
    """The lemmas of the words of a predicate's ``ends`` phrasings."""
    return frozenset(t.lemma_.lower() for e in p.ending for t in parse.parsed(e))


def agent_verbs(noun: str) -> set[str]:
    """The verbs an agent noun may be of ("teacher": teach, "driver": drive, "drummer": drum)."""
    if not noun.endswith(("er", "or")) or len(noun) < 5:
        return set()
    stem = noun[:-2]
    out = {stem, noun[:-1], stem + "e", noun[:-3] + "y"}
    return out | ({stem[:-1]} if stem[-1] == stem[-2] else set())


@dataclass(frozen=True)
class Exemplars:
    raw: np.ndarray
    raw_owners: list[str]
    masked: np.ndarray
    masked_owners: list[str]
    values: np.ndarray  # the examples' values, by masked_owners: a value like them leans to their predicate
    shapes: dict[str, frozenset[str]]  # the value shapes (below) each predicate's examples say
    speaker_share: dict[str, float]  # the share of each predicate's examples said of the speaker
    numbered: frozenset[str]  # the predicates whose examples' values all have a number
    named: frozenset[str]  # the predicates whose examples' values are all names
    unnamed: frozenset[str]  # and those whose examples' values never are
    amountless: frozenset[str]  # the predicates whose examples' values never give an amount with a unit
    naming: frozenset[str]  # the group's own slots whose readable examples give names (``names_readable``)
    things: frozenset[str]  # the common nouns the group's own examples say a slot of ("reception"): no slot's noun
    weekdays: dict[str, bool]  # the predicates whose examples' values all say a weekday (True) or none do (False)

    def takes_names(self, predicate: str) -> bool:
        return predicate in self.named or predicate in self.naming


def names_readable(kind: str, values: list[str]) -> bool:
    """Do a slot's readable examples give names: for an entity slot, one of them ("The vets' skipper is
    Gordon", though another the reader misreads may not); for a value slot, all, every word a name ("Flat 3
    is managed by Foxtons"; not "Enterprise plan")?"""
    if kind == "entity":
        return any(v[:1].isupper() for v in values)
    return bool(values) and all(w[:1].isupper() for v in values for w in v.split())


def best_per_owner(sims: np.ndarray, owners: list[str]) -> dict[str, float]:
    best: dict[str, float] = {}
    for i, owner in enumerate(owners):
        best[owner] = max(best.get(owner, -1.0), float(sims[i]))
    return best


def example_reading(example: str, types: frozenset[str], slot_words: frozenset[str] = frozenset(),
                     by_name: bool = False, preps: frozenset[tuple[str, str]] = frozenset(),
                     states: frozenset[str] = frozenset()) -> Reading | None:
    """The subject and value of one of a predicate's own examples, to mask them. With ``by_name`` (a group's
    own predicate), an example that names someone or something has that name as its value ("We get our
    internet from Comcast": not "internet"). (The built-in examples are read as they were tuned.) ``preps``: as
    ``value_preps`` gives them ("Omar applied for the warehouse manager job")."""
    doc = parse.parsed(example)
    found = _readable(example, readings(doc, "User", types, slot_words, preps=preps, states=states)) \
        if preps or states else _readable(example, [*readings(doc, "User", types, slot_words),
                                                    *surface_readings(doc, "User", types, slot_words)])
    if not found:  # (the speaker, "I" or "my", is a subject too)
        return None
    name = last_name(doc) if by_name else None
    if name is None:
        return found[0]
    if found[0].moved and name.lower() in found[0].moved.lower():
        return replace(found[0], subject=found[0].moved)  # "We hold Pilates in the upstairs studio": Pilates' room
    named = [r for r in found if any(c.isupper() for c in r.object) and not r.object.endswith(("'s", "’s"))]
    if named or name.lower() in found[0].subject.lower():
        return (named or found)[0]
    return replace(found[0], object=name, object_proper=True)


def _turned_round(r: Reading) -> Reading:
    """A name acting on an unnamed thing, in a slot other examples give names as values: the name is the value
    ("Hamptons look after the mews house", beside "Flat 3 is managed by Foxtons"); not one done to at a place
    ("Leo is taught at the library")."""
    if r.subject[:1].isupper() and not any(c.isupper() for c in r.object) and not kept_somewhere(r):
        return replace(r, subject=r.object, object=r.subject, object_proper=True)
    return r


def _readable(example: str, found: list[Reading]) -> list[Reading]:
    """The readings whose subject and value the example says as they are."""
    low = example.lower()
    return [r for r in found if r.object.lower() in low and (r.subject == "User" or r.subject.lower() in low)]


def last_name(doc: Any) -> str | None:
    """The last run of words said with a capital past the first word, other than "I" ("Mr Okafor", "Octopus
    Energy"): the name an example gives, if it gives one."""
    runs: list[list[Any]] = []
    for t in doc:
        if t.i > 0 and t.text[:1].isupper() and t.text != "I":
            if runs and runs[-1][-1].i == t.i - 1:
                runs[-1].append(t)
            else:
                runs.append([t])
    runs = [r for r in runs if not _possessor(r[-1])]  # ("Marcus's spare room": whose, not the name given)
    return " ".join(t.text for t in runs[-1]) if runs else None


def _possessor(t: Any) -> bool:
    return t.text.endswith(("'s", "’s")) or t.i + 1 < len(t.doc) and t.doc[t.i + 1].text in ("'s", "’s", "'", "’")


def said_of_speaker(example: str, types: frozenset[str], slot_words: frozenset[str]) -> bool:
    """Is one of a predicate's examples said of the speaker ("I take 20 mg", "my dose is 500 mg")?"""
    doc = parse.parsed(example)
    found = readings(doc, "User", types, slot_words) or surface_readings(doc, "User", types, slot_words)
    return bool(found) and found[0].subject == "User" and not found[0].moved


def mask(text: str, subject: str, value: str) -> str:
    """The clause with its value as X and its subject as S: what is left is how the relation is said."""
    out = re.sub(re.escape(value), "X", text, flags=re.I) if value else text
    if subject:
        # (a name's kind goes with it: "the red panda Momo" is S, so that a kind no relation says weighs nothing)
        named = subject[:1].isupper()
        said = (_KIND_BEFORE if named else r"(?:the\s+)?") + re.escape(subject) + (_KIND_AFTER if named else "")
        out = re.sub(rf"\b{said}(?:\s+\w+)?(?=\s+(?:is|was|has|uses|runs|keeps|stores|deploys|"
                     rf"got|moved|switched|migrated)\b)|\b{said}(?!\w)", "S", out, count=1, flags=re.I)
    return out


# "the ", or a determiner and the words of a kind before a name ("the red panda ", "our CTO "); no word that ties
_KIND_BEFORE = (r"(?:(?:the|my|our|his|her|their)\s+(?:(?!(?:for|of|to|in|at|on|with|by|from|the|a|an|and|or|is|was|"
                r"are|were)\b)(?-i:[a-z][a-z-]*)\s+){0,3})?")
# and after it ("Bongo the gorilla is ...", "Momo, the red panda, ...")
_KIND_AFTER = r"(?:,?\s+the(?:\s+(?!(?:is|was|has|are|were)\b)(?-i:[a-z][a-z-]*)){1,2}\b(?:\s*,(?=\s))?)?"


@functools.lru_cache(maxsize=32)  # parsed once per process per ontology, not once per reader (each Memory has its own)
def example_verbs(examples: tuple[str, ...], names: tuple[str, ...]) -> frozenset[str]:
    """The verbs ``examples`` use, by lemma and as said: where the small parser takes one for a noun, the
    words before it are the subject; and a verb a predicate's name says ("rehearses_at": "The Strays
    rehearse at ...", which the parser may take for a noun), in its forms."""
    said = {w for e in examples for t in parse.parsed(e)
            if t.pos_ == "VERB" and t.lemma_.lower() not in ("be", "have", "do", "get", "go")
            for w in (t.lemma_.lower(), t.lower_)}
    # and the head of an example with no verb at all, a plural noun a preposition hangs on ("Our rosé matures in
    # steel tanks"): the verb, taken for a noun
    said |= {t.lower_ for e in examples for doc in (parse.parsed(e),) if not any(t.pos_ in ("VERB", "AUX") for t in doc)
             for t in doc if t.dep_ == "ROOT" and t.tag_ == "NNS" and any(k.dep_ == "prep" for k in t.children)}
    named = {f for n in names for w in n.split("_") if len(w) > 4 and w.endswith("s")
             for f in (w, w.removesuffix("s"), w.removesuffix("es"))}
    return frozenset(said | named)


@functools.lru_cache(maxsize=32)  # (as example_verbs)
def value_states(own: tuple[Predicate, ...]) -> frozenset[str]:
    """The verbs (lemmas) whose passive participle is a value of a slot of values: said so by an example ("Omar
    has been shortlisted") or named in the description's list of values ("such as applied, offer or hired")."""
    out: set[str] = set()
    for p in (p for p in own if p.object_kind == "value"):
        out |= {t.lemma_.lower() for e in p.examples for t in parse.parsed(e) if t.tag_ == "VBN"
                and any(k.dep_ == "auxpass" for k in t.children)
                and not any(k.dep_ in ("dobj", "agent", "prep") for k in t.children)}
        listed = listed_values(p)
        if listed:
            out |= {t.lemma_.lower() for t in parse.parsed(f"It was {listed}.")
                    if t.pos_ in ("VERB", "NOUN") and t.lemma_.lower() not in ("be", "have", "do", "get")}
    return frozenset(out)


@functools.lru_cache(maxsize=32)  # (as example_verbs)
def value_preps(examples: tuple[str, ...], descriptions: tuple[str, ...] = ()) -> frozenset[tuple[str, str]]:
    """The (verb, preposition) pairs examples give a value with, of the prepositions that otherwise give none
    ("The Anchor is known for its fish pie": ("know", "for")), or give a time with ("is collected on Friday");
    and ("", word) for each word of time the slots say is a value ("the shift a driver works: days, nights or
    weekends"), whatever the verb."""
    pairs = frozenset((word, t.lower_) for e in examples for t in parse.parsed(e)
                      if t.dep_ == "prep" and (t.lower_ in NOT_VALUE or t.lower_ in WHEN_PREPS and any(
                          k.dep_ == "pobj" and dates.is_time_word(k.text) for k in t.children))
                      and (t.head.pos_ in ("VERB", "ADJ") or t.head.lemma_ == "be"  # ("is up for the X role")
                           or t.head.dep_ == "ROOT" and t.head.pos_ == "NOUN")  # (a verb read as a noun: "leaves")
                      and any(k.dep_ == "pobj" for k in t.children)
                      for word in {t.head.lemma_.lower(), t.head.lower_})
    said = " ".join((*examples, *descriptions))
    return pairs | frozenset(("", w) for w in re.findall(r"\b[a-z]+\b", said) if WHEN.fullmatch(w))


def done_by_value(p: Predicate, read: list[tuple[str, Reading | None]]) -> frozenset[str]:
    """The verbs a slot of names' own examples (as ``example_readings`` reads them) say its value does, actively
    ("Carla runs housekeeping": run)."""
    if p.object_kind != "entity":
        return frozenset()
    return frozenset(r.verb for e, r in read if r is not None and r.verb and r.verb not in ("be", "have")
                     and not PASSIVE.search(e) and 0 <= e.find(r.object) < e.lower().find(r.subject.lower()))


def _read_as_the_group_reads(p: Predicate, vocab: Vocabulary, types: frozenset[str], slot_words: frozenset[str],
                             found: list[tuple[str, Reading | None]]) -> list[tuple[str, Reading | None]]:
    """The group's own examples read plainly, and those read only as the group's clauses are read (with the
    prepositions and participles its examples give values with: "applied for the X job"), turned round when the
    others give names as values (``_turned_round``)."""
    if p.name not in vocab.own or all(r is not None for _, r in found):
        return found
    mine = tuple(q for q in vocab.predicates.values() if q.name in vocab.own)
    preps, states = value_preps(tuple(e for q in mine for e in q.examples)), value_states(mine)
    named = any(r is not None and any(c.isupper() for c in r.object) for _, r in found)
    late = [(e, r or example_reading(e, types, slot_words, True, preps, states)) for e, r in found]
    return [(e, r or (_turned_round(lr) if lr is not None and named else lr))
            for (e, r), (_, lr) in zip(found, late, strict=True)]


def doer_said_first(r: Reading) -> bool:
    """Was the reading already turned round, its value the doer said before its subject ("Malcolm plays the organ at
    St Peter's": St Peter's organist)?"""
    return r.object_proper and 0 <= r.text.find(r.object) < r.text.find(r.subject.removesuffix("'s"))


def _done_on(example: str, r: Reading, p: Predicate) -> bool:
    """Does the example say its value after a preposition of its verb that the description does not say the verb with
    ("The iOS app builds on Bitrise", of "the service that builds an app"): the subject does the verb, on the value?"""
    verb = re.escape(r.verb[:-1] if r.verb.endswith("e") else r.verb)
    said = re.search(rf"\b{verb}\w*\s+({'|'.join(_ON)})\s+(?:the\s+)?{re.escape(r.object)}\b", example, re.I)
    return bool(r.verb) and said is not None \
        and re.search(rf"\b{verb}\w*\s+{said.group(1)}\b", p.description, re.I) is None


_ON = ("on", "at", "in", "with", "via", "through", "from", "to", "for", "into")  # (prepositions a value may follow)


def example_readings(p: Predicate, vocab: Vocabulary, types: frozenset[str], slot_words: frozenset[str]
                     ) -> list[tuple[str, Reading | None]]:
    """Each example of the predicate and its reading, with the value as the slot's value: said as the
    doer ("Ayo maintains the orders service"), or as the name beside an unnamed thing when another
    example gives a name as the value ("Liam captains the seconds", "The vets' skipper is Gordon")."""
    doers = value_verbs(p)
    found = _read_as_the_group_reads(p, vocab, types, slot_words,
                                     [(e, example_reading(e, types, slot_words, p.name in vocab.own))
                                      for e in p.examples])
    # ("We record Night Shift at Soundhouse Studios": the thing the speaker works on is the slot's)
    found = [(e, replace(r, subject=r.moved) if r is not None and r.subject == "User" and r.moved else r)
             for e, r in found]
    found = [(e, replace(r, subject=r.object, object=r.subject) if r is not None and said_verb(e, r, doers) in doers
              and not PASSIVE.search(e) and not doer_said_first(r) and not _done_on(e, r, p) else r)
             for e, r in found]
    names = sum(1 for _, r in found if r is not None and any(c.isupper() for c in r.object))
    if p.name not in vocab.own or not names:
        return found
    # (in a slot of values, only one who cares for a thing: "Hamptons look after the mews house"; not one done to at
    # a place: "Leo is taught at the library")
    return [(e, replace(r, subject=r.object, object=r.subject) if r is not None and r.subject[:1].isupper()
             and not any(c.isupper() for c in r.object) and (p.object_kind == "entity" or r.verb in CARE_VERBS)
             and not kept_somewhere(r) else r) for e, r in found]


def build_exemplars(active: list[Predicate], vocab: Vocabulary, types: frozenset[str], slot_words: frozenset[str],
                    embedder: Embedder) -> Exemplars:
    """The vectors and tallies of an ontology's descriptions and examples that the meaning reader compares a
    clause with (built once per ontology and embedder)."""
    raw, raw_owners, masked, masked_owners, values = [], [], [], [], []
    shapes: dict[str, set[str]] = {}
    mine: dict[str, list[bool]] = {}
    numbered: dict[str, list[bool]] = {}
    amounts: dict[str, list[bool]] = {}
    named: dict[str, list[bool]] = {}
    weekdays: dict[str, list[bool]] = {}
    naming: set[str] = set()
    things: set[str] = set()
    for p in active:
        for text in (p.description, *p.examples, *(f"{e} it" for e in p.ending)):
            raw.append(text)
            raw_owners.append(p.name)
        read = example_readings(p, vocab, types, slot_words)
        if p.name in vocab.own and names_readable(p.object_kind, [r.object for _, r in read if r]):
            naming.add(p.name)
        for example, found in read:
            if found is not None:
                if p.name in vocab.own and found.subject.islower() \
                        and found.subject.split()[-1] not in p.name.split("_"):
                    things.add(found.subject.split()[-1])  # ("The reception is at Hartwell Barn")
                masked.append(mask(example, found.subject, found.object))
                masked_owners.append(p.name)
                values.append(found.object)
                numbered.setdefault(p.name, []).append(has_number(found.object) or bool(  # (one misread:
                    re.search(r"[£$€]\s?\d", example)) and not has_number(found.subject))  # "cost $2m")
                amounts.setdefault(p.name, []).append(bool(AMOUNT.search(found.object)))
                named.setdefault(p.name, []).append(any(c.isupper() for c in found.object))
                weekdays.setdefault(p.name, []).append(dates.names_a_weekday(found.object))
            elif p.name in vocab.own:  # an example the reader cannot read still says if it names
                named.setdefault(p.name, []).append(last_name(parse.parsed(example)) is not None)
                numbered.setdefault(p.name, []).append(has_number(example))  # ("comes in every six months")
                weekdays.setdefault(p.name, []).append(dates.names_a_weekday(example))
            shapes.setdefault(p.name, set()).update(shapes_in(example))
            mine.setdefault(p.name, []).append(said_of_speaker(example, types, slot_words))
    return Exemplars(
        np.asarray(embedder.embed(raw), dtype=np.float32), raw_owners,
        np.asarray(embedder.embed(masked or ["-"]), dtype=np.float32), masked_owners,
        np.asarray(embedder.embed(values or ["-"]), dtype=np.float32),
        {name: frozenset(found) for name, found in shapes.items()},
        {name: sum(said) / len(said) for name, said in mine.items()},
        frozenset(name for name, has in numbered.items() if len(has) >= 2 and all(has)),
        frozenset(name for name, has in named.items() if len(has) >= 2 and all(has)),
        frozenset(name for name, has in named.items() if len(has) >= 2 and not any(has)),
        frozenset(name for name, has in amounts.items() if len(has) >= 2 and not any(has)),
        frozenset(naming), frozenset(things),
        {name: all(has) for name, has in weekdays.items() if len(has) >= 2 and (all(has) or not any(has))})
