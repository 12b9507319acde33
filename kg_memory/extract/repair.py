"""Sentences the small English parser misreads, parsed again in a form it reads right.

Each repair looks at the first parse, and only when that parse shows the known misreading does it
parse a rewritten sentence: a chat line that drops its "I" ("Sold my Civic and ..."), a name said
after its kind with no commas ("The tapir Tavi lives in the Rainforest House", whose kind the parser
takes for the sentence's head and the name for a relative clause's subject), a name said after
a noun of the subject ("The vet for the elephant Kandula is ...", which it makes a second subject), a value
after a verb of changing taken for an infinitive ("changed to ramipril"), a letter that ends a sentence
("pontoon F."), "does" taken for an auxiliary, "'s" for "is" taken for a possessive ("Kat's off sick"), and a
verb after a name taken for a plural noun ("Kone services the escalators")."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_MISTAGGED_OPENER = frozenset({"VB", "NNP", "NN"})
# "The tapir Tavi", "my little sister Maya", "Our CTO Maria Lopez", then a word in lower case (the verb)
_KIND_THEN_NAME = re.compile(r"^(?P<kind>(?:[Tt]he|[Mm]y|[Oo]ur)(?:\s+[a-z][a-z-]*){1,3})\s+"
                             r"(?P<name>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2})(?=\s+[a-z])")


def repaired(doc: Any, sentence: str, nlp: Callable[[str], Any]) -> Any:
    """The parse to read: the first one, or a repaired one where the first shows a known misreading."""
    return _dropped_subject(doc, sentence, nlp) or _named_after_its_kind(doc, sentence, nlp) \
        or _name_after_its_noun(doc, sentence, nlp) or _value_as_infinitive(doc, sentence, nlp) \
        or _letter_at_the_end(doc, sentence, nlp) or _does_as_no_verb(doc, sentence, nlp) \
        or _is_as_possessive(doc, sentence, nlp) or _verb_as_plural_noun(doc, sentence, nlp) or doc


def _dropped_subject(doc: Any, sentence: str, nlp: Callable[[str], Any]) -> Any | None:
    """A chat line that drops its "I" ("Sold my Civic and ..."): the small parser takes the capital for a base
    verb or a name. Parsed with its first word in lower case, when that reads it as a past verb."""
    first = doc[0] if len(doc) > 1 else None
    if first is None or first.tag_ not in _MISTAGGED_OPENER or first.dep_ in ("nsubj", "nsubjpass", "poss") \
            or not (first.text[:1].isupper() and first.text[1:].islower()):  # (a subject is no verb: "Caroline")
        return None
    lower = nlp(sentence[0].lower() + sentence[1:])
    return lower if lower[0].tag_ in ("VBD", "VBN") else None


def _named_after_its_kind(doc: Any, sentence: str, nlp: Callable[[str], Any]) -> Any | None:
    """"The tapir Tavi lives in the Rainforest House": when the parser heads the sentence with the kind (and the
    rest with a relative clause), the name is set off by commas as an apposition ("The tapir, Tavi, lives in
    ..."), which it reads as the subject's name."""
    m = _KIND_THEN_NAME.match(sentence)
    if m is None:
        return None
    kind = next((t for t in doc if t.idx + len(t.text) == m.end("kind")), None)
    name = next((t for t in doc if t.idx + len(t.text) == m.end("name")), None)
    if kind is None or name is None or kind.pos_ != "NOUN" or kind.dep_ != "ROOT":
        return None
    return nlp(f"{m.group('kind')}, {m.group('name')},{sentence[m.end():]}")


def _name_after_its_noun(doc: Any, sentence: str, nlp: Callable[[str], Any]) -> Any | None:
    """"The vet for the elephant Kandula is Dr Marsh": the parser made the name a second subject of the verb, beside
    the phrase its kind ends; set off by commas ("... the elephant, Kandula, is ..."), it is that phrase's name."""
    for tok in doc:
        start = tok.left_edge
        if tok.dep_ != "nsubj" or tok.pos_ != "PROPN" or start.i == 0 or doc[start.i - 1].dep_ != "pobj" \
                or doc[start.i - 1].pos_ != "NOUN":
            continue
        if not any(k.dep_ == "nsubj" and k.i < start.i for k in tok.head.children):
            continue
        end = tok.idx + len(tok.text)
        return nlp(f"{sentence[:start.idx].rstrip()}, {sentence[start.idx:end]},{sentence[end:]}")
    return None


# verbs of changing what one has, whose "to" names the new value ("I've been changed to ramipril")
_CHANGED_TO = frozenset({"change", "switch", "move", "swap", "transfer", "put", "upgrade", "convert", "shift",
                         "relocate"})


def _value_as_infinitive(doc: Any, sentence: str, nlp: Callable[[str], Any]) -> Any | None:
    """"I've been changed to ramipril": the parser takes a word it does not know, after the "to" of a verb of
    changing, for a verb in the infinitive. A bare one (nothing hangs on it but its "to") is read as the value,
    said with "onto" ("changed onto ramipril"), which the parser reads as a place put onto; so is one with a code
    after it ("shifted Puffin to pontoon D": the berth's letter, taken for the verb's object), or a clause of its own
    ("... to polytunnel 2 when it warmed up")."""
    for tok in doc:
        kids = [k for k in tok.children if k.dep_ not in ("punct", "npadvmod", "advcl") and not (
            k.dep_ == "dobj" and k.i == tok.i + 1 and (k.text.isupper() or k.text.isdigit()))]  # (and "... today")
        if tok.tag_ == "VB" and tok.dep_ in ("advcl", "xcomp") and tok.head.lemma_.lower() in _CHANGED_TO \
                and len(kids) == 1 and kids[0].lower_ == "to" and kids[0].i == tok.i - 1 and tok.i > tok.head.i:
            at = kids[0].idx
            return nlp(f"{sentence[:at]}onto{sentence[at + 2:]}")
    return None


def _letter_at_the_end(doc: Any, sentence: str, nlp: Callable[[str], Any]) -> Any | None:
    """"... across to pontoon F.": a letter that ends the sentence is taken with its full stop for an initial, a
    word apart from the noun it names. Parsed with the stop apart."""
    said = sentence.rstrip()
    if len(doc) < 2 or re.fullmatch(r"[A-Z]\.", doc[-1].text) is None or not said.endswith(doc[-1].text):
        return None
    return nlp(f"{said[:-1]} .")


_DOING = {"does": "is doing", "did": "was doing"}


def _does_as_no_verb(doc: Any, sentence: str, nlp: Callable[[str], Any]) -> Any | None:
    """"Ava does drama club after school": the parser takes "does" for an auxiliary and the clause has no verb
    (its root a noun). Parsed with the verb said in its other form ("is doing")."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    aux = next((t for t in doc if t.dep_ == "aux" and t.lower_ in _DOING and t.head == root), None)
    if root is None or aux is None or root.pos_ not in ("NOUN", "PROPN"):
        return None
    return nlp(f"{sentence[:aux.idx]}{_DOING[aux.lower_]}{sentence[aux.idx + len(aux.text):]}")


def _is_as_possessive(doc: Any, sentence: str, nlp: Callable[[str], Any]) -> Any | None:
    """"Kat's off sick, so Dev has taken over the EP": the parser hangs the "'s" for "is" on the name as a
    possessive (though the tagger may know it for a verb), with no noun possessed after it, and makes the name the
    subject of the next clause's verb. Parsed with "is" said in full."""
    said = next((t for t in doc if t.lower_ in ("'s", "’s") and t.dep_ == "case" and t.head.dep_ != "poss" and (
        t.tag_ == "VBZ" or t.i + 1 < len(doc) and doc[t.i + 1].pos_ in ("ADV", "ADP", "ADJ")
        and t.head.dep_ in ("nsubj", "nsubjpass"))), None)
    if said is None:
        return None
    return nlp(f"{sentence[:said.idx]} is{sentence[said.idx + len(said.text):]}")


_OBJECT_OPENERS = frozenset({"DET", "PRON", "PROPN", "NUM"})


def _verb_as_plural_noun(doc: Any, sentence: str, nlp: Callable[[str], Any]) -> Any | None:
    """"Kone services the escalators": with no verb in the sentence, the parser takes the verb after a name for a
    plural noun the name qualifies, and its object for an apposition. Parsed with the verb said with "does"
    ("Kone does service the escalators"), which it reads as a verb; kept only if it does."""
    if any(t.pos_ in ("VERB", "AUX") for t in doc):
        return None
    said = next((t for t in doc if t.tag_ == "NNS" and t.text.islower() and 0 < t.i < len(doc) - 1
                 and doc[t.i - 1].pos_ == "PROPN" and doc[t.i - 1].head == t
                 and doc[t.i + 1].pos_ in _OBJECT_OPENERS), None)
    if said is None or said.lemma_.lower() == said.lower_:
        return None
    again = nlp(f"{sentence[:said.idx]}does {said.lemma_.lower()}{sentence[said.idx + len(said.text):]}")
    return again if any(t.pos_ == "VERB" and t.lower_ == said.lemma_.lower() for t in again) else None
