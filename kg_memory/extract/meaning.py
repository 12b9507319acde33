"""Reading a clause onto an ontology's predicates by meaning, for any subject and any domain.

``clauses`` reads a sentence's clauses off the dependency parse as (subject, verb phrase, value,
shape); this module maps each onto the predicate it is nearest to with the in-process embedding
model. Nearness blends the clause as said against each predicate's description, examples and
``ends`` phrasings, the clause with subject and value masked against the examples masked alike,
and the value against the examples' values ("Azure" is like "AWS"). A change's slot may be settled
by what its subject holds (the pipeline), and an end whose object is the slot's own noun ("I sold
my car") ends the slot whatever it holds.

Only predicates with ``examples`` are read this way. Under the default ontology only clauses that
state a change are read by meaning; the built-in phrase patterns read the rest."""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Collection
from dataclasses import replace
from datetime import datetime
from typing import Any

import numpy as np

from ..core.vocab import Predicate, Vocabulary
from ..embed.base import Embedder
from . import dates, parse
from .base import ExtractedFact
from .canonical import by_its_form
from .clauses import HYPOTHETICAL, is_agent, readings
from .cues import ADDED as _ADDED
from .cues import BEGUN as _BEGUN
from .cues import CHANGE_CUE, SUPPOSED, SWAPPED
from .cues import LASTING as _LASTING
from .cues import PRESENT_STATE as _PRESENT_STATE
from .cues import SAID_NOW as _SAID_NOW
from .exemplars import (
    PASSIVE,
    Exemplars,
    best_per_owner,
    build_exemplars,
    done_by_value,
    example_readings,
    example_verbs,
    mask,
    value_preps,
    value_states,
    value_verbs,
)
from .homes import WORKPLACES, Homes
from .kinds import kind_of, kinds_said
from .loose import Loose
from .reading import Reading
from .shapes import (
    ARRANGED,
    CLAUSE_BREAK,
    PREPOSITION,
    PROVIDER,
    Slots,
    as_bought,
    said_verb,
    served,
    the_name,
    widest,
    words_of,
)
from .shapes import near_rivals as _near_rivals
from .slotwords import cues_of, slot_words_of
from .succession import NAME as _NAME
from .succession import in_place_of, stepped_in, with_names
from .surface import clauses_of, misjoined, named_clauses, surface_readings
from .taking import Taking, counted
from .thresholds import (
    ALIKE_FLOOR,
    CUE_BONUS,
    CUE_THRESHOLD,
    LASTING_THRESHOLD,
    MASK_WEIGHT,
    MEANING_MARGIN,
    MEANING_THRESHOLD,
    OWN_BONUS,
    SHAPE_THRESHOLD,
    SLOT_BAND,
    STATE_THRESHOLD,
    VALUE_FLOOR,
    VALUE_WEIGHT,
    VERIFY_FLOOR,
    VERIFY_GAP,
)
from .turning import Turning
from .values import names_its_slot, shape_share, value_shape
from .whose import MOVES, WHICH_ONE, a_slot_word, only_its_noun, shared_stem
from .wording import DENIED, held_at, held_at_its_noun, stem

_ACQUIRING = frozenset({"buy", "get", "order", "purchase"})
_ACQUIRED = re.compile(r"\b(?:bought|buy|got|ordered|purchased)\b", re.I)  # (a reading off the surface has no verb)

# verbs of passing acts, which state no people's slot by themselves ("we had a long lunch with the designers")
_EVENT_VERBS = frozenset({"have", "do", "make", "go", "come", "spend", "hang", "bring"})
# one sent to a place of work ("moved to the Dublin office", "transferred to our Leeds branch")
_TO_WORK = re.compile(rf"\b(?:mov|relocat|transferr)(?:e|es|ed|ing)\s+(?:over\s+)?to\s+(?:the\s+|our\s+|their\s+)?"
                      rf"(?:[\w'’-]+\s+){{0,3}}({'|'.join(sorted(WORKPLACES))})\b", re.I)
_INSTEAD = re.compile(r"\binstead\b", re.I)
# being at a name oneself ("I'm at Costa these days"; not "my band is", nor "with": a partner, a provider, a firm)
_I_AM_AT = re.compile(r"\b(?:I|we)\s*(?:'m|am|'re|are)\s+(?:\w+\s+)?at\s", re.I)
_THESE_DAYS = re.compile(r"\b(?:these days|nowadays|for good)\b", re.I)  # (said of a value now, more than "now")
_NOT_HELD_VERBS = frozenset({"have", "get", "go", "visit", "see", "meet", "watch", "read", "try", "want", "need"})
_STAND_INS = frozenset({"one", "ones", "it", "that", "this", "them", "another", "another one", "the other"})
# a clause said in the passive with any preposition ("is insured with Hiscox"): no doer of it is said first
_DONE_TO = re.compile(r"\b(?:is|are|was|were|been|being)\s+(?:\w+ly\s+|now\s+|also\s+|still\s+)?\w+(?:ed|en)\b",
                      re.I)

_EXEMPLARS: weakref.WeakKeyDictionary[Any, dict[str, Exemplars]] = weakref.WeakKeyDictionary()


def _put_me(noun: Any) -> bool:
    """The one who puts the speaker on a value ("the doctor has me on X"): no value of it."""
    return noun.dep_ == "nsubj" and any(k.dep_ == "dobj" and k.lower_ in ("me", "us") for k in noun.head.children)


def ontology_tag(vocab: Vocabulary) -> str:
    """What an extractor's version says of the ontology it read: nothing for the default, else its
    version (so facts record which ontology made them)."""
    from ..core.ontology import default_ontology

    return "" if vocab.version == default_ontology().version else f"+ontology:{vocab.version}"


class MeaningReader(Turning, Taking, Loose):
    def __init__(self, vocab: Vocabulary, embedder: Embedder | None, threshold: float = MEANING_THRESHOLD,
                 margin: float = MEANING_MARGIN):
        self.vocab, self.embedder = vocab, embedder
        self.threshold, self.margin = threshold, margin
        self.rivals = False  # give plain facts the near slots a second reader (the model) may choose among
        self.active = [p for p in vocab.predicates.values() if p.examples]
        self.types = frozenset(t.lower() for t in vocab.entity_types)
        self.people = frozenset(vocab.relations)  # "my brother", "my boss": people of the speaker's
        # Under the default ontology only clauses that state a change are read by meaning (the phrase
        # patterns read the rest): read whole, chit-chat became facts (LoCoMo dev: 134 -> 571 current
        # facts, end-to-end recall@10 73.3 -> 60.2). A group's own ontology is read whole.
        self.changes_only = ontology_tag(vocab) == ""
        self.words = slot_words_of(self.active, self.types)
        # a group's own ``ends`` said as a whole clause ("lost the deal"): the clause ends the slot
        self.ends = frozenset(e.lower() for p in self.active if p.name in vocab.own for e in p.ending
                              if len(e.split()) > 1)
        self.slot_words = frozenset(w for ws in self.words.values() for w in ws)
        self.cues = cues_of(self.words)

    @functools.cached_property
    def _homes(self) -> Homes:
        return Homes(self.vocab)

    @functools.cached_property
    def preps(self) -> frozenset[tuple[str, str]]:
        """The (verb, preposition) pairs the group's own examples give values with ("known for")."""
        own = [p for p in self.active if p.name in self.vocab.own]
        return value_preps(tuple(e for p in own for e in p.examples), tuple(p.description for p in own))

    @functools.cached_property
    def states(self) -> frozenset[str]:
        """The verbs whose passive participle is a value of one of the group's own slots (``value_states``)."""
        return value_states(tuple(p for p in self.active if p.name in self.vocab.own))

    @functools.cached_property
    def verbs(self) -> frozenset[str]:
        """The verbs the active predicates' own examples use ("uses", "deploys", "keeps"), by lemma and
        as said, and the verbs their names say (``example_verbs``)."""
        return example_verbs(tuple(e for p in self.active for e in p.examples), tuple(p.name for p in self.active))

    @functools.cached_property
    def _held_by_someone(self) -> frozenset[str] | None:
        """The slots whose values are entities, or the group's own slots whose examples all give names (a
        company): a thing is handed over to someone, so only they take a hand-over ("Bo took over Tyrell"
        makes Bo no plan). None when the ontology has none."""
        naming = self._exemplars().naming
        held = frozenset(p.name for p in self.active if p.object_kind == "entity" or p.name in naming)
        return held or None

    @functools.cached_property
    def _acted_by_value(self) -> dict[str, frozenset[str]]:
        """Verb (lemma) -> the group's own predicates whose value is that verb's doer (``value_verbs``)."""
        index: dict[str, set[str]] = {}
        for p in self.active:
            if p.name in self.vocab.own:
                for verb in value_verbs(p) | done_by_value(p, self._example_readings(p)):
                    index.setdefault(verb, set()).add(p.name)
        return {verb: frozenset(names) for verb, names in index.items()}

    @property
    def aims(self) -> frozenset[str]:
        """The predicates whose own examples are said as wishes: a wish states their value."""
        return frozenset(p.name for p in self.active if any(HYPOTHETICAL.search(e) for e in p.examples))

    @property
    def enabled(self) -> bool:
        return bool(self.active) and self.embedder is not None and parse.parser_available()

    def read(self, sentence: str, speaker: str, t: datetime) -> list[ExtractedFact]:
        """The facts a sentence states about the ontology's own predicates."""
        if not self.enabled:
            return []
        span = dates.resolve(sentence, t)
        if sentence.rstrip().endswith(("?", ":")):
            return []  # a question states nothing, nor a headline ("New goal:")
        # a wish states nothing, except of a slot that is itself an aim ("I want to run a marathon")
        wish = bool(HYPOTHETICAL.search(ARRANGED.sub("", sentence)))
        doc = parse.parsed(sentence)
        slot_words = self._reading_words
        parsed = readings(doc, speaker, self.types, slot_words, self.people, self.ends, self.preps,
                          self.states)
        matched = [m for r in parsed if (m := self._match(r, speaker, wish))]
        if (not matched or misjoined(doc)) and len(parts := named_clauses(sentence)) > 1:
            # the small parser hung a named clause on the first ("Ola fell out with the producers and Mark Byrne
            # took over directing The Crucible"): each clause parsed alone
            matched = [m for p in parts for r in readings(parse.parsed(p), speaker, self.types, slot_words,
                                                          self.people, self.ends, self.preps, self.states)
                       if (m := self._match(r, speaker, wish))]
        if not matched and not any(r.shape in ("hand_over", "rewrite") or self._goes_to_a_thing(r, speaker)
                                   for r in parsed):
            # the small parser misread the clause ("stores" as a noun): read its surface
            matched = [m for part in clauses_of(sentence, doc)
                       for r in surface_readings(part, speaker, self.types, slot_words, self.people, self.verbs,
                                                  self.preps)
                       if (m := self._match(r, speaker, wish))]
        matched += self._stepped_in(matched, sentence, speaker)
        out = in_place_of(self.vocab, sentence, span.start if span else t, span is not None)
        for r, (spec, others, unsure) in widest(self._successors(matched)):
            rivals = _near_rivals(self._scores(r), spec.name, self._alike(r.object)) \
                if self.rivals and r.shape == "plain" and r.object and not r.any_value else ()
            r = self._titled_holder(self._role_at(self._named_end(r, spec), spec), spec)
            r = self._as_its_examples_are(r, spec)
            r = self._old_said_beside(r, spec, doc, sentence)
            mine = only_its_noun(r.subject, r.text, spec.name, spec.keywords)  # ("The date has changed: ...")
            r = replace(r, subject=speaker if mine else self._slot_owner(r.subject, spec.name,
                                                                          r.text.replace(r.object, "")))
            own = dates.in_clause(sentence, sentence.find(r.object), t, span) if r.object in sentence else span
            when = dates.began(own, r.object if spec.object_kind == "date" else "")  # (its clause's date, if any)
            swapped = r.shape == "change" and SWAPPED.search(sentence) is not None and not _ADDED.search(sentence)
            for value, ending in ((r.object, r.shape == "end"), *(((r.old, True),) if r.old else ())):
                obj = the_name(value) if (spec.object_kind == "entity" or r.object_proper) else value.lower()
                statement = f"{r.subject} no longer {spec.name}" if r.any_value else spec.render(r.subject, obj)
                out.append(ExtractedFact(subject=r.subject, predicate=spec.name, object=obj, statement=statement,
                                         valid_from=when.start if when else t, dated=when is not None,
                                         started_by=dates.started_by(when, t),
                                         object_kind="entity" if spec.object_kind == "entity" else "value",
                                         ending=ending, confidence=0.9, alternatives=others, needs_slot=unsure,
                                         replaces=r.old or (obj if ending and not r.any_value else ""),
                                         any_object=r.any_value, rivals=rivals, in_place_of_held=swapped and not (
                                             r.old or ending or self.vocab.is_single(spec.name))))
        # (what else the sentence's surface gave of the one who ended, or of them as a value, is misread)
        gone = {f.replaces for f in out if f.subject == f.replaces}
        came = {f.object for f in out if f.subject == f.replaces}  # (and a people's slot of the one who came)
        return [with_names(f, sentence) for f in out if f.subject == f.replaces or f.ending or not (
            {f.subject, f.object} & gone or f.object in came and f.predicate not in self.vocab.own)]

    def _old_said_beside(self, r: Reading, spec: Predicate, doc: Any, sentence: str) -> Reading:
        """"The amlodipine gave me swollen ankles, so I've been changed to ramipril": a change of a many-valued
        slot that says no old value replaces the one another clause of the sentence names, when that one is
        like the slot's values (a word of its class, or near its examples' values)."""
        if r.shape != "change" or r.old or self.vocab.is_single(spec.name) or spec.object_kind != "value" \
                or _ADDED.search(sentence):
            return r
        assert self.embedder is not None
        said = [x for c in doc.noun_chunks if c.root.pos_ in ("NOUN", "PROPN") and not _put_me(c.root)
                if (x := " ".join(t.text for t in c if t.dep_ not in ("det", "poss")))
                and x.lower() != r.object.lower() and not self._only_slot_nouns(x)]
        words: Collection[str] = self.vocab.value_classes.get(spec.value_class or "", ())
        vectors: list[Any] = list(self.embedder.embed(said)) if said else []  # (one call for them all)
        like = [x for x, v in zip(said, vectors, strict=True) if x.lower() in words
                or by_its_form(spec.value_class or "", x) or self._alike(v).get(spec.name, 0.0) >= ALIKE_FLOOR]
        return replace(r, old=like[0]) if like else r

    def _goes_to_a_thing(self, r: Reading, speaker: str) -> bool:
        """One who goes to a thing of the group's holds no slot of it ("Dev moved to the Leeds job": what he does
        there is not said), and is no value of the thing's."""
        return r.verb in MOVES and r.subject != speaker and r.subject[:1].isupper() \
            and kind_of(r.object, self.vocab.type_notes) is not None

    def _stepped_in(self, matched: list[tuple[Reading, Slots]], sentence: str, speaker: str
                    ) -> list[tuple[Reading, Slots]]:
        """"Keith quit The Strays and Lola took over", "Ken left Salt and Rosa replaced him": one who steps in
        after a name's end of one of the group's slots whose values are names is the slot's next value (said
        of the same subject, whose holder the pipeline settles)."""
        out = []
        for r, slots in matched:
            if r.shape != "end" or r.subject == speaker or slots[0].name not in self.vocab.own \
                    or slots[0].object_kind != "entity":
                continue
            said = stepped_in(sentence, max(sentence.find(r.object), 0))
            if said is not None and said not in (r.subject, r.object):
                out.append((replace(r, object=said, shape="change", object_proper=True, old=None,
                                    any_value=False), slots))
        return out

    def _successors(self, matched: list[tuple[Reading, Slots]]) -> list[tuple[Reading, Slots]]:
        """"I quit tennis and took up padel": the value that follows an end in the same sentence is the
        ended slot's successor, when that slot is near enough in meaning to call."""
        out: list[tuple[Reading, Slots]] = []
        for r, slots in matched:
            ended = out[-1][1][0] if out and out[-1][0].shape == "end" and out[-1][0].subject == r.subject else None
            before = out[-1][0] if ended is not None else None
            if before is not None and r.shape == "change" and not r.old and before.object and not before.any_value:
                r = replace(r, old=before.object)  # (the value it follows is the one it replaces: its slot settles)
            if ended is not None and r.shape == "change" and slots[0].name != ended.name:
                # (the structure says it is the slot's value, though no class list names it: "padel")
                scores = self._scores(r, classed=False)
                near = scores.get(ended.name, 0.0)
                # the same thing acted on again ("took the ledger off Kubernetes and put it on Nomad")
                again = r.moved == r.subject and self._takes(ended.name, r.object)
                if again or near >= SHAPE_THRESHOLD and near >= max(scores.values()) - MEANING_MARGIN:
                    slots = (ended, (), False)
            out.append((r, slots))
        return out

    def _slot_noun_at(self, r: Reading) -> Reading:
        """"I took a job with Boots": a slot's own noun held at a name is that name."""
        if r.shape != "plain" or r.object_proper or not self._only_slot_nouns(r.object) or DENIED.search(r.text):
            return r  # (nor one denied: "I didn't get the job at Canva")
        at = held_at(re.escape(r.object), _NAME, r.text)
        return r if at is None else replace(r, object=at.group(2).rstrip(".,;:!?"), object_proper=True)

    def _only_slot_nouns(self, value: str) -> bool:
        """A value that is only one slot's nouns, however new ("the new host"): no value of it."""
        words = [w.lower() for w in value.split() if w.lower() not in WHICH_ONE]
        return bool(words) and any(all(w in said or w.removesuffix("s") in said for w in words)
                                   for said in self.words.values())  # (one slot's: "the sports hall" is a value)

    def _slot_named(self, r: Reading) -> list[Predicate]:
        """An end whose object names the slot itself, not a value ("I sold my car", "I cancelled my gym
        membership"): the single-valued predicates whose name says that word (first) or whose
        description does ("the car the person drives"), which end whatever value they hold."""
        if r.shape != "end" or r.object_proper:
            return []
        words = {w.lower().removesuffix("s") for w in r.object.split()}
        single = [p for p in self.active if self.vocab.is_single(p.name)]
        by_name = [p for p in single if words & set(p.name.split("_"))]
        described = [p for p in single if p not in by_name and words & self.words.get(p.name, frozenset())]
        return by_name + described if by_name else described if len(described) == 1 else []

    def predicate(self, r: Reading, things_only: bool = False, among: frozenset[str] | None = None
                  ) -> tuple[Predicate, float] | None:
        """The active predicate nearest in meaning to the reading, when near enough and clearly
        nearer than the next. Nearness blends two cosines: the clause as said against each
        predicate's examples, description and ``ends`` (the topic), and the clause with its subject
        and value masked against the examples masked alike (the relation's wording alone)."""
        scores = self._scores(r, things_only, among=among)  # (a wish: only the slots that are aims compete)
        ranked = sorted(scores.items(), key=lambda kv: -kv[1])
        if not ranked:
            return None
        top, score = ranked[0]
        floor = SHAPE_THRESHOLD if r.shape in ("change", "hand_over", "rewrite") else self.threshold
        doer = self._doer_named(r.verb, ranked)
        if doer is not None and doer[1] >= floor:
            return self.vocab.predicates[doer[0]], doer[1]
        if not self._said_in_its_words(top, words_of(r.text)):
            return None  # (nearest to a slot it does not name: no slot, not the next nearest)
        runner = ranked[1][1] if len(ranked) > 1 else -1.0
        if score < floor or score - runner < self.margin:
            return None
        return self.vocab.predicates[top], score

    def _doer_named(self, verb: str, ranked: list[tuple[str, float]]) -> tuple[str, float] | None:
        """The one slot within ``SLOT_BAND`` of the nearest whose own word names the verb's doer ("Tom manages me
        now": the manager, though a name and "me" lie nearer a partner in meaning): the verb names it."""
        if len(verb) < 4 or not ranked:
            return None
        named = [(p, sc) for p, sc in ranked if ranked[0][1] - sc <= SLOT_BAND
                 and any(w.endswith(("er", "or")) and len(w) > 5 and verb.startswith(w[:-2])
                         for w in self.words.get(p, frozenset()))]
        return named[0] if len(named) == 1 and named[0] != ranked[0] else None

    def _match(self, r: Reading, speaker: str, wish: bool) -> tuple[Reading, Slots] | None:
        """A reading and its slots. A clause in which the speaker (or a team) acts on a thing ("we moved
        the wiki to Notion") is first read as the thing's, under the predicates said of things."""
        home = self._homes.read(r, speaker)
        if home is not None:
            return home[0], (home[1], (), False)
        r = as_bought(r) if self.changes_only and r.shape == "plain" else r
        if not self._worth(r) or r.shape == "end" and SUPPOSED.search(r.text):
            return None  # (nor an end to come: "If I move I'll sell the car")
        r = self._slot_noun_at(r)
        if self._goes_to_a_thing(r, speaker):
            return None
        if self.changes_only and r.shape == "change" and r.old and r.subject != speaker and r.subject[:1].islower():
            # a people's slot changed by someone said by their role ("The diabetes nurse replaced metformin with
            # gliclazide"): the speaker's, whose held value the pipeline then finds
            r = replace(r, subject=speaker)
        if r.shape == "plain" and not self.changes_only and _SAID_NOW.search(r.text):
            # "The metrics stack now lives on Hetzner": a change, which the slot the thing holds settles
            r = replace(r, shape="change")
        provided = self._provided(r)
        if provided is not None:
            return provided if not wish or provided[1][0].name in self.aims else None
        acted = self._value_acts(r, speaker)
        if acted is not None:
            return acted if not wish or acted[1][0].name in self.aims else None
        named = self._slot_named(r)
        if named:  # the slot named, and the others its noun may name: the pipeline ends the one held
            return replace(r, object="", any_value=True), (named[0], tuple(p.name for p in named[1:]), False)
        doing = self._doing_its_work(r, speaker)
        if doing is not None:
            return doing if not wish else None
        if self._only_slot_nouns(r.object) and not r.object_proper and not self.vocab.in_a_class(r.object) \
                and r.object.split()[-1].lower() not in self._exemplars().things:  # ("the wedding" is a thing)
            return None  # "I switched doctors": the slot's own noun is no value of it
        if r.moved and (r.subject == speaker or is_agent(r.subject) and not self._of_a_type(r.subject)
                        or r.shape == "change" and self._moved_with_its_slot(r)):
            # a thing taken to a value ("we lifted checkout over to GCP") changes the thing's slot: the
            # pipeline settles which by the slots the thing holds
            sent = r.shape == "plain" and re.search(rf"\b(?:to|onto|into)\s+(?:the\s+)?{re.escape(r.object)}", r.text)
            thing = replace(r, subject=r.moved, shape="change" if sent else r.shape)
            found = self.slots(thing, things_only=True)
            if found and (not wish or found[0].name in self.aims):
                return thing, found
        # a thing handed over or rewritten is a thing's slot ("Priya handed billing over to Tom"), never a
        # person's ("the billing service's partner is Tom"); nor is a thing of one of the group's types ("the late
        # shift" has no manager)
        if r.shape == "hand_over" and not wish and self._sent_not_handed(r):
            r = replace(r, shape="change")
        found = self.slots(r, things_only=r.shape in ("hand_over", "rewrite") or self._of_a_type(r.subject),
                           among=self.aims if wish else self._held_by_someone if r.shape == "hand_over" else None)
        if found and self.changes_only and r.shape == "plain":
            # a light verb states little even with a word of change ("I have a car now")
            clear = self.predicate(r)
            cued = CHANGE_CUE.search(r.text) is not None
            clearly = clear is not None and (clear[1] >= CUE_THRESHOLD and r.verb not in parse.LIGHT_VERBS
                                             and self._bought_as_its_kind(r, clear[0]) if cued
                                             else self._a_clear_state(r, clear))
            found = found if clearly else None
        elif found and r.shape == "plain" and found[0].name not in self.vocab.own and r.verb in _EVENT_VERBS:
            # nor does a group's own ontology read a people's slot off a passing act ("had a long lunch"): only
            # its own slots may take one ("I have a Jeep Wrangler": owns_car)
            found = self.slots(r, among=frozenset(self.vocab.own))
        if found is None and not wish and self.changes_only and r.shape == "plain":
            found = self._if_held(r, speaker)
        typed = self._typed_thing(r.object)
        if not wish and (found is None or found[0].name not in self.vocab.own or typed):
            # (the built-in slots are people's: "Tariq owns the invoicing service" is no pet of Tariq's; and a
            # thing of one of the group's entity types is no value: "Dana manages the Initech account")
            turned = self._turned(r, speaker)
            if turned is not None or found is None:
                return turned
        elif not wish and found is not None and self._built_the_wrong_way(r):
            turned = self._turned(r, speaker)
            if turned is not None and turned[1][0].object_kind == "entity" and (
                    self._exemplars().takes_names(found[0].name) or served(r) or self._nearer(turned, (r, found))):
                return turned
        return (r, found) if found and (not wish or found[0].name in self.aims) else None

    def _sent_not_handed(self, r: Reading) -> bool:
        """"We transferred the N1 over to Sandhills": a thing handed over to a name that is nearer a slot of values
        (the depot) than any slot of someone's, by more than ``SLOT_BAND``, is moved there, not handed over."""
        people = self._held_by_someone or frozenset()
        scores = self._scores(r, things_only=True)
        top = max(scores, key=lambda p: scores[p], default=None)
        best_person = max((v for p, v in scores.items() if p in people), default=0.0)
        return top is not None and top not in people and scores[top] - best_person > SLOT_BAND

    def _if_held(self, r: Reading, speaker: str) -> Slots | None:
        """"I'm stacking shelves at Aldi these days", "I'm doing midwifery instead": a name the speaker says is
        theirs now (or any value said "instead"), near slots none of which it is clearly of, changes whichever
        of them the speaker holds: the pipeline keeps it only for a slot held (``needs_slot``)."""
        if r.subject != speaker or not r.object or r.verb in _NOT_HELD_VERBS:
            return None
        instead = _INSTEAD.search(r.text) is not None
        lasting = instead or _THESE_DAYS.search(r.text) is not None
        # (only being somewhere says too little with "now": "I'm at Heathrow now, the flight is late"; a surface
        # reading has no verb)
        named = r.object_proper and (lasting and (r.verb not in ("be", "") or _I_AM_AT.search(r.text) is not None)
                                     or _SAID_NOW.search(r.text) is not None and r.verb not in ("be", ""))
        if not (named or instead):
            return None
        found = self.slots(replace(r, shape="change"))
        return None if found is None else (found[0], found[1], True)

    def _moved_with_its_slot(self, r: Reading) -> bool:
        """Is the thing a change moves said with a slot's noun after it ("Security changed the back door code to
        7305")? Then whoever changed it, the change is the thing's."""
        after = r.text.split(r.moved or "", 1)[-1].split() if r.moved and r.moved in r.text else []
        after = after[1:] if after[:1] in (["'s"], ["’s"]) else after  # ("raised Salt Marsh's budget to ...")
        return bool(after) and self._only_slot_nouns(after[0])

    def _a_clear_state(self, r: Reading, clear: tuple[Predicate, float]) -> bool:
        """A state the speaker says plainly, with no word of change, under the default ontology ("I'm at Durham
        for my undergrad"): only of a one-value slot, clearly near, and not near only because an example names
        the value ("I'm in Leeds" is no study at "the University of Leeds")."""
        spec, score = clear
        if self.vocab.is_single(spec.name) and score >= SHAPE_THRESHOLD and held_at_its_noun(spec, r):
            return True  # the slot's own noun said with the value ("I took a job with Boots")
        if not self.vocab.is_single(spec.name):  # one of many values, said in the present with a word of its class
            return score >= STATE_THRESHOLD and _PRESENT_STATE.match(r.text) is not None \
                and r.object.lower() in self.vocab.value_classes.get(spec.value_class or "", ())  # ("I do yoga")
        lasting = _LASTING.match(r.text) is not None and score >= LASTING_THRESHOLD and r.object[:1].isupper()
        if score < STATE_THRESHOLD and not lasting or not self._bought_as_its_kind(r, spec):
            return False  # (nor a thing bought that is not of the slot's kind: "I bought a Kindle")
        if r.verb in parse.LIGHT_VERBS and not lasting or any(r.object.lower() in e.lower() for e in spec.examples):
            # a light verb says little ("I'm doing lunch at ..."), and a value an example names lends the clause
            # its nearness: then only a word of the slot's class ("I eat pescatarian") or the slot's own wording
            # with the value masked ("I'm doing my master's at X") says it, or the value said with the slot's own
            # noun ("I eat a mostly paleo diet")
            return r.object.lower() in self.vocab.value_classes.get(spec.value_class or "", ()) \
                or names_its_slot(r.object, spec.name) or self._worded_as(spec.name, r)
        return True

    def _bought_as_its_kind(self, r: Reading, spec: Predicate) -> bool:
        """A thing bought or got, said plainly ("I bought a Kindle"), is a slot's value only when it is like the
        slot's example values (a car model for the car one drives): a purchase is a passing act otherwise."""
        if r.verb not in _ACQUIRING and (r.verb or not _ACQUIRED.search(r.text)):
            return True
        assert self.embedder is not None
        return self._alike(self.embedder.embed([r.object])[0]).get(spec.name, 0.0) >= ALIKE_FLOOR

    def _alike(self, value: Any) -> dict[str, float]:
        """Each predicate's nearness of a value (said or embedded) to its examples' values ("Subaru": "Honda Civic")."""
        said = self.embedder.embed([value])[0] if isinstance(value, str) and self.embedder else value
        ex = self._exemplars()
        return best_per_owner(ex.values @ np.asarray(said, dtype=np.float32), ex.masked_owners)

    def _worded_as(self, predicate: str, r: Reading) -> bool:
        """Is the clause, its subject and value masked, nearest to the predicate's examples masked alike?"""
        assert self.embedder is not None
        ex = self._exemplars()
        masked = np.asarray(self.embedder.embed([mask(r.text, r.subject, r.object)])[0], dtype=np.float32)
        shape = best_per_owner(ex.masked @ masked, ex.masked_owners)
        return bool(shape) and max(shape, key=lambda p: shape[p]) == predicate

    def _provided(self, r: Reading) -> tuple[Reading, Slots] | None:
        """"We rent our house from Mrs Patel", "we get our power through Bulb": a thing one has from a name
        is the name's, for the group's own slots whose examples give a name (the thing is no value of them)."""
        said = PROVIDER.search(r.text) if r.shape == "plain" and r.object and not r.object_proper \
            and self.vocab.own else None
        if said is None or said.group(1).lower() in r.subject.lower():
            return None
        named = replace(r, object=said.group(1), object_proper=True)
        found = self.slots(named)  # (nearest of all, and one of those)
        mine = frozenset(self.vocab.own) & self._exemplars().named
        if found and found[0].name in mine and self._of_things(found[0].name) and not self._only_slot_nouns(r.object):
            # of a slot said of things, the thing had is its holder ("We get our tyres from Kwik Parts": the tyres')
            named = replace(named, subject=self.whose(r.object))
        return (named, found) if found and found[0].name in mine else None

    @functools.cached_property
    def _reading_words(self) -> frozenset[str]:
        """The slot words a clause is read with: not the nouns the group's examples say a slot of ("the wedding")."""
        return self.slot_words - self._exemplars().things

    def _value_acts(self, r: Reading, speaker: str) -> tuple[Reading, Slots] | None:
        """"Hugo mentors Nadia", "Mercer Motors maintains the Sprinter": a verb whose doer is the value of one
        of the group's slots, said actively. The slot is the object's, and the doer its value."""
        preds = self._acted_by_value.get(self._verb_of(r)) if r.shape in ("plain", "change") else None
        low = r.text.lower()
        said = r.subject.lower() if r.subject.lower() in low else r.subject.split()[-1].lower()  # ("Mehta directing")
        doer, done = low.find(said), low.find(r.object.lower())
        if not preds or not r.object or r.old or r.any_value or r.moved or PASSIVE.search(r.text) \
                or _DONE_TO.search(r.text) \
                or not 0 <= doer < done or PREPOSITION.search(low, doer + len(said), done):
            return None  # (said in the passive, or read already with the doer as value: "Dr. Moreau looks after me";
            # or of a value after a preposition: "The parser crate builds on Travis CI" is no Travis CI's)
        # whose the done thing is: a name said as its owner ("teaches Noah's class": Noah's), else the speaker's
        # when it is only a slot's noun ("Virgin Media supplies our internet"), else the thing itself
        owner = re.search(rf"([A-Z][\w.]*(?:\s+[A-Z][\w.]*)*)\s?['’]s\s+(?:\w+\s+)?{re.escape(r.object)}\b", r.text) \
            or re.search(rf"\b{re.escape(r.object)}\s+(?:at|of|for)\s+(?:the\s+)?{_NAME}", r.text)  # "the kitchen at X"
        slot_noun = self._only_slot_nouns(r.object)  # (the speaker's when said as theirs, not "the practice")
        mine = slot_noun and not re.search(rf"\bthe\s+{re.escape(r.object)}", r.text, re.I)
        thing = owner.group(1) if owner and slot_noun else speaker if mine else served(r) or self.whose(r.object)
        turned = replace(r, subject=thing, object=r.subject, object_proper=r.subject[:1].isupper())
        found = self.slots(turned, among=None if thing == speaker else preds)
        if found is None and kind_of(thing, self.vocab.type_notes):  # the verb's slots are another kind's: the
            found = self.slots(turned, things_only=True)  # thing's own kind's ("Otis looks after the lifts")
        return (turned, found) if found else None

    def _verb_of(self, r: Reading) -> str:
        """The reading's verb (lemma); for a reading off the surface, the word after its subject as one of
        the ontology's verbs ("Hugo mentors Nadia", where the small parser took "mentors" for a noun)."""
        return said_verb(r.text, r, frozenset(self._acted_by_value))

    def _doing_its_work(self, r: Reading, speaker: str) -> tuple[Reading, Slots] | None:
        """"Green Fork is doing the catering": a name that does the work a slot of the group's own is named
        for is the value of that slot, the speaker's (or the one it is done for)."""
        if r.shape != "plain" or not r.subject[:1].isupper() or r.subject == speaker or r.object_proper \
                or " " in r.object.strip() or r.verb in ("be", "have"):
            return None
        work = r.object.lower()
        slot = next((self.vocab.predicates[p] for p in self.vocab.own
                     if self.vocab.predicates[p].object_kind != "date" and len(work) >= 5
                     and any(len(w) >= 5 and shared_stem(work, w) >= 5 for w in p.split("_"))), None)
        if slot is None:
            return None
        return replace(r, subject=served(r) or speaker, object=r.subject, object_proper=True), (slot, (), False)

    def slots(self, r: Reading, things_only: bool = False, among: frozenset[str] | None = None) -> Slots | None:
        """The predicate of a reading, as ``predicate`` finds it; and for a change, the other slots
        near it in meaning, which the pipeline settles by what the subject holds (a change changes a
        slot the thing has). A change too near another to call is kept only for a slot held."""
        clear = self.predicate(r, things_only, among)
        if r.shape == "plain":
            return None if clear is None else (clear[0], (), False)
        said = words_of(r.text)
        ranked = [(p, sc) for p, sc in sorted(self._scores(r, things_only, among=among).items(), key=lambda kv: -kv[1])
                  if self._said_in_its_words(p, said)]  # (a change: the slots it may be of, held ones settle)
        if not ranked or ranked[0][1] < SHAPE_THRESHOLD:
            return None
        top = ranked[0][1]
        near = tuple(p for p, sc in ranked[1:] if sc >= SHAPE_THRESHOLD and top - sc <= SLOT_BAND
                     and self.vocab.is_single(p))
        return self.vocab.predicates[ranked[0][0]], near, clear is None

    def _scores(self, r: Reading, things_only: bool = False, classed: bool = True,
                among: frozenset[str] | None = None) -> dict[str, float]:
        """Each predicate's blended nearness to the reading (those whose value class the value fits, or the value
        a change leaves: "replaced metformin with gliclazide";
        with ``things_only``, of those said of things)."""
        assert self.embedder is not None
        ex = self._exemplars()
        said, masked, value = self.embedder.embed([r.text, mask(r.text, r.subject, r.object), r.object or "-"])
        raw = best_per_owner(ex.raw @ np.asarray(said, dtype=np.float32), ex.raw_owners)
        shape = best_per_owner(ex.masked @ np.asarray(masked, dtype=np.float32), ex.masked_owners)
        alike = self._alike(value)
        said_words = {w.lower() for w in re.findall(r"[A-Za-z]+", r.text)}
        said_words |= {w[:-1] for w in said_words if w.endswith("s")}
        said_words |= {w[2:] for w in said_words if w.startswith("re") and len(w) > 6}  # "reassigned": assigned
        said_words |= {stem(w) for w in said_words} | ({r.verb} if r.verb else set())  # "presented": a presenter's;
        # and the verb by its lemma ("cared": care)
        kind = value_shape(r.object)
        sort = kind_of(r.subject, self.vocab.type_notes)  # (a slot said of another kind of thing is no slot of it)
        one_of_many = counted(r)  # (said once for the reading, not per predicate)
        return {p: (MASK_WEIGHT * shape[p] + (1 - MASK_WEIGHT) * s if p in shape else s)
                + (CUE_BONUS if self.cues.get(p, frozenset()) & said_words else 0.0)
                + (CUE_BONUS if r.verb and r.verb in value_verbs(self.vocab.predicates[p]) else 0.0)  # ("presented by")
                + (CUE_BONUS if names_its_slot(r.object, p) else 0.0)  # "a 10k plan": a training_plan
                + CUE_BONUS * shape_share(kind, ex.shapes.get(p, frozenset()))
                + (OWN_BONUS if p in self.vocab.own else 0.0)
                + VALUE_WEIGHT * max(0.0, alike.get(p, 0.0) - VALUE_FLOOR)
                for p, s in raw.items()
                if (not classed or self._takes(p, r.object) or self._in_place_of_its_kind(p, r))
                and not self._one_of_many_unlike_its_examples(p, r, one_of_many)
                and (among is None or p in among)
                and (not things_only or self._of_things(p)) and (sort is None or sort in self._kinds.get(p, (sort,)))}

    def _in_place_of_its_kind(self, predicate: str, r: Reading) -> bool:
        """A new value said in place of one of the predicate's class is of it too ("replaced metformin with
        gliclazide"); not a word that only stands for it ("with one written in Python")."""
        return bool(r.old) and r.object.lower() not in _STAND_INS and self._takes(predicate, r.old or "")

    def _said_in_its_words(self, predicate: str, said: frozenset[str]) -> bool:
        """Under a group's own ontology, a built-in slot of many values and no value class (a person's pets,
        allergies, likes) is read only when the clause says one of its keywords ("pet", "allergic"): "we rent
        our house from Mrs Patel" is of no pet, whatever its nearness. Such a slot retires nothing, so a
        clause misread into it only adds a wrong fact; a single slot (where one lives, one's job) is read by
        meaning as it is. (The default ontology reads only changes by meaning, its phrases the rest.)"""
        if self.changes_only or predicate in self.vocab.own or self.vocab.is_single(predicate):
            return True
        keys = self._keywords.get(predicate)
        return keys is None or bool(keys & said)

    @functools.cached_property
    def _kinds(self) -> dict[str, frozenset[str]]:
        """The types each slot is said of, where its description names some (``kinds.kinds_said``)."""
        return {p.name: said for p in self.active if (said := kinds_said(p.description, self.vocab.type_notes))}

    @functools.cached_property
    def _keywords(self) -> dict[str, frozenset[str]]:
        # (a slot with a value class is read by its class: "escitalopram" is a medication, whatever is said)
        return {p.name: frozenset(w.lower() for w in p.keywords) for p in self.active
                if p.keywords and not p.value_class}

    def plausible(self, sentence: str, subject: str, value: str, predicate: str) -> bool:
        """Does a fact someone else proposed (a model) state what the sentence says? Not when the
        sentence is a question or a wish, nor when the predicate is far from it in meaning: below
        ``VERIFY_FLOOR`` of the blend, or more than ``VERIFY_GAP`` below the nearest predicate
        ("I switched to a Samsung Galaxy": uses_phone 0.65, has_pet far below). Only the clause that
        says the value is compared: "Reporting reads from BigQuery; I adopted a cat" is not about pets."""
        if sentence.rstrip().endswith("?") or HYPOTHETICAL.search(sentence):
            return False
        spec = self.vocab.predicates.get(predicate)
        if spec is None or not spec.examples or self.embedder is None:
            return True  # an open predicate, or one with nothing to compare against
        clause = next((c for c in CLAUSE_BREAK.split(sentence) if value.lower() in c.lower()), sentence)
        ties = [w for w, p in self.vocab.relations.items() if p == predicate]
        if ties and not any(re.search(rf"\b{re.escape(w)}(?:s|es)?\b", sentence, re.I) for w in ties):
            return False  # a tie is said by its noun ("Natasha transferred Stark to Clint" makes no one a parent)
        scores = self._scores(Reading(subject, "", value, clause, "plain", True))
        score = scores.get(predicate, 0.0)
        return score >= VERIFY_FLOOR and score >= max(scores.values(), default=0.0) - VERIFY_GAP

    def _typed_thing(self, phrase: str) -> bool:
        """A phrase that ends in one of the group's entity types ("the Initech account", "billing service")."""
        words = phrase.lower().split()
        return len(words) > 1 and words[-1] in self.types

    def _of_a_type(self, phrase: str) -> bool:
        """A phrase whose last word is one of the group's entity types ("the women's team" in a club's
        ontology): a thing with slots of its own, not one acting on others' ("our platform team")."""
        return self._typed_thing(phrase) or phrase.lower().strip() in self.types

    def _slot_owner(self, subject: str, predicate: str, text: str = "") -> str:
        """A subject said as its owner and the slot's own noun ("Gateway deploys go to Render",
        "Billing's database is Spanner now") is the owner's; not when the clause says the slot's noun
        apart ("The code for the back door": the back door, of door_code)."""
        named = self._name_said_before(subject, predicate, text)
        if named != subject:
            return named  # ("Rosa's cheese stall is on pitch 12": Rosa's, as the examples say "Rosa's stall")
        words = subject.split()
        last = words[-1].lower() if len(words) > 1 else ""
        *parts, noun = predicate.split("_")
        if last in parts and re.search(rf"\b{re.escape(noun)}s?\b", text.replace(subject, ""), re.I):
            return subject
        if last and a_slot_word(last, self.words.get(predicate, frozenset()) | set(predicate.split("_"))):
            return " ".join(words[:-1]).removesuffix("'s").removesuffix("’s")
        return subject

    def _name_said_before(self, subject: str, predicate: str, text: str) -> str:
        """"Amira's sessions run on Zoom": a common noun said after a name's "'s", in a slot of the group's whose
        examples are all said of names ("Leo is taught at the library") or say the noun as a name's ("Rosa's stall"),
        is said of the name."""
        said = re.search(rf"\b({_NAME})\s*['’]s\s+(?:[a-z-]+\s+)?{re.escape(subject)}\b", text) \
            if subject.islower() and predicate in self.vocab.own else None
        read = self._example_readings(self.vocab.predicates[predicate]) if said else []
        examples = [r for _, r in read if r is not None]  # (an example the parse cannot read says nothing either way)
        noun = subject.split()[-1]
        owned = any(re.search(rf"\b{_NAME}['’]s\s+{re.escape(noun)}\b", e) for e, _ in read)  # ("Rosa's stall")
        if said is None or not examples or not owned and not all(r.subject[:1].isupper() for r in examples):
            return subject
        return said.group(1)

    def whose(self, subject: str) -> str:
        """A subject said with the noun of a slot or of an entity type after its name ("The Hooli
        contract", "Hooli's contract", "the billing service"): the name, as the offline reader files it."""
        words = [w for w in subject.split() if w.lower() not in ("the", "a", "an", "our", "their", "my")]
        if len(words) < 2:
            return subject
        last = words[-1].lower()
        owner = re.sub(r"['’]s?$", "", " ".join(words[:-1]))  # ("Hooli's", "the Tuesday beginners' class")
        if last in self.types or (last.removesuffix("s") in self.slot_words and owner[:1].isupper()):
            return owner
        return " ".join(words)  # ("The API gateway" is the "API gateway" the offline reader names)

    def _of_things(self, predicate: str) -> bool:
        """Do the predicate's own examples say it of things ("The billing service uses Postgres"),
        not of the speaker ("I take 20 mg of lisinopril")? Then a clause the speaker acts in ("we
        moved billing to Spanner") states it of what the speaker acts on."""
        if predicate not in self.vocab.own:
            return False  # the built-in ontology is personal life: its slots are people's
        return self._exemplars().speaker_share.get(predicate, 1.0) <= 0.5  # not most of them

    def _worth(self, r: Reading) -> bool:
        work = _TO_WORK.search(r.text) if not r.moved and r.subject[:1].isupper() else None
        if work is not None and work.group(1).lower() not in self.slot_words:  # (unless a slot's: "our office")
            return False  # "Marcus moved to the Dublin office": one sent to a place of work, no slot's change
        said = re.sub(r"^(?:so|and|but|then)\s+", "", r.text, flags=re.I)  # (the clause's own words: "so I got a Kia")
        return not self.changes_only or r.shape != "plain" or bool(CHANGE_CUE.search(said)) \
            or _PRESENT_STATE.match(said) is not None or _BEGUN.match(said) is not None \
            or _LASTING.match(said) is not None or r.verb == "buy" and r.object_proper  # (a name bought is had)

    def _example_readings(self, p: Predicate) -> list[tuple[str, Reading | None]]:
        """The predicate's examples read (parsed once per reader: asked of each reading a slot matches)."""
        if p.name not in self._read_examples:
            self._read_examples[p.name] = example_readings(p, self.vocab, self.types, self.slot_words)
        return self._read_examples[p.name]

    @functools.cached_property
    def _read_examples(self) -> dict[str, list[tuple[str, Reading | None]]]:
        return {}

    def _exemplars(self) -> Exemplars:
        assert self.embedder is not None
        cache = _EXEMPLARS.setdefault(self.embedder, {})
        if self.vocab.version not in cache:
            cache[self.vocab.version] = build_exemplars(self.active, self.vocab, self.types, self.slot_words,
                                                        self.embedder)
        return cache[self.vocab.version]
