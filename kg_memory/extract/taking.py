"""Which values a slot takes: a word of its value class, a number where its examples give numbers, a name where they
name, a weekday where they say one, and so on, as the slot's own examples say its values. A part of
``MeaningReader``, kept apart so each stays readable; it leans on the reader's exemplars and example readings,
declared below for the type checker."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from ..core.vocab import Predicate, Vocabulary
from ..embed.base import Embedder
from . import dates
from .canonical import near_class_word
from .exemplars import Exemplars
from .reading import Reading
from .values import an_amount, has_number, names_its_slot


class Taking:
    """The values a ``MeaningReader``'s slots take (mixed into it)."""

    if TYPE_CHECKING:
        vocab: Vocabulary
        embedder: Embedder | None
        words: dict[str, frozenset[str]]

        def _exemplars(self) -> Exemplars: ...
        def _example_readings(self, p: Predicate) -> list[tuple[str, Reading | None]]: ...
        def _a_role(self, thing: str) -> bool: ...
        @property
        def _role_slots(self) -> frozenset[str]: ...

    def _takes(self, predicate: str, value: str) -> bool:
        """A value-class predicate takes only a word of its class ("Siemens" is no job title); a
        predicate whose examples all give a number ("500 mg", "12 Elm Street") takes only a value
        with one ("naproxen" is no dose, "Melbourne" no street address)."""
        ex = self._exemplars()
        if predicate in ex.numbered and not has_number(value) \
                and (value.lower().split() or [""])[-1] not in self.words[predicate]:
            return False  # (unless its own noun says it is one: "the bright tank" for "FV3", "fermenter 5")
        if predicate in ex.amountless and an_amount(value):
            return False  # and one whose examples never give an amount takes none ("5 mg of X" is no medication)
        if (predicate in ex.named or predicate in self.vocab.ties) and not any(c.isupper() for c in value) \
                and (predicate in self.vocab.ties or not self._said_as_its_examples(predicate, value)):
            return False  # a slot whose examples all name someone or something takes a name (and a tie, a person),
            # or a value said with its own noun, as an example says one ("the new blue livery")
        if predicate in ex.unnamed and all(w[:1].isupper() for w in value.split()):
            return False  # and one whose examples never do ("negotiation", "closed won") takes no name
        if self._a_role(value) and predicate not in self._role_slots:
            return False  # a role ("deputy editor") is the value only of a slot whose examples give roles
        if ex.weekdays.get(predicate, dates.names_a_weekday(value)) != dates.names_a_weekday(value):
            return False  # a slot whose examples all say a weekday takes one ("Fridays"), one whose never do none
        spec = self.vocab.predicates[predicate]
        if not spec.value_class:
            return True
        low = value.lower()
        if names_its_slot(value, predicate):
            return True  # a value said with its slot's own noun ("a low carb diet") is of its class
        return any(low == w or low.endswith(" " + w) or low.startswith(w + " ")
                   for w in self.vocab.value_classes.get(spec.value_class, ())) \
            or near_class_word(self.embedder, self.vocab, spec.value_class, value) is not None

    def _said_as_its_examples(self, predicate: str, value: str) -> bool:
        """A value that ends with its slot's own noun, as one of the slot's examples' values does ("the new blue
        livery" of livery, whose example is "the purple Northern livery"; not "the digital gallery" of a gallery
        whose examples are "Room 4" and "the Sackler Wing")."""
        noun = value.lower().split()[-1] if names_its_slot(value, predicate) else None
        return noun is not None and any(found is not None and found.object.lower().split()[-1:] == [noun]
                                        for _, found in self._example_readings(self.vocab.predicates[predicate]))

    def _one_of_many_unlike_its_examples(self, predicate: str, r: Reading, counted: bool) -> bool:
        """"I became a registrar": a common noun said as one of many (``counted``: "a registrar", a lower-case value
        after "a"; not a name's kind, "a Java codebase", nor one said with the slot's own noun or keyword, "a
        chemistry degree"), in a slot of values without a class whose examples all say theirs bare ("I study law",
        "My degree is in history"), is no value of it."""
        spec = self.vocab.predicates[predicate]
        if not counted or spec.object_kind != "value" or spec.value_class or names_its_slot(r.object, predicate) \
                or r.object.split()[-1] in spec.keywords:
            return False
        return self._said_bare(spec)

    def _said_bare(self, spec: Predicate) -> bool:
        """Do the predicate's examples all say their values without an article or a possessive? (Read once per
        predicate and reader.)"""
        if spec.name not in self._bare:
            read = [(e, found) for e, found in self._example_readings(spec) if found is not None and found.object]
            self._bare[spec.name] = bool(read) and not any(
                re.search(rf"\b(?:a|an|the|my|our)\s+(?:[\w-]+\s+)?{re.escape(found.object)}\b", e, re.I)
                for e, found in read)
        return self._bare[spec.name]

    @functools.cached_property
    def _bare(self) -> dict[str, bool]:
        return {}


def counted(r: Reading) -> bool:
    """Is the reading's value a common noun said after "a" or "an" ("I became a registrar")?"""
    return bool(r.object) and r.object.islower() \
        and re.search(rf"\b(?:a|an)\s+{re.escape(r.object)}\b", r.text, re.I) is not None
