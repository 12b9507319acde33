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
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from ..embed.base import Embedder
from ..vocab import Predicate, Vocabulary
from . import dates, parse
from .base import ExtractedFact

# Calibrated on examples/ontologies/*.toml with the project's own evaluation sets
# (tests/fixtures/ontology-updates.json); see docs/benchmarks-notes.md, "Ontologies".
MEANING_THRESHOLD = 0.45  # cosine of a clause to a predicate's nearest example or description: below, no match
MEANING_MARGIN = 0.03  # and this much nearer than any other predicate's, or it is ambiguous
SHAPE_THRESHOLD = 0.30  # a change shape (hand over, rewrite in, from-to) already says a value changed

HAND_OVER = frozenset({"hand", "transfer", "pass", "reassign", "give"})
REWRITE = frozenset({"rewrite", "write", "port", "reimplement", "rebuild", "build"})
CHANGE = frozenset({"switch", "move", "migrate", "change", "upgrade", "swap", "transition"})
STOP = frozenset({"stop", "quit", "drop", "abandon", "retire", "remove", "deprecate"})
_PRONOUNS = frozenset({"it", "they", "this", "that", "he", "she", "them"})
_FIRST = frozenset({"i", "we"})
_DETS = frozenset({"the", "a", "an", "our", "my", "their", "its", "his", "her", "this", "that", "your"})

_EXEMPLARS: weakref.WeakKeyDictionary[Any, dict[str, tuple[np.ndarray, list[str]]]] = weakref.WeakKeyDictionary()


def ontology_tag(vocab: Vocabulary) -> str:
    """What an extractor's version says of the ontology it read: nothing for the default, else its
    version (so facts record which ontology made them)."""
    return f"+ontology:{vocab.version}" if any(p.examples for p in vocab.predicates.values()) else ""


@dataclass(frozen=True)
class Reading:
    subject: str
    verb: str
    object: str
    text: str  # the clause as words, for the embedding
    shape: str  # plain | change | hand_over | rewrite | end
    object_proper: bool


class MeaningReader:
    def __init__(self, vocab: Vocabulary, embedder: Embedder | None, threshold: float = MEANING_THRESHOLD,
                 margin: float = MEANING_MARGIN):
        self.vocab, self.embedder = vocab, embedder
        self.threshold, self.margin = threshold, margin
        self.active = [p for p in vocab.predicates.values() if p.examples]
        self.types = frozenset(t.lower() for t in vocab.entity_types)

    @property
    def enabled(self) -> bool:
        return bool(self.active) and self.embedder is not None and parse.parser_available()

    def read(self, sentence: str, speaker: str, t: datetime) -> list[ExtractedFact]:
        """The facts a sentence states about the ontology's own predicates."""
        nlp = parse.load_parser()
        if nlp is None or not self.enabled:
            return []
        span = dates.resolve(sentence, t)
        start = span.start if span is not None else t
        out = []
        for r in readings(nlp(sentence), speaker, self.types):
            found = self.predicate(r)
            if found is None:
                continue
            spec, _ = found
            obj = r.object if (spec.object_kind == "entity" or r.object_proper) else r.object.lower()
            statement = spec.statement.replace("{s}", r.subject).replace("{o}", obj).replace("{r}", "")
            out.append(ExtractedFact(subject=r.subject, predicate=spec.name, object=obj, statement=statement,
                                     valid_from=start, dated=span is not None,
                                     object_kind="entity" if spec.object_kind == "entity" else "value",
                                     ending=r.shape == "end", confidence=0.9))
        return out

    def predicate(self, r: Reading) -> tuple[Predicate, float] | None:
        """The active predicate nearest in meaning to the reading, when near enough and clearly
        nearer than the next; an ending is matched against the predicates' ``ends`` too."""
        assert self.embedder is not None
        names, matrix, owners = self._exemplars()
        vec = np.asarray(self.embedder.embed([r.text])[0], dtype=np.float32)
        sims = matrix @ vec
        best: dict[str, float] = {}
        for i, owner in enumerate(owners):
            best[owner] = max(best.get(owner, -1.0), float(sims[i]))
        ranked = sorted(best.items(), key=lambda kv: -kv[1])
        if not ranked:
            return None
        top, score = ranked[0]
        runner = ranked[1][1] if len(ranked) > 1 else -1.0
        floor = SHAPE_THRESHOLD if r.shape in ("change", "hand_over", "rewrite") else self.threshold
        if score < floor or score - runner < self.margin:
            return None
        return self.vocab.predicates[top], score

    def _exemplars(self) -> tuple[list[str], np.ndarray, list[str]]:
        assert self.embedder is not None
        cache = _EXEMPLARS.setdefault(self.embedder, {})
        if self.vocab.version not in cache:
            texts, owners = [], []
            for p in self.active:
                for text in (p.description, *p.examples, *(f"{e} it" for e in p.ending)):
                    texts.append(text)
                    owners.append(p.name)
            cache[self.vocab.version] = (np.asarray(self.embedder.embed(texts), dtype=np.float32), owners)
        matrix, owners = cache[self.vocab.version]
        return [p.name for p in self.active], matrix, owners


# -- clauses off the parse ----------------------------------------------------------------------
def readings(doc: Any, speaker: str, types: frozenset[str] = frozenset()) -> list[Reading]:
    """Every clause of a parsed sentence that has a subject (or a topic it continues) and an object."""
    out: list[Reading] = []
    topic: str | None = None
    for verb in (t for t in doc if _is_verb(t)):
        subject, topic = _subject_of(verb, speaker, topic, types)
        reading = _reading(verb, subject, types)
        if reading is not None:
            out.append(reading)
            if reading.subject != speaker:
                topic = reading.subject
        topic = _moved_thing(verb, types) or topic
    return out


def _is_verb(t: Any) -> bool:
    """A clause's verb; also a verb the small parser took for a noun coordinated with an object
    ("uses Postgres and deploys to Heroku": deploys/NOUN, conj of Postgres, with its own preposition)."""
    if t.pos_ in ("VERB", "AUX") and t.dep_ in ("ROOT", "conj", "ccomp", "advcl", "xcomp", "parataxis"):
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


def _subject_of(verb: Any, speaker: str, topic: str | None, types: frozenset[str]) -> tuple[str | None, str | None]:
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
    phrase = _phrase(subj, types)
    return phrase, phrase


def _reading(verb: Any, subject: str | None, types: frozenset[str]) -> Reading | None:
    lemma = verb.lemma_.lower()
    kids = list(verb.children)
    dobj = next((k for k in kids if k.dep_ in ("dobj", "attr")), None)
    preps = {k.lower_: _pobj(k) for k in kids if k.dep_ in ("prep", "agent", "prt", "dative")}
    negated = any(k.dep_ == "neg" for k in kids) or any(k.lower_ == "longer" for k in verb.subtree)
    xcomp = next((k for k in kids if k.dep_ == "xcomp" and k.pos_ == "VERB"), None)
    if lemma in HAND_OVER and dobj is not None and preps.get("to") is not None:
        x, b = _phrase(dobj, types), preps["to"]
        return _made(x, lemma, b, f"{x} is now owned by {_text(b)}", "hand_over")
    if lemma in REWRITE and dobj is not None and preps.get("in") is not None:
        x, b = _phrase(dobj, types), preps["in"]
        return _made(x, lemma, b, f"{x} is written in {_text(b)}", "rewrite")
    if subject is None:
        return None
    if lemma in STOP and xcomp is not None:  # "stopped using Mongo": the slot of "using" ends
        obj = next((k for k in xcomp.children if k.dep_ == "dobj"), None)
        return None if obj is None else _made(subject, xcomp.lemma_, obj, f"{subject} {xcomp.lemma_} {_text(obj)}",
                                              "end")
    if negated:  # "no longer uses Postgres"
        obj = dobj if dobj is not None else next((v for v in preps.values() if v is not None), None)
        return None if obj is None else _made(subject, lemma, obj, f"{subject} {verb.text} {_text(obj)}", "end")
    tail = " ".join(f"{p} {_text(o)}" for p, o in preps.items() if o is not None and p != "to")
    if preps.get("to") is not None and (lemma in CHANGE or preps.get("from") is not None):
        b = preps["to"]
        return _made(subject, lemma, b, f"{subject} {_verb(verb)} {tail} to {_text(b)}", "change")
    named = next((o for p, o in preps.items() if o is not None and o.pos_ == "PROPN" and p not in _NOT_VALUE), None)
    if dobj is not None and (dobj.pos_ == "PROPN" or named is None):
        return _made(subject, lemma, dobj, f"{subject} {_verb(verb)} {_text(dobj)} {tail}", "plain")
    words = f"{subject} {_verb(verb)} {_text(dobj) if dobj is not None else ''}"
    for prep, obj in preps.items():
        if obj is not None and prep not in _NOT_VALUE and (named is None or obj is named):
            rest = " ".join(f"{p} {_text(o)}" for p, o in preps.items() if o is not None and o is not obj)
            return _made(subject, lemma, obj, f"{words} {prep} {_text(obj)} {rest}", "plain")
    return None


# prepositions whose object is not the slot's value (where from, what for, when)
_NOT_VALUE = frozenset({"off", "from", "for", "since", "after", "before", "during", "until", "about", "with"})


def _made(subject: str, verb: str, obj: Any, text: str, shape: str) -> Reading | None:
    value = _text(obj)
    if not value or value.lower() in _PRONOUNS or not subject:
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
    return found


def _verb(verb: Any) -> str:
    """The verb as said, with its auxiliaries and particles ("is hosted", "handed over")."""
    aux = [k.text for k in verb.children if k.dep_ in ("aux", "auxpass") and k.i < verb.i]
    prt = [k.text for k in verb.children if k.dep_ == "prt"]
    return " ".join([*aux, verb.text, *prt])


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
    words = [t for t in tok.subtree if t.dep_ in ("compound", "amod", "flat", "nummod") or t == tok]
    words = [t for t in words if t.i <= tok.i and t.lower_ not in _DETS]
    return parse.TIME_TAIL.sub("", " ".join(t.text for t in words)).strip()
