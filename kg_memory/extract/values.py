"""A value as said: the words of its phrase up to its head, then what the surface glues on after
it (a hyphen or dot run, a number after a name, a unit after a number, a bound after a target). The
parse gives the head; these functions give the words."""

from __future__ import annotations

import re
from typing import Any

from . import parse

# the determiners and possessives no value starts with (the clause reader drops them from phrases too)
DETS = frozenset({"the", "a", "an", "our", "my", "their", "its", "his", "her", "this", "that", "your"})
# a time said inside the value's phrase, which belongs to the clause's date ("Memcached last sprint")
WHEN_TAIL = re.compile(r"\s+(?:last|next|this|every|each)\s+\w+$", re.I)


def value_text(tok: Any) -> str:
    """A value as said: the words of its phrase up to its head (no determiner or possessive before
    them), then what the surface glues on after it: a hyphen or dot run ("555-0134", "6.5"), a
    number after a name or number ("Zone 2", "555 300 1122"), a unit after a number ("500 mg",
    "six and a half hours") and a bound after a target ("A1C under 6.5")."""
    doc, start = tok.doc, tok.i
    inside = {t.i for t in tok.subtree} - {t.i for k in tok.children if k.dep_ in _NOT_OF_VALUE
                                           and not _named_owner(k, tok) for t in k.subtree}
    while True:
        if start - 1 in inside and (not doc[start - 1].is_punct or _glued(doc[start - 1])):
            start -= 1
        elif start - 2 in inside and _glued(doc[start - 1]):
            start -= 2  # a slash or hyphen the parse hung elsewhere ("Pub/Sub")
        else:
            break
    if start == tok.i and tok.dep_ == "dobj" and tok.head.i == start - 1 and tok.head.tag_ == "VBG" \
            and tok.head.dep_ == "pcomp":
        start -= 1  # a compound the parser took for a gerund and its object ("for coding club")
    end = _value_end(doc, tok.i)
    if _closing_possessive(doc, end):
        end += 1
    words = doc[start:end + 1]
    while len(words) > 1 and words[0].lower_ in DETS:
        words = words[1:]
    text = "".join(t.text_with_ws for t in words).strip()
    return parse.TIME_TAIL.sub("", WHEN_TAIL.sub("", text)).strip()


def _closing_possessive(doc: Any, end: int) -> bool:
    """A name that ends in a possessive with nothing possessed after it, said as an object ("to St Mary's",
    "at McDonald's"; not "Billing is Noor's", whose possessive says whose the subject is)."""
    after = end + 2 == len(doc) or end + 2 < len(doc) and doc[end + 2].pos_ not in ("NOUN", "PROPN", "ADJ")
    return end + 1 < len(doc) and doc[end + 1].lower_ in ("'s", "’s") and doc[end + 1].head.i == end \
        and doc[end].pos_ == "PROPN" and doc[end].dep_ in ("pobj", "dobj") and after


def _named_owner(k: Any, head: Any) -> bool:
    """A name's possessive that is part of the name ("Gold's Gym", "Trader Joe's Market")."""
    return k.dep_ == "poss" and k.pos_ == "PROPN" and head.text[:1].isupper()


# dependents of a value's head that are not part of the value ("my doctor's", "the", "a")
_NOT_OF_VALUE = frozenset({"det", "poss", "predet", "case", "relcl", "acl", "prep", "appos", "punct", "cc", "aux"})
# the units a number is said with; the closed class that makes "500" the value "500 mg"
UNITS = frozenset({"mg", "mcg", "µg", "g", "kg", "lb", "lbs", "pound", "pounds", "iu", "ml", "unit", "units",
                   "hour", "hours", "hr", "hrs", "minute", "minutes", "min", "mins", "km", "k", "mile", "miles",
                   "percent", "%", "bpm", "gb", "tb", "ms", "seats", "users", "steps", "reps"})
_BOUNDS = frozenset({"under", "below", "above", "over"})

def _glued(t: Any) -> bool:
    """A token written against the next with no space: a hyphen or slash run ("555-0134", "sub-two-hour")."""
    return t.whitespace_ == "" and t.text in ("-", "–", "/", ".") and t.i + 1 < len(t.doc) \
        and t.doc[t.i + 1].text[:1].isalnum()


def numeric(t: Any) -> bool:
    return bool(t.like_num) or any(c.isdigit() for c in t.text)


def _value_end(doc: Any, end: int) -> int:
    """The last token of a value whose head is ``doc[end]``: the surface runs of ``_text``'s doc."""
    while end + 1 < len(doc):
        cur, nxt = doc[end], doc[end + 1]
        joined = cur.whitespace_ == "" and (nxt.is_alpha or numeric(nxt) or _glued(nxt)) \
            and not nxt.text.startswith(("'", "’")) and (cur.text in ("-", "–", "/", ".") or _glued(nxt)
                                                          or numeric(cur) or numeric(nxt))
        if joined or (_glued(cur) and end + 1 < len(doc)):
            end += 1
        elif numeric(nxt) and (numeric(cur) or cur.pos_ == "PROPN" or cur.text[:1].isupper()):
            end += 1  # "555 300 1122", "Zone 2", "iPhone 12"
        elif numeric(cur) and nxt.lower_ in UNITS:
            end += 1
        elif numeric(cur) and [t.lower_ for t in doc[end + 1:end + 4]] == ["and", "a", "half"]:
            end += 3
        elif nxt.lower_ in _BOUNDS and end + 2 < len(doc) and numeric(doc[end + 2]) and not cur.like_num:
            end += 2
        else:
            break
    return end
