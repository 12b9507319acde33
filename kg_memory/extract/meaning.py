"""Reading a sentence onto an ontology's predicates by meaning, for any subject and any domain.

A clause is read off the dependency parse as (subject, verb phrase, object), whatever the subject is
("the billing service", "search", a colleague), and mapped onto the predicate whose description and
examples it is nearest to, with the in-process embedding model. The shapes of a change are read
structurally, for any predicate:

* "moved from A to B", "switched to B", "migrated off A; it runs on B now": the new value B;
* "handed X over to B": X's slot takes B;
* "rewrote X in B": X's slot takes B;
* "no longer uses A", "stopped using A", and a predicate's own ``ends`` phrasings: the slot ends.

Only predicates with ``examples`` are read this way (a group's own ontology); the built-in personal
life predicates keep their phrase patterns, so a group without an ontology reads as before."""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np

from ..core.vocab import Predicate, Vocabulary
from ..embed.base import Embedder
from . import dates, parse
from .base import ExtractedFact

# Calibrated on the even-numbered cases of tests/fixtures/updates-*.json (the odd ones are held out);
# see docs/benchmarks-notes.md, "Ontologies". MiniLM puts a clause that states a slot at 0.27-0.6 from
# the slot's examples, and chat that states none (thanks, plans, lunch) at 0.2 or less from any.
MEANING_THRESHOLD = 0.32  # the blended cosine (below) of a clause to a predicate: below, no match
MEANING_MARGIN = 0.02  # and this much nearer than any other predicate's, or it is ambiguous
SHAPE_THRESHOLD = 0.28  # a change shape (hand over, rewrite in, from-to) already says a value changed
CUE_BONUS = 0.08  # a clause that names a word only one predicate's description uses ("school", "car")
OWN_BONUS = 0.05  # a group's own predicate over a built-in one: a group that defined it talks of it
VERIFY_FLOOR = 0.25  # a model's fact whose predicate is this far from its sentence is dropped (chat scores <= 0.25)
VERIFY_GAP = 0.12  # or this far below the sentence's nearest predicate (the dev phrasings' absurd labels: 0.2+)
CUE_THRESHOLD = 0.48  # a plain clause with only a word of change ("now", "lately") under the default ontology:
# the dev chit-chat that such words let in ("Gotta focus on my dance studio now") scores 0.35-0.46
SLOT_BAND = 0.1  # a change's other slots: those this near its nearest, which the subject's held values decide
MASK_WEIGHT = 0.5  # the masked clause's share of the blend (the dev half ranked 9/12 blended, 6/12 as said)

HAND_OVER = frozenset({"hand", "transfer", "pass", "reassign", "give"})
# (with the past forms the small parser leaves unlemmatised)
REWRITE = frozenset({"rewrite", "write", "port", "reimplement", "rebuild", "build", "rebuilt", "rewrote", "rewritten"})
CHANGE = frozenset({"switch", "move", "migrate", "change", "upgrade", "downgrade", "swap", "transition",
                    # an amount that changed: "bumped my lisinopril to 20 mg", "raised it to 75 mcg"
                    "bump", "raise", "increase", "lower", "reduce", "double", "halve", "adjust"})
REPLACE = frozenset({"trade", "swap", "exchange", "replace", "substitute"})
STOP = frozenset({"stop", "quit", "drop", "abandon", "retire", "remove", "deprecate", "sell", "cancel", "leave"})
# words that say a clause's value is new: such a clause states a change even without a change verb
# ("I'm back in Sydney for good now", "I became charge nurse", "lately my favourite band is Big Thief")
CHANGE_CUE = re.compile(r"\b(?:now|new|newly|became|become|becomes|lately|these days|nowadays|anymore|"
                        r"no longer|instead|from now on|for good|currently)\b", re.I)
# who acts on a thing without being its slot's subject ("the team ported billing to Kotlin")
AGENTS = frozenset({"team", "someone", "somebody", "they", "everyone", "engineering", "ops", "devops", "platform"})
_PRONOUNS = frozenset({"it", "they", "this", "that", "he", "she", "them", "me", "us", "you", "him", "her"})
_FIRST = frozenset({"i", "we"})
_COMMON = frozenset({"that", "this", "with", "from", "they", "their", "them", "what", "which", "such", "person",
                     "people", "thing", "things", "takes", "uses", "works", "where", "when", "into", "about", "team",
                     "name", "stores", "runs"})
_DETS = frozenset({"the", "a", "an", "our", "my", "their", "its", "his", "her", "this", "that", "your"})

_EXEMPLARS: weakref.WeakKeyDictionary[Any, dict[str, _Exemplars]] = weakref.WeakKeyDictionary()


def ontology_tag(vocab: Vocabulary) -> str:
    """What an extractor's version says of the ontology it read: nothing for the default, else its
    version (so facts record which ontology made them)."""
    from ..core.ontology import default_ontology

    return "" if vocab.version == default_ontology().version else f"+ontology:{vocab.version}"


@dataclass(frozen=True)
class Reading:
    subject: str
    verb: str
    object: str
    text: str  # the clause as words, for the embedding
    shape: str  # plain | change | hand_over | rewrite | end
    object_proper: bool
    old: str | None = None  # the value a change left ("from A to B": A), which ends
    moved: str | None = None  # what the clause acts on ("we moved the wiki to Notion": the wiki)


class MeaningReader:
    def __init__(self, vocab: Vocabulary, embedder: Embedder | None, threshold: float = MEANING_THRESHOLD,
                 margin: float = MEANING_MARGIN):
        self.vocab, self.embedder = vocab, embedder
        self.threshold, self.margin = threshold, margin
        self.active = [p for p in vocab.predicates.values() if p.examples]
        self.types = frozenset(t.lower() for t in vocab.entity_types)
        self.people = frozenset(vocab.relations)  # "my brother", "my boss": people of the speaker's
        # Under the default ontology only clauses that state a change are read by meaning (the phrase
        # patterns read the rest): read whole, chit-chat became facts (LoCoMo dev: 134 -> 571 current
        # facts, end-to-end recall@10 73.3 -> 60.2). A group's own ontology is read whole.
        self.changes_only = ontology_tag(vocab) == ""
        # words that name a slot itself ("doctor", "contact", "goal"): a clause whose subject is one
        # of them says whose slot it is through that noun's owner ("my doctor", "our contact at Hooli")
        words = {p.name: {w for w in re.findall(r"[a-z]+", f"{p.name} {p.description}")
                          if len(w) >= 3 and w not in _COMMON} for p in self.active}
        self.slot_words = frozenset(w for ws in words.values() for w in ws)
        # the words only one predicate's name and description use ("school", "car", "boss"): a clause
        # that says one leans to that predicate
        self.cues = {name: frozenset(w for w in ws if not any(w in other for n, other in words.items() if n != name))
                     for name, ws in words.items()}

    @property
    def aims(self) -> frozenset[str]:
        """The predicates whose own examples are said as wishes: a wish states their value."""
        return frozenset(p.name for p in self.active if any(_HYPOTHETICAL.search(e) for e in p.examples))

    @property
    def enabled(self) -> bool:
        return bool(self.active) and self.embedder is not None and parse.parser_available()

    def read(self, sentence: str, speaker: str, t: datetime) -> list[ExtractedFact]:
        """The facts a sentence states about the ontology's own predicates."""
        if not self.enabled:
            return []
        span = dates.resolve(sentence, t)
        start = span.start if span is not None else t
        if sentence.rstrip().endswith("?"):
            return []  # a question states nothing
        # a wish states nothing, except of a slot that is itself an aim ("I want to run a marathon")
        wish = bool(_HYPOTHETICAL.search(sentence))
        doc = parse.parsed(sentence)
        parsed = readings(doc, speaker, self.types, self.slot_words, self.people)
        matched = [m for r in parsed if (m := self._match(r, speaker, wish))]
        if not matched and not any(r.shape in ("hand_over", "rewrite") for r in parsed):
            # the small parser misread the clause ("stores" as a noun): read its surface
            matched = [m for r in surface_readings(doc, speaker, self.types, self.slot_words, self.people)
                       if (m := self._match(r, speaker, wish))]
        out = []
        for r, (spec, others, unsure) in matched:
            for value, ending in ((r.object, r.shape == "end"), *(((r.old, True),) if r.old else ())):
                obj = value if (spec.object_kind == "entity" or r.object_proper) else value.lower()
                statement = spec.render(r.subject, obj)
                out.append(ExtractedFact(subject=r.subject, predicate=spec.name, object=obj, statement=statement,
                                         valid_from=start, dated=span is not None,
                                         object_kind="entity" if spec.object_kind == "entity" else "value",
                                         ending=ending, confidence=0.9, alternatives=others, needs_slot=unsure,
                                         replaces=r.old or ""))
        return out

    def predicate(self, r: Reading, things_only: bool = False) -> tuple[Predicate, float] | None:
        """The active predicate nearest in meaning to the reading, when near enough and clearly
        nearer than the next. Nearness blends two cosines: the clause as said against each
        predicate's examples, description and ``ends`` (the topic), and the clause with its subject
        and value masked against the examples masked alike (the relation's wording alone)."""
        scores = self._scores(r, things_only)
        ranked = sorted(scores.items(), key=lambda kv: -kv[1])
        if not ranked:
            return None
        top, score = ranked[0]
        runner = ranked[1][1] if len(ranked) > 1 else -1.0
        floor = SHAPE_THRESHOLD if r.shape in ("change", "hand_over", "rewrite") else self.threshold
        if score < floor or score - runner < self.margin:
            return None
        return self.vocab.predicates[top], score

    def _match(self, r: Reading, speaker: str, wish: bool) -> tuple[Reading, _Slots] | None:
        """A reading and its slots. A clause in which the speaker (or a team) acts on a thing ("we moved
        the wiki to Notion") is first read as the thing's, under the predicates said of things."""
        if not self._worth(r):
            return None
        if r.moved and (r.subject == speaker or r.subject.lower() in AGENTS):
            thing = replace(r, subject=r.moved)
            found = self.slots(thing, things_only=True)
            if found and (not wish or found[0].name in self.aims):
                return thing, found
        # a thing handed over or rewritten is a thing's slot ("Priya handed billing over to Tom"), never a
        # person's ("the billing service's partner is Tom")
        found = self.slots(r, things_only=r.shape in ("hand_over", "rewrite"))
        if found and self.changes_only and r.shape == "plain":
            # a light verb states little even with a word of change ("I have a car now")
            clear = None if r.verb in parse.LIGHT_VERBS else self.predicate(r)
            found = found if clear is not None and clear[1] >= CUE_THRESHOLD else None
        return (r, found) if found and (not wish or found[0].name in self.aims) else None

    def slots(self, r: Reading, things_only: bool = False) -> _Slots | None:
        """The predicate of a reading, as ``predicate`` finds it; and for a change, the other slots
        near it in meaning, which the pipeline settles by what the subject holds (a change changes a
        slot the thing has). A change too near another to call is kept only for a slot held."""
        clear = self.predicate(r, things_only)
        if r.shape == "plain":
            return None if clear is None else (clear[0], (), False)
        ranked = sorted(self._scores(r, things_only).items(), key=lambda kv: -kv[1])
        if not ranked or ranked[0][1] < SHAPE_THRESHOLD:
            return None
        top = ranked[0][1]
        near = tuple(p for p, sc in ranked[1:] if sc >= SHAPE_THRESHOLD and top - sc <= SLOT_BAND
                     and self.vocab.is_single(p))
        return self.vocab.predicates[ranked[0][0]], near, clear is None

    def _scores(self, r: Reading, things_only: bool = False) -> dict[str, float]:
        """Each predicate's blended nearness to the reading (those whose value class the value fits;
        with ``things_only``, of those said of things)."""
        assert self.embedder is not None
        ex = self._exemplars()
        said, masked = self.embedder.embed([r.text, mask(r.text, r.subject, r.object)])
        raw = _best_per_owner(ex.raw @ np.asarray(said, dtype=np.float32), ex.raw_owners)
        shape = _best_per_owner(ex.masked @ np.asarray(masked, dtype=np.float32), ex.masked_owners)
        said_words = {w.lower() for w in re.findall(r"[A-Za-z]+", r.text)}
        said_words |= {w[:-1] for w in said_words if w.endswith("s")}
        kind = value_shape(r.object)
        return {p: (MASK_WEIGHT * shape[p] + (1 - MASK_WEIGHT) * s if p in shape else s)
                + (CUE_BONUS if self.cues.get(p, frozenset()) & said_words else 0.0)
                + _shape_bonus(kind, ex.shapes.get(p, frozenset()))
                + (OWN_BONUS if p in self.vocab.own else 0.0)
                for p, s in raw.items() if self._takes(p, r.object) and (not things_only or self._of_things(p))}

    def plausible(self, sentence: str, subject: str, value: str, predicate: str) -> bool:
        """Does a fact someone else proposed (a model) state what the sentence says? Not when the
        sentence is a question or a wish, nor when the predicate is far from it in meaning: below
        ``VERIFY_FLOOR`` of the blend, or more than ``VERIFY_GAP`` below the nearest predicate
        ("I switched to a Samsung Galaxy": uses_phone 0.65, has_pet far below)."""
        if sentence.rstrip().endswith("?") or _HYPOTHETICAL.search(sentence):
            return False
        spec = self.vocab.predicates.get(predicate)
        if spec is None or not spec.examples or self.embedder is None:
            return True  # an open predicate, or one with nothing to compare against
        scores = self._scores(Reading(subject, "", value, sentence, "plain", True))
        score = scores.get(predicate, 0.0)
        return score >= VERIFY_FLOOR and score >= max(scores.values(), default=0.0) - VERIFY_GAP

    def _of_things(self, predicate: str) -> bool:
        """Do the predicate's own examples say it of things ("The billing service uses Postgres"),
        not of the speaker ("I take 20 mg of lisinopril")? Then a clause the speaker acts in ("we
        moved billing to Spanner") states it of what the speaker acts on."""
        if predicate not in self.vocab.own:
            return False  # the built-in ontology is personal life: its slots are people's
        return self._exemplars().speaker_share.get(predicate, 1.0) <= 0.5  # not most of them

    def _worth(self, r: Reading) -> bool:
        return not self.changes_only or r.shape != "plain" or bool(CHANGE_CUE.search(r.text))

    def _takes(self, predicate: str, value: str) -> bool:
        """A value-class predicate takes only a word of its class ("Siemens" is no job title); a
        predicate whose examples all give a number ("500 mg", "12 Elm Street") takes only a value
        with one ("naproxen" is no dose, "Melbourne" no street address)."""
        ex = self._exemplars()
        if predicate in ex.numbered and not _has_number(value):
            return False
        if predicate in ex.named and not any(c.isupper() for c in value):
            return False  # a slot whose examples all name someone or something takes a name
        spec = self.vocab.predicates[predicate]
        if not spec.value_class:
            return True
        low = value.lower()
        return any(low == w or low.endswith(" " + w) or low.startswith(w + " ")
                   for w in self.vocab.value_classes.get(spec.value_class, ()))

    def _exemplars(self) -> _Exemplars:
        assert self.embedder is not None
        cache = _EXEMPLARS.setdefault(self.embedder, {})
        if self.vocab.version not in cache:
            raw, raw_owners, masked, masked_owners = [], [], [], []
            shapes: dict[str, set[str]] = {}
            mine: dict[str, list[bool]] = {}
            numbered: dict[str, list[bool]] = {}
            named: dict[str, list[bool]] = {}
            for p in self.active:
                for text in (p.description, *p.examples, *(f"{e} it" for e in p.ending)):
                    raw.append(text)
                    raw_owners.append(p.name)
                for example in p.examples:
                    found = _example_reading(example, self.types, self.slot_words)
                    if found is not None:
                        masked.append(mask(example, found.subject, found.object))
                        masked_owners.append(p.name)
                        numbered.setdefault(p.name, []).append(_has_number(found.object))
                        named.setdefault(p.name, []).append(any(c.isupper() for c in found.object))
                    shapes.setdefault(p.name, set()).update(_shapes_in(example))
                    mine.setdefault(p.name, []).append(_said_of_speaker(example, self.types, self.slot_words))
            cache[self.vocab.version] = _Exemplars(
                np.asarray(self.embedder.embed(raw), dtype=np.float32), raw_owners,
                np.asarray(self.embedder.embed(masked or ["-"]), dtype=np.float32), masked_owners,
                {name: frozenset(found) for name, found in shapes.items()},
                {name: sum(said) / len(said) for name, said in mine.items()},
                frozenset(name for name, has in numbered.items() if len(has) >= 2 and all(has)),
                frozenset(name for name, has in named.items() if len(has) >= 2 and all(has)))
        return cache[self.vocab.version]


_Slots = tuple[Predicate, tuple[str, ...], bool]  # the predicate, the other slots a change may be of, unsure


@dataclass(frozen=True)
class _Exemplars:
    raw: np.ndarray
    raw_owners: list[str]
    masked: np.ndarray
    masked_owners: list[str]
    shapes: dict[str, frozenset[str]]  # the value shapes (below) each predicate's examples say
    speaker_share: dict[str, float]  # the share of each predicate's examples said of the speaker
    numbered: frozenset[str]  # the predicates whose examples' values all have a number
    named: frozenset[str]  # the predicates whose examples' values are all names


# an amount as said: a number (digits or words, "and a half"), then a unit of UNITS
_NUMBER = (r"(?:\$?\d[\d,.]*k?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
           r"thirty|forty|fifty|hundred)(?:\s+and\s+a\s+half)?")
_PHONE = re.compile(r"\b\d{3}[-. ]\d{3,4}(?:[-. ]\d{3,4})?\b")


def _amount_rx() -> re.Pattern[str]:
    units = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
    return re.compile(rf"(?<![\w-]){_NUMBER}\s*(?:{units})(?![\w-])|\$\d[\d,.]*k?\b", re.I)


def value_shape(value: str) -> str | None:
    """The shape of a value that says which slots may hold it: ``phone`` (555-0134), ``amount:<unit>``
    (500 mg, $40k), or None for words and names, which meaning alone places."""
    if _PHONE.fullmatch(value.strip()):
        return "phone"
    found = _AMOUNT.fullmatch(value.strip())
    if found is None:
        return None
    low = value.strip().lower()
    unit = "$" if low.startswith("$") else re.sub(r"^[\d,.]+", "", low.split()[-1])
    return f"amount:{unit[:-1] if len(unit) > 2 and unit.endswith('s') else unit}"


_NUMBER_WORD = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
                          r"thirty|forty|fifty|hundred)\b", re.I)


def _has_number(value: str) -> bool:
    return any(c.isdigit() for c in value) or bool(_NUMBER_WORD.search(value))


def _shape_bonus(kind: str | None, shapes: frozenset[str]) -> float:
    """A value of the shape a predicate's examples say leans to it: fully for the same unit, half
    for another amount ("1000 IU" for a dose said in mg)."""
    if kind is None:
        return 0.0
    return CUE_BONUS if kind in shapes else CUE_BONUS / 2 if kind.split(":")[0] in shapes else 0.0


def _shapes_in(example: str) -> set[str]:
    """The value shapes an example sentence says."""
    out = {value_shape(m.group(0)) for m in _AMOUNT.finditer(example)}
    out |= {"phone" for _ in _PHONE.finditer(example)}
    return {s for s in out if s} | {s.split(":")[0] for s in out if s}


def _best_per_owner(sims: np.ndarray, owners: list[str]) -> dict[str, float]:
    best: dict[str, float] = {}
    for i, owner in enumerate(owners):
        best[owner] = max(best.get(owner, -1.0), float(sims[i]))
    return best


def _example_reading(example: str, types: frozenset[str], slot_words: frozenset[str] = frozenset()) -> Reading | None:
    """The subject and value of one of a predicate's own examples, to mask them."""
    doc = parse.parsed(example)
    for r in [*readings(doc, "User", types, slot_words), *surface_readings(doc, "User", types, slot_words)]:
        if r.object.lower() in example.lower() and (r.subject == "User" or r.subject.lower() in example.lower()):
            return r  # the speaker ("I", "my") is a subject too
    return None


def _said_of_speaker(example: str, types: frozenset[str], slot_words: frozenset[str]) -> bool:
    """Is one of a predicate's examples said of the speaker ("I take 20 mg", "my dose is 500 mg")?"""
    doc = parse.parsed(example)
    found = readings(doc, "User", types, slot_words) or surface_readings(doc, "User", types, slot_words)
    return bool(found) and found[0].subject == "User" and not found[0].moved


def mask(text: str, subject: str, value: str) -> str:
    """The clause with its value as X and its subject as S: what is left is how the relation is said."""
    out = re.sub(re.escape(value), "X", text, flags=re.I) if value else text
    if subject:
        out = re.sub(rf"\b(?:the\s+)?{re.escape(subject)}(?:\s+\w+)?(?=\s+(?:is|was|has|uses|runs|keeps|stores|deploys|"
                     rf"got|moved|switched|migrated)\b)|\b(?:the\s+)?{re.escape(subject)}\b", "S", out, count=1,
                     flags=re.I)
    return out


# -- clauses off the parse ----------------------------------------------------------------------
_HYPOTHETICAL = re.compile(r"\b(?:would|should|could|might|may|someday|one day|if|hope to|want to|wanna|"
                           r"thinking (?:about|of)|planning to|plan to|gonna|going to|'d love)\b", re.I)


def readings(doc: Any, speaker: str, types: frozenset[str] = frozenset(),
             slot_words: frozenset[str] = frozenset(), people: frozenset[str] = frozenset()) -> list[Reading]:
    """Every clause of a parsed sentence that has a subject (or a topic it continues) and an object."""
    out: list[Reading] = []
    topic: str | None = None
    for verb in (t for t in doc if _is_verb(t)):
        subject, topic = _subject_of(verb, speaker, topic, types, slot_words, people)
        reading = _inverse_copula(verb, speaker, types, slot_words) or _reading(verb, subject, types, speaker)
        if reading is not None:
            moved = _moved_thing(verb, types)
            if moved and not _overlaps(moved, reading.object) and not _possessed(verb) \
                    and moved.split()[-1].lower() not in slot_words:  # "got a new number: 555-9090" names the slot
                reading = replace(reading, moved=moved)
            if reading.shape == "change" and reading.subject != speaker and _possessed(verb):
                reading = replace(reading, subject=speaker)  # "the doctor swapped my omeprazole for X": mine
            if reading.shape == "plain" and out and out[-1].shape == "end" and verb.dep_ == "conj":
                reading = replace(reading, shape="change")  # "sold my Civic and bought a Tesla": the new value
            out.append(reading)
            if reading.subject != speaker:
                topic = reading.subject
        topic = _moved_thing(verb, types) or topic
    return out


def _overlaps(a: str, b: str) -> bool:
    """Do two phrases share a word ("mg" and "10 mg")?"""
    return bool(set(a.lower().split()) & set(b.lower().split()))


def _possessed(verb: Any) -> bool:
    """Is what the clause acts on the speaker's ("I moved my care to Dr. Sato")?"""
    dobj = next((k for k in verb.children if k.dep_ == "dobj"), None)
    return dobj is not None and any(k.dep_ == "poss" and k.lower_ in ("my", "our") for k in dobj.children)


def _is_verb(t: Any) -> bool:
    """A clause's verb; also a verb the small parser took for a noun coordinated with an object
    ("uses Postgres and deploys to Heroku": deploys/NOUN, conj of Postgres, with its own preposition)."""
    if t.pos_ in ("VERB", "AUX") and t.dep_ in ("ROOT", "conj", "ccomp", "advcl", "xcomp", "parataxis"):
        if t.dep_ == "xcomp" and t.head.lemma_.lower() in STOP:
            return False  # "stopped using Memcached": the stop is the clause, "using" its slot
        return not (t.dep_ == "xcomp" and t.head.lemma_.lower() in CHANGE and not any(
            k.dep_ in ("dobj", "nsubj") for k in t.children))  # "migrating billing off": billing is a thing
    return t.dep_ == "conj" and t.pos_ == "NOUN" and t.head.dep_ == "dobj" and any(
        k.dep_ == "prep" for k in t.children)


def _moved_thing(verb: Any, types: frozenset[str]) -> str | None:
    """What a clause moves or works on, which a following "it" continues: its object, or what the
    small parser took for a verb under a change verb ("migrating billing off Postgres")."""
    dobj = next((k for k in verb.children if k.dep_ == "dobj"), None)
    if dobj is not None and dobj.pos_ in ("NOUN", "PROPN"):
        return _phrase(dobj, types)
    if verb.lemma_.lower() in CHANGE:
        thing = next((k for k in verb.children if k.dep_ == "xcomp" and not _is_verb(k)), None)
        return None if thing is None else thing.text
    return None


def _subject_of(verb: Any, speaker: str, topic: str | None, types: frozenset[str],
                slot_words: frozenset[str] = frozenset(), people: frozenset[str] = frozenset()
                ) -> tuple[str | None, str | None]:
    subj = next((k for k in verb.children if k.dep_ in ("nsubj", "nsubjpass")), None)
    head = verb
    while subj is None and head.dep_ in ("conj", "xcomp", "dobj") and head.head is not head:
        head = head.head  # a coordinated verb, or one the parser hung on the first verb's object
        subj = next((k for k in head.children if k.dep_ in ("nsubj", "nsubjpass")), None)
    if subj is None:
        return None, topic
    low = subj.lower_
    if low in _FIRST:
        return speaker, topic
    if low in _PRONOUNS:
        return topic, topic
    if subj.pos_ == "NOUN" and (subj.lemma_.lower() in slot_words or _mine_said_as(subj, verb, people)):
        owner = _owner(subj, speaker, types)
        if owner is not None:
            return owner, owner
    phrase = _phrase(subj, types)
    return phrase, phrase


def _mine_said_as(subj: Any, verb: Any, people: frozenset[str]) -> bool:
    """"My vitamin D is 1000 IU", "my cell is 555-4400": a thing of the speaker's that the copula gives
    a value is the speaker's slot; not a person of theirs ("my brother is a nurse" is the brother's)."""
    return verb.lemma_ == "be" and subj.lemma_.lower() not in people and any(
        k.dep_ == "poss" and k.lower_ in ("my", "our") for k in subj.children) and any(
        _numeric(t) for t in verb.subtree if t.i > subj.i)  # a number: "my roommate is into board games" is not


def _inverse_copula(verb: Any, speaker: str, types: frozenset[str], slot_words: frozenset[str]) -> Reading | None:
    """"Luis is my boss now", "Dana is the contact at Globex": the slot noun is the complement, its
    owner the subject of the slot, and the copula's subject the value."""
    if verb.lemma_ != "be":
        return None
    subj = next((k for k in verb.children if k.dep_ == "nsubj"), None)
    attr = next((k for k in verb.children if k.dep_ == "attr"), None)
    if subj is None or attr is None or attr.lemma_.lower() not in slot_words or not _is_name(subj):
        return None
    owner = _owner(attr, speaker, types)
    return None if owner is None else _made(owner, "be", subj, _clause_text(verb), "plain")


def _owner(noun: Any, speaker: str, types: frozenset[str]) -> str | None:
    """Whose slot a noun that names the slot speaks of: "my doctor" the speaker's, "Hooli's contract"
    and "the Hooli contract" Hooli's, "our contact at Hooli" Hooli's."""
    for k in noun.children:
        if k.dep_ == "prep" and k.lower_ in ("at", "with", "for", "of", "on"):
            obj = _pobj(k)
            if obj is not None and obj.lower_ in ("me", "us"):
                return speaker  # "home for me is Minneapolis"
            if obj is not None and _is_name(obj):
                return _phrase(obj, types)
    for k in noun.children:
        if k.dep_ == "poss":
            if k.lower_ in ("my", "our"):
                return speaker
            if _is_name(k):
                return _phrase(k, types).removesuffix("'s").removesuffix("’s").strip()
        if k.dep_ == "compound" and k.pos_ == "PROPN":
            return k.text
    return None


def _reading(verb: Any, subject: str | None, types: frozenset[str], speaker: str = "User") -> Reading | None:
    lemma = verb.lemma_.lower()
    kids = list(verb.children)
    dobj = next((k for k in kids if k.dep_ in ("dobj", "attr")), None)
    preps = {k.lower_: _pobj(k) for k in kids if k.dep_ in ("prep", "agent", "prt", "dative")}
    if dobj is not None:  # "rewrote the parser in Go": the small parser hangs "in Go" on the object
        preps.update({k.lower_: _pobj(k) for k in dobj.children if k.dep_ == "prep" and k.lower_ not in preps
                      and k.lower_ in ("in", "to", "over")})
    source = next((k for k in kids if k.lower_ == "from"), None)
    if source is not None and preps.get("to") is None:  # "from A to B", the parser hanging "to B" on A
        preps["to"] = next((_pobj(k) for h in (source, preps.get("from")) if h is not None for k in h.children
                            if k.dep_ == "prep" and k.lower_ == "to"), None)
    # "cut it down to 10 mg", "went up to 50 mg": a level that moved, whatever the verb
    level = next((_pobj(p) for k in kids if k.lower_ in ("up", "down") for p in k.children
                  if p.dep_ == "prep" and p.lower_ == "to"), None)
    if level is not None and preps.get("to") is None:
        preps["to"] = level
    thing = next((k for k in kids if k.dep_ == "xcomp" and not _is_verb(k)), None) if lemma in CHANGE else None
    if thing is not None:  # "moved reporting from Snowflake to BigQuery": the parser took "reporting" for a verb
        preps.update({k.lower_: _pobj(k) for k in thing.children if k.dep_ == "prep" and k.lower_ not in preps})
    if dobj is None and not any(v is not None for v in preps.values()):
        dobj = _amount(verb)  # "I was prescribed 20 mg of X": the parser hung the amount off the clause
    said = next((k for k in dobj.children if k.dep_ == "appos"), None) if dobj is not None else None
    if said is not None:  # "I got a new number: 555-9090": the value is what the noun is said to be
        dobj = said
    # "no longer uses", "doesn't use it anymore" end a slot; a plain "didn't get the job" ends nothing
    negated = any(k.lower_ in ("longer", "anymore") for k in verb.subtree)
    if any(k.dep_ == "neg" for k in kids) and not negated:
        return None
    xcomp = next((k for k in kids if k.dep_ == "xcomp" and k.pos_ == "VERB"), None)
    if lemma in HAND_OVER and dobj is not None and _someone(preps.get("to")):
        x, b = _phrase(dobj, types), preps["to"]
        return _made(x, lemma, b, f"{x} is now owned by {_text(b)}", "hand_over")
    into = preps.get("in") if preps.get("in") is not None else preps.get("to")  # "ported billing to Kotlin"
    if lemma in REWRITE and dobj is not None and into is not None and _is_name(into):
        x, b = _phrase(dobj, types), into
        return _made(x, lemma, b, f"{x} is written in {_text(b)}", "rewrite")
    if subject is None:
        return None
    if lemma in REPLACE:  # "traded in the Civic for a Subaru", "replaced ClickHouse with Druid"
        new = preps.get("for") if preps.get("for") is not None else preps.get("with")
        old = dobj if dobj is not None else preps.get("in")
        if new is not None:
            made = _made(subject, lemma, new, _clause_text(verb), "change")
            return made if made is None or old is None else replace(made, old=_text(old))
    if lemma in STOP and xcomp is not None:  # "stopped using Mongo": the slot of "using" ends
        obj = next((k for k in xcomp.children if k.dep_ == "dobj"), None)
        return None if obj is None else _made(subject, xcomp.lemma_, obj, f"{subject} {xcomp.lemma_} {_text(obj)}",
                                              "end")
    if lemma in STOP and dobj is not None:  # "I quit the Zone 2 plan": the slot that held it ends
        return _made(subject, lemma, dobj, _clause_text(verb), "end")
    if negated:  # "no longer uses Postgres": the slot of the clause without its negation ends
        obj = dobj if dobj is not None else next((v for v in preps.values() if v is not None), None)
        return None if obj is None else _made(subject, lemma, obj, _clause_text(verb, drop_negation=True), "end")
    if preps.get("to") is not None and (lemma in CHANGE or preps.get("from") is not None or level is not None):
        b, a = preps["to"], preps.get("from")
        mine = dobj is not None and (dobj.lower_ in ("me", "us") or any(
            k.dep_ == "poss" and k.lower_ in ("my", "our") for k in dobj.children))  # "switched me from A to B"
        # "My doctor bumped my lisinopril to 20 mg": what changed is the speaker's, whoever changed it
        made = _made(speaker if mine else subject, lemma, b, _clause_text(verb), "change")
        return made if made is None or a is None else replace(made, old=_text(a))
    named = next((o for p, o in preps.items() if o is not None and _is_name(o) and p not in _NOT_VALUE), None)
    if dobj is not None and (_is_name(dobj) or named is None):
        return _made(subject, lemma, dobj, _clause_text(verb), "plain")
    for prep, obj in preps.items():
        if obj is not None and prep not in _NOT_VALUE and (named is None or obj is named):
            return _made(subject, lemma, obj, _clause_text(verb), "plain")
    return None


def _amount(verb: Any) -> Any | None:
    """A unit with its number in the clause ("500 mg", "eight hours"), wherever the parser hung it."""
    return next((t for t in verb.subtree if t.lower_ in UNITS and t is not verb
                 and any(_numeric(k) for k in t.children if k.dep_ == "nummod")), None)


# prepositions whose object is not the slot's value (where from, what for, when)
_NOT_VALUE = frozenset({"off", "from", "for", "since", "after", "before", "during", "until", "about", "with"})


def _someone(tok: Any) -> bool:
    """A recipient a thing can be handed to: a name or a known one ("Tom", "the SRE team"), not any
    one ("give all my love to a child")."""
    return tok is not None and (_is_name(tok) or not any(k.lower_ in ("a", "an", "some", "any")
                                                          for k in tok.children))


def _is_name(tok: Any) -> bool:
    return tok.pos_ == "PROPN" or any(c.isupper() for c in tok.text)


# a time said inside the value's phrase, which belongs to the clause's date ("Memcached last sprint")
_WHEN_TAIL = re.compile(r"\s+(?:last|next|this|every|each)\s+\w+$", re.I)
_WHEN = re.compile(r"^(?:last|next|this|every|each|that)\s|^(?:today|yesterday|tomorrow|now)$"
                   r"|^(?:1[89]|20)\d\ds?$|^(?:mon|tues|wednes|thurs|fri|satur|sun)day$|^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?(?:\s+\d{1,4})?$",
                   re.I)  # a time is the clause's date, never a slot's value ("from 2018 to 2021")


def _made(subject: str, verb: str, obj: Any, text: str, shape: str) -> Reading | None:
    value = _text(obj)
    if not value or value.lower() in _PRONOUNS or not subject or _WHEN.match(value):
        return None
    # a name keeps its case ("CockroachDB", which the small parser may tag a pronoun)
    named = obj.pos_ == "PROPN" or any(c.isupper() for c in value)
    return Reading(subject, verb, value, re.sub(r"\s+", " ", text).strip(), shape, named)


def _pobj(prep: Any) -> Any | None:
    """A preposition's object; or the name right after it, which the small parser sometimes hangs
    elsewhere ("switched to CockroachDB": CockroachDB/advmod of the verb)."""
    if prep.dep_ == "prt":
        return None
    found = next((k for k in prep.children if k.dep_ in ("pobj", "pcomp")), None)
    if found is None and prep.i + 1 < len(prep.doc):
        after = prep.doc[prep.i + 1]
        if after.text[:1].isupper() and after.is_alpha and after.dep_ in ("advmod", "npadvmod", "dobj", "attr"):
            return after
    if found is not None and found.pos_ == "VERB":  # "changed to finishing a sprint triathlon": what it is of
        return next((k for k in found.children if k.dep_ == "dobj"), found)
    return found


def _phrase(tok: Any, types: frozenset[str]) -> str:
    """A noun phrase without its determiners, and without a closing word that only names its
    entity type ("the billing service" is "billing" when the ontology has the type service)."""
    words = [t for t in tok.subtree if t.dep_ in ("compound", "amod", "flat", "nmod") or t == tok]
    words = [t for t in words if t.i <= tok.i and t.lower_ not in _DETS]
    text = " ".join(t.text for t in words)
    parts = text.split()
    if len(parts) > 1 and parts[-1].lower() in types:
        parts = parts[:-1]
    return " ".join(parts)


def _text(tok: Any) -> str:
    """A value as said: the words of its phrase up to its head (no determiner or possessive before
    them), then what the surface glues on after it: a hyphen or dot run ("555-0134", "6.5"), a
    number after a name or number ("Zone 2", "555 300 1122"), a unit after a number ("500 mg",
    "six and a half hours") and a bound after a target ("A1C under 6.5")."""
    doc, start = tok.doc, tok.i
    inside = {t.i for t in tok.subtree} - {t.i for k in tok.children if k.dep_ in _NOT_OF_VALUE for t in k.subtree}
    while start - 1 in inside and not doc[start - 1].is_punct or start - 1 in inside and _glued(doc[start - 1]):
        start -= 1
    end = _value_end(doc, tok.i)
    words = doc[start:end + 1]
    while len(words) > 1 and words[0].lower_ in _DETS:
        words = words[1:]
    text = "".join(t.text_with_ws for t in words).strip()
    return parse.TIME_TAIL.sub("", _WHEN_TAIL.sub("", text)).strip()


# dependents of a value's head that are not part of the value ("my doctor's", "the", "a")
_NOT_OF_VALUE = frozenset({"det", "poss", "predet", "case", "relcl", "acl", "prep", "appos", "punct", "cc"})
# the units a number is said with; the closed class that makes "500" the value "500 mg"
UNITS = frozenset({"mg", "mcg", "µg", "g", "kg", "lb", "lbs", "pound", "pounds", "iu", "ml", "unit", "units",
                   "hour", "hours", "hr", "hrs", "minute", "minutes", "min", "mins", "km", "k", "mile", "miles",
                   "percent", "%", "bpm", "gb", "tb", "ms", "seats", "users", "steps", "reps"})
_BOUNDS = frozenset({"under", "below", "above", "over"})
_AMOUNT = _amount_rx()


def _glued(t: Any) -> bool:
    """A token written against the next with no space: a hyphen or slash run ("555-0134", "sub-two-hour")."""
    return t.whitespace_ == "" and t.text in ("-", "–", "/", ".") and t.i + 1 < len(t.doc) \
        and t.doc[t.i + 1].text[:1].isalnum()


def _numeric(t: Any) -> bool:
    return bool(t.like_num) or any(c.isdigit() for c in t.text)


def _value_end(doc: Any, end: int) -> int:
    """The last token of a value whose head is ``doc[end]``: the surface runs of ``_text``'s doc."""
    while end + 1 < len(doc):
        cur, nxt = doc[end], doc[end + 1]
        joined = cur.whitespace_ == "" and (nxt.is_alpha or _numeric(nxt) or _glued(nxt)) \
            and not nxt.text.startswith(("'", "’")) and (cur.text in ("-", "–", "/", ".") or _glued(nxt)
                                                          or _numeric(cur) or _numeric(nxt))
        if joined or (_glued(cur) and end + 1 < len(doc)):
            end += 1
        elif _numeric(nxt) and (_numeric(cur) or cur.pos_ == "PROPN" or cur.text[:1].isupper()):
            end += 1  # "555 300 1122", "Zone 2", "iPhone 12"
        elif _numeric(cur) and nxt.lower_ in UNITS:
            end += 1
        elif _numeric(cur) and [t.lower_ for t in doc[end + 1:end + 4]] == ["and", "a", "half"]:
            end += 3
        elif nxt.lower_ in _BOUNDS and end + 2 < len(doc) and _numeric(doc[end + 2]) and not _numeric(cur):
            end += 2
        else:
            break
    return end


def _clause_text(verb: Any, drop_negation: bool = False) -> str:
    """The clause's own words as said: the verb's subtree without the other clauses coordinated
    with it, and with its subject when that hangs on another verb ("... and deploys to Heroku")."""
    others = {t.i for k in verb.subtree if k is not verb and k.dep_ in ("conj", "ccomp", "parataxis")
              and _is_verb(k) for t in k.subtree}
    skip = {"neg", "cc"} | ({"advmod"} if drop_negation else set())
    words = [t for t in verb.subtree if t.i not in others and t.dep_ not in skip and not t.is_punct]
    if not any(t.dep_ in ("nsubj", "nsubjpass") for t in words):
        head = verb.head
        subj = next((k for k in head.children if k.dep_ in ("nsubj", "nsubjpass")), None)
        if subj is not None:
            words = [*subj.subtree, *words]
    return " ".join(t.text for t in sorted(words, key=lambda t: t.i))


_NAMED = re.compile(r"[A-Z0-9][\w.'’/-]*(?:\s+(?:[A-Z0-9][\w.'’/-]*|(?:of|de|la)\b))*")
_CHANGE_WORDS = re.compile(r"\b(?:moved|migrated|switched|changed|swapped|replaced|upgraded|downgraded|went|"
                           r"transferred|handed|passed|ported|rewrote|rewritten)\b", re.I)


def surface_readings(doc: Any, speaker: str, types: frozenset[str],
                     slot_words: frozenset[str] = frozenset(), people: frozenset[str] = frozenset()) -> list[Reading]:
    """A reading of the whole sentence off its words, where the parse gave nothing usable: the
    subject is its first noun phrase (or the thing a "we moved X" moves), the value the name after
    "to" in a change, else the last name after the subject; ``no longer`` and ``stopped`` end."""
    chunks = [c for c in doc.noun_chunks if c.root.lower_ not in _PRONOUNS]
    if not chunks:
        return []
    # the clause's subject; none said ("Packed everything up and moved to Dublin"): the speaker
    first = next((c for c in chunks if c.root.dep_ in ("nsubj", "nsubjpass")), None)
    if first is None:
        first = next(c for c in doc.noun_chunks if c.root.lower_ in _FIRST) if any(
            c.root.lower_ in _FIRST for c in doc.noun_chunks) else None
    if first is None:
        if _someone_else(doc):
            return []  # "He moved to Utrecht": someone this sentence does not name, never the speaker
        return _surface_value(doc, speaker, doc.text)
    subject_chunk = first
    moved = chunks[1].root if len(chunks) > 1 else None
    if first.root.lower_ in _FIRST and moved is not None and moved.dep_ == "dobj" \
            and moved.head.lemma_.lower() in CHANGE | HAND_OVER | REWRITE \
            and moved.lemma_.lower() not in slot_words:  # "we moved the web app"; "I switched schools": mine
        subject_chunk = chunks[1]
    root = subject_chunk.root
    mine = root.lemma_.lower() in slot_words or _mine_said_as(root, root.head, people)
    owner = _owner(root, speaker, types) if mine else None
    subject = speaker if subject_chunk.root.lower_ in _FIRST else owner or _phrase(subject_chunk.root, types)
    return _surface_value(doc, subject, doc.text[subject_chunk.end_char:])


def _someone_else(doc: Any) -> bool:
    """Is a clause's subject a person other than the speaker ("he", "they")? ("Moved to Denver, it was
    great": "it" is no one, and the move is the speaker's.)"""
    return any(t.dep_ in ("nsubj", "nsubjpass") and t.lower_ in _OTHERS for t in doc)


_OTHERS = frozenset({"he", "she", "they"})


def _surface_value(doc: Any, subject: str, rest: str) -> list[Reading]:
    """The value the words after the subject name: the name after "to" in a change, else the last name."""
    shape = "plain"
    to = re.search(r"\b(?:to|into|onto|for)\s+(?:the\s+)?(" + _NAMED.pattern + ")", rest)
    if _CHANGE_WORDS.search(doc.text) and to:
        value, shape = to.group(1), "change"
    else:
        names = [m.group(0) for m in _NAMED.finditer(rest) if not _WHEN.match(m.group(0).strip(" .,;"))
                 and m.group(0).strip(" .,;").lower() not in _PRONOUNS] \
            or [m.group(0) for m in _AMOUNT.finditer(rest)]
        if not names:
            return []
        value = names[-1]
        if re.search(r"\bno longer\b|\bstopped\b|\bquit\b|\bdropped\b", rest, re.I):
            shape = "end"
    amounts = [m.group(0) for m in (*_AMOUNT.finditer(rest), *_PHONE.finditer(rest))]
    if amounts and (shape != "change" or any(a.startswith(value) for a in amounts)):
        value = next((a for a in amounts if a.startswith(value)), amounts[-1])  # "500" says "500 mg"
    value = parse.TIME_TAIL.sub("", value).strip(" .,;")
    if not value or value.lower() == subject.lower() or not subject:
        return []
    old = re.search(r"\bfrom\s+(?:the\s+)?(" + _NAMED.pattern + r")\s+to\b", rest)
    return [Reading(subject, "", value, doc.text, shape, True, old.group(1) if old and shape == "change" else None)]
