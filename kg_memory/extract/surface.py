"""A reading of a whole sentence off its words, for where the dependency parse gave no clause a
slot takes (the small parser took a verb for a noun, or hung the subject elsewhere): the subject is
the first noun phrase or the words before the verb, the value the name after "to" in a change, else
the last name said. ``clauses`` reads the parse; this is its fallback."""

from __future__ import annotations

import re
from typing import Any

from . import parse
from .clauses import _NAMED, in_place_of
from .reading import CHANGE, HAND_OVER, REWRITE, Reading
from .reading import PRONOUNS as _PRONOUNS
from .reading import WHEN as _WHEN
from .values import AMOUNT, PHONE
from .values import DETS as _DETS
from .values import noun_phrase as _phrase
from .whose import FIRST as _FIRST
from .whose import OPENING_ADVERBS, a_slot_noun
from .whose import mine_said_as as _mine_said_as
from .whose import owner as _owner
from .whose import with_me as _with_me

# (in any tense: "DevDays moves to Olympia")
_CHANGE_WORDS = re.compile(r"\b(?:(?:mov|migrat|chang|replac|upgrad|downgrad)(?:e|es|ed|ing)|switch(?:es|ed|ing)?|"
                           r"swap(?:s|ped|ping)?|went|goes|transfer(?:s|red|ring)?|hand(?:s|ed|ing)|pass(?:es|ed|ing)|"
                           r"port(?:s|ed|ing)|rewr(?:ote|itten|ites|iting))\b", re.I)


def surface_readings(doc: Any, speaker: str, types: frozenset[str], slot_words: frozenset[str] = frozenset(),
                     people: frozenset[str] = frozenset(), verbs: frozenset[str] = frozenset(),
                     given: frozenset[tuple[str, str]] = frozenset()) -> list[Reading]:
    """A reading of the whole sentence off its words, where the parse gave nothing usable: the
    subject is its first noun phrase (or the thing a "we moved X" moves), the value the name after
    "to" in a change, else the last name after the subject; ``no longer`` and ``stopped`` end."""
    chunks = [c for c in doc.noun_chunks if c.root.lower_ not in _PRONOUNS]
    if not chunks:  # ("The gateway deploys to Fly.io": the parser saw no noun phrase at all)
        lead = _leading_subject(doc, verbs, types)
        return [] if lead is None else _after_its_subject(doc, lead, given)
    # the clause's subject; none said ("Packed everything up and moved to Dublin"): the speaker
    first = next((c for c in chunks if c.root.dep_ in ("nsubj", "nsubjpass")), None)
    if first is None:
        first = next(c for c in doc.noun_chunks if c.root.lower_ in _FIRST) if any(
            c.root.lower_ in _FIRST for c in doc.noun_chunks) else None
    if first is None:
        opened = _slot_said_of(doc, speaker, types, slot_words)
        if opened is not None:
            return _surface_value(doc, opened[0], doc.text[opened[1]:])
        lead = _leading_subject(doc, verbs, types)
        if lead is not None:
            return _after_its_subject(doc, lead, given)
        if _someone_else(doc):
            return []  # "He moved to Utrecht": someone this sentence does not name, never the speaker
        return _surface_value(doc, speaker, doc.text)
    verb = next((t for t in first if t.pos_ == "VERB"), None)
    if verb is not None and verb.i > first.start:  # "Ledger outgrew SQLite, so it ...": a clause read as a noun phrase
        words = [w.text for w in doc[first.start:verb.i] if w.lower_ not in _DETS]
        return _surface_value(doc, " ".join(words), doc.text[verb.idx + len(verb.text):]) if words else []
    named = [w for w in doc[first.start:first.root.i] if w.lower_ not in _DETS]
    if first.root.text.islower() and first.root.lower_.endswith("s") and not first.root.lower_.endswith("ss") \
            and named and all(w.text[:1].isupper() for w in named):  # ("Rhys inspects hive 7": a name and its verb)
        return _surface_value(doc, " ".join(w.text for w in named), doc.text[first.root.idx + len(first.root.text):])
    subject_chunk = first
    moved = chunks[1].root if len(chunks) > 1 else None
    if first.root.lower_ in _FIRST and moved is not None and moved.dep_ == "dobj" \
            and moved.head.lemma_.lower() in CHANGE | HAND_OVER | REWRITE \
            and not any(k.dep_ == "prt" and k.lower_ == "in" for k in moved.head.children) \
            and moved.lemma_.lower() not in slot_words:  # "we moved the web app"; "I switched schools": mine
        subject_chunk = chunks[1]  # (not "I handed in my notice": a thing handed in is given up, not moved)
    root = subject_chunk.root
    mine = root.lemma_.lower() in slot_words or _mine_said_as(root, root.head, people)
    owner = _owner(root, speaker, types) if mine else None
    subject = speaker if subject_chunk.root.lower_ in _FIRST or _with_me(subject_chunk.root) \
        else owner or _phrase(subject_chunk.root, types)
    return _surface_value(doc, subject, doc.text[subject_chunk.end_char:])


def _leading_subject(doc: Any, verbs: frozenset[str], types: frozenset[str]) -> tuple[str, int] | None:
    """Where the small parser read no subject because it took the verb for a noun ("Mailer deploys to
    Lambda", "The events pipeline stores data in Kafka", "Reporting now ships to Kubernetes"): the
    words before the first word the ontology's own examples use as a verb (or a root noun in -s
    before a preposition, "talks to") are the subject; returns it and where the rest starts."""
    for t in list(doc)[1:]:
        low = t.lower_
        said_as_verb = low in verbs or low.removesuffix("es") in verbs or low.removesuffix("s") in verbs
        # a noun in -s after a noun and before what a verb takes ("pipeline stores data", "service talks to")
        misread = t.pos_ == "NOUN" and low.endswith("s") and not low.endswith("ss") and t.i + 1 < len(doc) \
            and doc[t.i - 1].pos_ in ("NOUN", "PROPN") and (doc[t.i + 1].pos_ in ("ADP", "NOUN", "PROPN", "DET", "SYM",
                                                                              "NUM")  # ("ticket costs £199")
                                                            or doc[t.i - 1].text[:1].isupper() and t.text.islower())
        # (or after a name, whatever the parser made of the next word: "Rhys inspects hive 7")
        past = low.endswith("ed") and t.pos_ in ("ADJ", "VERB") and all(w.text[:1].isupper() for w in doc[:t.i])
        # a verb the parser hung its subject on as a compound ("The gateway deploys to ...")
        hung = t.pos_ == "VERB" and any(k.dep_ == "compound" and k.i < t.i for k in t.children)
        if not (said_as_verb or misread or past or hung):  # (or "Vandelay advanced to ...": a past after a name)
            continue
        words = [w for w in doc[:t.i] if w.lower_ not in _DETS and w.pos_ != "ADV" and not w.is_punct]
        if not words or words[0].lower_ in _PRONOUNS | _FIRST or not all(w.pos_ in ("NOUN", "PROPN", "VERB", "ADJ",
                                                                                   "NUM") for w in words):
            return None
        parts = [w.text for w in words]
        if len(parts) > 1 and parts[-1].lower() in types:
            parts = parts[:-1]
        return " ".join(parts), t.idx + len(t.text)
    return None


_NUMBERED = re.compile(r"(?<![\w'’])(?-i:[a-z]+)\s+\d+[a-z]?\b(?!\s*(?:am|pm|%))", re.I)  # ("hive 7", "van 3")
_CLOCK = re.compile(r"\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)|\d{1,2}[:.]\d{2}", re.I)  # ("18:25", "7pm", "9.30am")


def _after_its_subject(doc: Any, lead: tuple[str, int], given: frozenset[tuple[str, str]]) -> list[Reading]:
    """The value said after a subject read off the surface (``_leading_subject``): a time it is given, or a name."""
    return _time_given(doc, lead, given) or _surface_value(doc, lead[0], doc.text[lead[1]:])


def _time_given(doc: Any, lead: tuple[str, int], given: frozenset[tuple[str, str]]) -> list[Reading]:
    """"The Dublin flight leaves at 18:25" (the small parser took "leaves" for a noun): a time of day said after the
    verb is the value; so is a day said with a preposition the group's examples give one with (``value_preps``)."""
    word = doc.text[:lead[1]].split()[-1].lower()
    said = re.match(r"\s+(at|on|every)\s+(.+?)[.!]?\s*$", doc.text[lead[1]:])
    if said is None or not _CLOCK.fullmatch(said.group(2)) and not (_WHEN.match(said.group(2)) and any(
            (w, said.group(1)) in given for w in (word, word.removesuffix("s"), word.removesuffix("es")))):
        return []
    return [Reading(lead[0], word.removesuffix("s"), said.group(2), doc.text, "plain", False)]


def _slot_said_of(doc: Any, speaker: str, types: frozenset[str], slot_words: frozenset[str]
                  ) -> tuple[str, int] | None:
    """A clause that opens with a slot's noun said of its owner, which the small parser took for a verb ("Copy
    for the weekend edition is due at 6pm"): the owner, and where the rest starts."""
    noun = next((t for t in doc if t.lower_ not in _DETS), None)
    if noun is None or not a_slot_noun(noun, slot_words) or noun.dep_ not in ("csubj", "nsubj"):
        return None
    whose = _owner(noun, speaker, types)
    end = max(t.idx + len(t.text) for t in noun.subtree)
    return None if whose is None else (whose, end)


def _someone_else(doc: Any) -> bool:
    """Is a clause's subject a person other than the speaker ("he", "they")? ("Moved to Denver, it was
    great": "it" is no one, and the move is the speaker's.)"""
    return any(t.dep_ in ("nsubj", "nsubjpass") and t.lower_ in _OTHERS for t in doc)


_OTHERS = frozenset({"he", "she", "they"})


# a when or a why after a clause's value ("after Lena's reorg", "because of the merger"): the names
# from it on are not the value (as the parse reads the objects of NOT_VALUE's prepositions)
_ADJUNCT_WORDS = frozenset({"after", "before", "since", "during", "until", "because", "following"})
_ADJUNCT = re.compile(rf"\b(?:{'|'.join(sorted(_ADJUNCT_WORDS))})\b", re.I)


# words that open a clause with a capital, and name nothing: its adverbs, and the words that join it to another
_OPENERS = OPENING_ADVERBS | _ADJUNCT_WORDS | {"when", "while", "although", "though", "if", "as", "but", "and",
                                               "sadly", "luckily"}
_MEASURE = re.compile(r"^\d+(?:-[a-z]+)+$")  # "5-day", "12-week": a measure said before a noun, no name


def _surface_value(doc: Any, subject: str, rest: str) -> list[Reading]:
    """The value the words after the subject name: the name after "to" in a change, else the last name;
    or the one said in place of another."""
    shape = "plain"
    replaced = in_place_of(rest, subject)
    if replaced is not None:
        return [Reading(subject, "", replaced[0], doc.text, "change", True, replaced[1])]
    to = re.search(r"\b(?:to|into|onto|for)\s+(?:the\s+)?(" + _NAMED.pattern + ")", rest) \
        or re.search(r"\bmoved\s+in\b.*?\bin\s+(" + _NAMED.pattern + ")", rest)  # ("moved in with X in Leeds")
    if to and (_CHANGE_WORDS.search(doc.text) or re.search(r"\bfrom\s+(?:the\s+)?[A-Z][\w.'’/-]*.*?\bto\b", rest)):
        value, shape = to.group(1), "change"
    else:
        # (a name, not a time, a pronoun or a bare number: "Sam and I" names no "I"; "a 4 day split" no "4";
        # nor the name in a when or why after one: "belongs to Marco after Lena's reorg")
        found = [m for m in _NAMED.finditer(rest) if not _WHEN.match(m.group(0).strip(" .,;"))
                 and m.group(0).split()[0].lower() not in _OPENERS  # ("Since lambing ...": no name)
                 and m.group(0).strip(" .,;").lower() not in _PRONOUNS | _FIRST
                 and not m.group(0).strip(" .,;").isdigit() and not _MEASURE.match(m.group(0).strip(" .,;"))]
        kept: list[re.Match[str]] = []
        for m in found:
            if kept and _ADJUNCT.search(rest[kept[-1].end():m.start()]):
                break  # the rest says when or why
            kept.append(m)
        names = [m.group(0) for m in kept] or [m.group(0) for m in AMOUNT.finditer(rest)] \
            or [m.group(0) for m in _NUMBERED.finditer(rest)]  # (a thing by its number: "Rhys inspects hive 7")
        plain = re.match(r"\s*(?:\w+\s+)?(?:to|into)\s+(?:the\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*)?)\b", rest)
        if not names and plain is None:
            return []
        value = names[-1] if names else plain.group(1) if plain else ""  # "advanced to the demo stage"
        if re.search(r"\bno longer\b|\bstopped\b|\bquit\b|\bdropped\b", rest, re.I):
            shape = "end"
    amounts = [m.group(0) for m in (*AMOUNT.finditer(rest), *PHONE.finditer(rest))]
    if amounts and (shape != "change" or any(a.startswith(value) for a in amounts)):
        value = next((a for a in amounts if a.startswith(value)), amounts[-1])  # "500" says "500 mg"
    value = parse.TIME_TAIL.sub("", value).strip(" .,;")
    if not value or value.lower() == subject.lower() or not subject or _WHEN.match(value):
        return []
    old = re.search(r"\bfrom\s+(?:the\s+)?(" + _NAMED.pattern + r")\s+to\b", rest)
    return [Reading(subject, "", value, doc.text, shape, True, old.group(1) if old and shape == "change" else None)]


# a clause joined with its own named subject ("... and Mark Byrne took over", "; his understudy Leon Price is")
_JOINED_NAME = re.compile(r"(?:;|,?\s+and)\s+(?=(?:his|her|their|our)\s+\w+\s+[A-Z]|[A-Z][a-z])(?!I\b)")
# a reason or result said after a comma
_SURFACE_BREAK = re.compile(r",\s+(?:so|and so|because|but)\s+", re.I)


def misjoined(doc: Any) -> bool:
    """Did the small parser join a clause's named subject to the noun before it ("quarrelled with the cast and
    Raj Mehta took over": "Raj Mehta" a conj of "cast", and "took" no verb of Raj's)?"""
    return any(t.dep_ == "conj" and t.pos_ == "PROPN" and t.head.pos_ == "NOUN" and _verb_after(t)
               or _name_as_verb(t) for t in doc)


def _verb_after(t: Any) -> bool:
    """Is a verb the next word after ``t``, but for adverbs ("... and Inés now manages ...")?"""
    after = next((n for n in t.doc[t.i + 1:] if n.pos_ != "ADV"), None)
    return after is not None and after.pos_ in ("VERB", "AUX")


def _name_as_verb(t: Any) -> bool:
    """"Kane retired and Speke fire station is now ...": a capital after "and" that the parser took for a verb."""
    return t.dep_ == "conj" and t.pos_ == "VERB" and t.text[:1].isupper() and t.text[1:].islower() and t.i > 1 \
        and t.doc[t.i - 1].lower_ == "and"


def named_clauses(sentence: str) -> list[str]:
    """A sentence's clauses joined by "and" or ";" to one with a named subject of its own, which the small
    parser may hang on the first ("Ola fell out with the producers and Mark Byrne took over ...")."""
    return [p for p in _JOINED_NAME.split(sentence) if p.strip()]


def clauses_of(sentence: str, doc: Any) -> list[Any]:
    """A sentence's clauses, to read each off its surface: a reason or result said after a comma is a clause
    of its own ("Virgin kept dropping out, so we went with Sky": the second's subject is "we"), unless it
    goes on about the first's subject ("Ledger outgrew SQLite, so it uses Postgres now")."""
    parts = [p for p in _SURFACE_BREAK.split(sentence) if p.strip()]
    if len(parts) < 2 or any(p.split()[0].lower() in ("it", "they", "he", "she", "its", "their") for p in parts[1:]):
        return [doc]
    return [parse.parsed(p) for p in parts]
