"""The words that name a slot itself, from each predicate's name and description ("doctor", "contact", "goal"), and
the cues among them: a clause whose subject is one of them says whose slot it is through that noun's owner ("my
doctor", "our contact at Hooli"), and a clause that says a word only one predicate uses leans to it."""

from __future__ import annotations

import re

from ..core.vocab import Predicate
from .wording import stem

# the values a description lists ("the stage a matter has reached, such as pleadings, disclosure or trial"): values,
# not words that name the slot
_SUCH_AS = re.compile(r"\b(?:such\s+as|e\.g\.|for\s+example|for\s+instance)\b[^.;]*", re.I)
# and a slot of values' list after a colon ("how a resident gets about: with a frame, or in a wheelchair"; a slot of
# names lists its own nouns so: "another relative: cousin, aunt")
_LISTED = re.compile(r":[^.;]*")
_COMMON = frozenset({"that", "this", "with", "from", "they", "their", "them", "what", "which", "such", "person",
                     "people", "thing", "things", "takes", "uses", "works", "where", "when", "into", "about", "team",
                     "name", "stores", "runs"})


def described(p: Predicate) -> str:
    """A predicate's description without the values it lists (``_SUCH_AS``, ``_LISTED``)."""
    said = _SUCH_AS.sub("", p.description)
    return _LISTED.sub("", said) if p.object_kind == "value" else said


def listed_values(p: Predicate) -> str:
    """The values a predicate's description lists ("applied, screening, interview, offer or hired"), as said."""
    found = _SUCH_AS.search(p.description) or (_LISTED.search(p.description) if p.object_kind == "value" else None)
    return re.sub(r"^(?:such\s+as|e\.g\.|for\s+example|for\s+instance|:)\s*", "", found.group(0), flags=re.I) \
        if found else ""


def slot_words_of(active: list[Predicate], types: frozenset[str]) -> dict[str, frozenset[str]]:
    """Each predicate's words that name its slot: of its name and description, not an entity type's name (that is
    whose slot it is, never the slot: "our billing service" is billing), and its letters ("its PI", "a GP")."""
    return {p.name: frozenset({w for w in re.findall(r"[a-z]+", f"{p.name} {described(p)}")
                               if len(w) >= 3 and w not in _COMMON and w not in types}
                              | {w.lower() for w in re.findall(r"\b[A-Z]{2,4}\b", p.description)})
            for p in active}


def cues_of(words: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """The words only one predicate's name and description use ("school", "car", "boss"), and their stems."""
    only = {name: frozenset(w for w in ws if not any(w in other for n, other in words.items() if n != name))
            for name, ws in words.items()}
    return {name: ws | {stem(w) for w in ws} for name, ws in only.items()}
