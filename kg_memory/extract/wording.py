"""How a clause words what it says, as the meaning reader weighs it: a value held at a slot's noun ("a job with
Boots"), a denial, a person's title, a word's stem."""

from __future__ import annotations

import re

from ..core.vocab import Predicate
from .reading import Reading

DENIED = re.compile(r"\b(?:not|never)\b|n['’]t\b", re.I)


def held_at(noun: str, value: str, text: str) -> re.Match[str] | None:
    """"a job with Boots", "a new job at Boots": one of a noun held at a value (group 1 the noun, 2 the value);
    not the one there ("services the boiler at the Elm Road house"), nor where one went ("to a farm at X")."""
    return re.search(rf"(?<!\bto )\ban?\s+(?:new\s+)?({noun})\s+(?:at|with|for)\s+(?:the\s+)?({value})", text)


def held_at_its_noun(spec: Predicate, r: Reading) -> bool:
    """"I took a job with Boots": the value held at a keyword of the slot's own ("job"); not one sought
    ("looking for a job at Google", "applied for a job at Google")."""
    said = held_at(r"\w+", re.escape(r.object), r.text)
    if said is None or said.group(1).lower() not in spec.keywords or DENIED.search(r.text):
        return False
    return re.search(rf"\bfor\s+(?:(?:a|an|the|my|new|another)\s+)*{said.group(1)}\b", r.text, re.I) is None


# a person's title before a name ("Captain Hale", "Dr Patel", "Cllr Ross")
_TITLED = re.compile(r"\b(?:Captain|Capt|Dr|Cllr|Councillor|Mr|Mrs|Ms|Miss|Prof|Professor|Sir|Dame|Rev|Judge|"
                     r"Sergeant|Sgt|Coach|Chef|Nurse)\.?\s+[A-Z]")


def titled(name: str) -> bool:
    return _TITLED.match(name) is not None


def says_a_title(text: str) -> bool:
    """Does a text name someone by a title anywhere ("The master of the Aurora is Captain Lin")?"""
    return _TITLED.search(text) is not None


def stem(word: str) -> str:
    """A word without the ending of a doer or a past ("presenter", "presented": present)."""
    for end in ("ers", "er", "ed"):
        if word.endswith(end) and len(word) - len(end) >= 4:
            stem = word[:-len(end)]
            return stem[:-1] if stem[-1] == stem[-2] and stem[-1] not in "aeiou" else stem  # ("flagged": flag)
    return word
