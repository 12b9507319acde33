"""Which way round a reading is said: a named one acting on an unnamed thing ("Lena owns the auth service")
is the thing's slot with the name as its value; so is one said with a title, or as a role at a named thing,
or a name said with the noun of the slot that ends. A part of ``MeaningReader``, kept apart so each stays
readable; it leans on the reader's slots, scores and exemplars, declared below for the type checker."""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from ..core.vocab import Predicate, Vocabulary
from .exemplars import PASSIVE, Exemplars, doer_said_first, ended_so
from .reading import Reading
from .shapes import Slots, bare, kept_somewhere, served
from .whose import MOVES, a_slot_word, agent_noun
from .wording import says_a_title, titled

_IN_CHARGE = re.compile(r"\b(?:in charge of|at the helm of|on the hook for|on call for|on the (?:\w+\s+){1,3}"
                        r"(?:job|case|account))\b", re.I)  # a role a thing has ("Priya is on the Land Rover job")


def _acts_at(text: str, doer: str, place: str) -> bool:
    """Is ``doer`` said first, acting at ``place``, which ends the clause ("Malcolm plays the organ at St Peter's")?"""
    plain = re.sub(r"\s+(['’]s)\b", r"\1", text)  # (the parse's "St Mary 's")
    return re.search(rf"\b{re.escape(doer)}\b.*\s(?:at|for)\s+(?:the\s+)?{re.escape(place)}\W*$", plain) is not None


class Turning:
    """The readings a ``MeaningReader`` turns round (mixed into it)."""

    if TYPE_CHECKING:
        vocab: Vocabulary
        active: list[Predicate]
        words: dict[str, frozenset[str]]
        slot_words: frozenset[str]

        def _exemplars(self) -> Exemplars: ...
        def _example_readings(self, p: Predicate) -> list[tuple[str, Reading | None]]: ...
        def _scores(self, r: Reading, things_only: bool = False, classed: bool = True,
                    among: frozenset[str] | None = None) -> dict[str, float]: ...
        def _typed_thing(self, phrase: str) -> bool: ...
        def whose(self, subject: str) -> str: ...
        def slots(self, r: Reading, things_only: bool = False, among: frozenset[str] | None = None
                  ) -> Slots | None: ...

    def _titled_holder(self, r: Reading, spec: Predicate) -> Reading:
        """"Captain Moreau commands the Pride of Kent": one said with a person's title, acting on a name said
        without one, is the value of a group's slot whose examples give titled people (the ship's master)."""
        if spec.name not in self.vocab.own or spec.object_kind != "entity" or r.shape not in ("plain", "change") \
                or not titled(r.subject) or titled(r.object) or not r.object[:1].isupper() \
                or not any(says_a_title(e) for e in spec.examples):
            return r
        return replace(r, subject=r.object, object=r.subject, object_proper=True)

    def _role_at(self, r: Reading, spec: Predicate) -> Reading:
        """"Aisha is now head chef at The Grove": one said to be a slot's role at a named thing is the thing's
        value of that slot (a slot of the group's whose values are names, its role said in its own words)."""
        if spec.name not in self.vocab.own or spec.object_kind != "entity" or not r.subject[:1].isupper() \
                or kept_somewhere(r):
            return r  # (a participle is no role: "The older Land Rover is kept at the Glenridding base")
        role = re.search(rf"\b{re.escape(r.subject)}\s+(?:is|was|are|became|becomes|has become)\s+(?:now\s+)?"
                         rf"(?:the\s+|our\s+|a\s+)?((?:[a-z-]+\s+){{0,2}}[a-z-]+)\s+(?:at|of|for)\s+(?:the\s+)?"
                         rf"{re.escape(r.object)}\b", r.text, re.I)
        words = self.words.get(spec.name, frozenset()) | set(spec.name.split("_"))
        if role is None or not any(a_slot_word(w, words) for w in role.group(1).split()):
            return r
        return replace(r, subject=r.object, object=r.subject, object_proper=True)

    def _as_its_examples_are(self, r: Reading, spec: Predicate) -> Reading:
        """One name said acting on or at another, in a slot of the group's whose examples say the value first, doing
        the same ("Sam is working on INC-208": INC-208's assignee) or acting at the subject ("Malcolm plays the organ
        at St Peter's"), is the other's value, as the examples are ("Dev is working on INC-902", "Hilary has taken
        over on the organ at St Mary's")."""
        if spec.name not in self.vocab.own or spec.object_kind != "entity" or not r.subject[:1].isupper() \
                or not r.object[:1].isupper() or kept_somewhere(r) or not 0 <= r.text.find(r.subject) < r.text.find(
                    r.object.removesuffix("'s")):
            return r
        at = _acts_at(r.text, r.subject, r.object)
        same = r.verb not in ("", "be", "have") and not PASSIVE.search(r.text)  # (a passive says its doer last)
        if not any(e is not None and (at and _acts_at(e.text, e.object, e.subject) or same and e.verb == r.verb
                                      and doer_said_first(e)) for _, e in self._example_readings(spec)):
            return r
        return replace(r, subject=r.object, object=r.subject, object_proper=True)

    def _named_end(self, r: Reading, spec: Predicate) -> Reading:
        """An end read as the slot of the name its noun is said with ("closed my Santander account"), when
        the slot's values are names: the name is the value that ends, and the slot is the one who said it."""
        if r.said_by is None or spec.name not in self._exemplars().named \
                or f" {r.subject.lower()} " not in f" {r.object.lower()} ":
            return r
        return replace(r, subject=r.said_by, object=r.subject, object_proper=True, said_by=None)

    def _nearer(self, a: tuple[Reading, Slots], b: tuple[Reading, Slots]) -> bool:
        """Is the first reading nearer its slot in meaning than the second ("Priya will photograph the
        wedding" is the wedding's photographer more than Priya's caterer)?"""
        return self._scores(a[0], things_only=True).get(a[1][0].name, 0.0) \
            > self._scores(b[0]).get(b[1][0].name, 0.0)

    def _built_the_wrong_way(self, r: Reading) -> bool:
        """"Gordon skippers the vets": a name doing a verb to a thing with no name of its own, read as a slot
        whose values are names (or said to be for one: "runs training for the under-15s"), may be the thing's
        slot with the name as its value (``_turned`` says)."""
        return r.subject[:1].isupper() and (r.verb not in ("be", "have") or _IN_CHARGE.search(r.text) is not None) \
            and self._unnamed(r.object) and not kept_somewhere(r)
        # (or is in charge of one: "Zoe is in charge of the picture desk"; not one said to be kept somewhere)

    def _unnamed(self, thing: str) -> bool:
        """A thing said without a name of its own, or as a name and a slot's noun ("the Elm Road boiler")."""
        return not any(c.isupper() for c in thing) or self._typed_thing(thing) \
            or self.whose(thing) != thing and thing.split()[-1].islower()  # (not "Backline Studios": a name)

    def _turned(self, r: Reading, speaker: str) -> tuple[Reading, Slots] | None:
        """A named one acting on an unnamed thing ("Lena owns the auth service"), which no slot of the
        group's own took as said: the thing's slot whose values are names, with the one named as its value;
        the thing's, or the one it is said to be for ("runs training for the under-15s")."""
        if r.shape not in ("plain", "change", "end") or r.subject == speaker or r.any_value or r.old \
                or not r.object or not r.subject[:1].isupper() or not self.vocab.own or not self._unnamed(r.object) \
                or r.verb in MOVES or self._a_role(r.object) or kept_somewhere(r):
            return None  # (one who moves or goes to a thing, or is made a role, holds no slot of it: "Karen moved
            # to the features desk", "Jess went on maternity leave", "Asha was promoted to deputy editor"; nor one
            # done to at a place: "Amira is taught at the central library")
        done_for = served(r)
        if done_for is None and bare(r):
            return None  # ("Mrs Adeyemi gave notice": a noun said with no article names no thing)
        if re.search(rf"\b(?:his|her|their)\s+(?:[\w-]+\s+)?{re.escape(r.object)}\b", r.text, re.I):
            return None  # (nor one's own: "Cllr Neary lost his seat" says no slot of a seat)
        turned = replace(r, subject=done_for or self.whose(r.object), object=r.subject, object_proper=True)
        found = self.slots(turned, things_only=True)  # (a stop, only as the slot says one: "Mia left the estate")
        if found and r.shape == "end" and not ended_so(found[0], r.verb):
            return None
        return (turned, found) if found and self._exemplars().takes_names(found[0].name) else None

    @functools.cached_property
    def _role_slots(self) -> frozenset[str]:
        """The slots whose values are roles: a job's, and those some of whose examples give one."""
        jobs = frozenset(p.name for p in self.vocab.predicates.values() if p.value_class == "job")
        return jobs | frozenset(p.name for p in self.active for _, r in self._example_readings(p)
                                if r is not None and self._a_role(r.object))

    def _a_role(self, thing: str) -> bool:
        """A thing said as one who does a slot's work ("deputy editor" of "edits"; not "the boiler"): a role."""
        last = thing.split()[-1] if thing.strip() else ""
        return last.islower() and agent_noun(last, self.slot_words)
