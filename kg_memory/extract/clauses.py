"""Clauses off the dependency parse: who a clause is about, what value it names, and its shape
(plain, a change, a hand-over, a rewrite, an end). No meaning here: ``meaning`` maps a clause's
reading onto an ontology's predicates. The shapes are grammar, for any predicate and domain:

* "moved from A to B", "switched to B", "traded A for B": a change to B (from A);
* "handed X over to B", "rewrote X in B": X's slot takes B;
* "no longer uses A", "stopped using A", "gave up on A", "sold my car": the slot ends;
* whose slot: the subject, or the speaker where a chat line drops its "I", "X and I", "our family";
  a slot's noun's owner ("our contact at Hooli", "the deal with Acme", "our contact there");
* which value: a name over a role ("a member at Gold's Gym", "a gym called Crux"), an amount with
  its unit, an aimed-at phrase ("I want to swim a mile")."""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import Any

from ..core.text import STOPWORDS
from . import parse
from .afterends import after_an_end, follows_an_end, last_spell
from .done_to import done_to_me as _done_to_me
from .done_to import put_onto as _put_onto
from .done_to import taken_out_of as _taken_out_of
from .objects import (
    a_room,
    bare_place,
    charge_of,
    in_charge_of,
    its_own,
    kept_in,
    named_by,
    named_thing,
    said_when,
    timed_word,
)
from .preps import AIM_PREPS, CARE_PREPS, NOT_VALUE, phrasal_stop
from .reading import CHANGE, HAND_OVER, REMADE, REPLACE, REWRITE, STOP, WRITE, Reading, own_words, said_no_more
from .reading import PRONOUNS as _PRONOUNS
from .reading import WHEN as _WHEN
from .reading import clause_text as _clause_text
from .reading import is_verb as _is_verb
from .reading import made as _made
from .values import DETS, amount_in, antecedent, called, of_its_slot_noun, someone
from .values import compound_read_as_verb as _compound_read_as_verb
from .values import counted as _counted
from .values import held_at as _held_at
from .values import is_name as _is_name
from .values import noun_phrase as _phrase
from .values import numeric as _numeric
from .values import one_of as _one_of
from .values import pobj as _pobj
from .values import value_text as _text
from .verb_preps import preps_said
from .whose import AGENTS, a_slot_noun, agent_noun, me_with, owner_before_slot_noun, owner_of_passed, role_of
from .whose import FIRST as _FIRST
from .whose import hung_subject as _hung_subject
from .whose import mine_said_as as _mine_said_as
from .whose import misread_verb as _misread_verb
from .whose import my_thing as _my_thing
from .whose import named_before as _named_before
from .whose import numbered as _numbered
from .whose import of_thing as _of_thing
from .whose import owner as _owner
from .whose import said_as_own as _said_as_own
from .whose import there as _there
from .whose import with_me as _with_me


def is_agent(subject: str) -> bool:
    """One who acts on a thing without being its slot's subject ("the team", "our platform team")."""
    words = subject.lower().split()
    return bool(words) and words[-1] in AGENTS


# -- clauses off the parse ----------------------------------------------------------------------
# ("may" only in lower case: "in May" is a month)
HYPOTHETICAL = re.compile(r"\b(?:would|should|could|might|(?-i:may)|someday|one day|if|hope to|want to|wanna|"
                           r"thinking (?:about|of)|planning to|plan to|gonna|going to|'d love)\b", re.I)


def readings(doc: Any, speaker: str, types: frozenset[str] = frozenset(), slot_words: frozenset[str] = frozenset(),
             people: frozenset[str] = frozenset(), ends: frozenset[str] = frozenset(),
             preps: frozenset[tuple[str, str]] = frozenset(), states: frozenset[str] = frozenset()) -> list[Reading]:
    """Every clause of a parsed sentence that has a subject (or a topic it continues) and an object.
    ``preps``: (verb, preposition) pairs an ontology's examples give a value with ("known for"); ``states``: the
    verbs (lemmas) whose passive participle is itself a value ("Omar has been shortlisted")."""
    out: list[Reading] = []
    topic: str | None = None
    for verb in (t for t in doc if _is_verb(t)):
        subject, topic = _subject_of(verb, speaker, topic, types, slot_words, people)
        if _a_past_time(verb):
            continue
        reading = _inverse_copula(verb, speaker, types, slot_words, people) or _put_onto(verb, speaker) \
            or _passive_state(verb, subject, states) \
            or _done_to_me(verb, speaker) or _gave_out(verb, speaker) \
            or _let_go(verb, speaker, topic, types) or _doer_of_slot(verb, slot_words) or last_spell(verb, speaker) \
            or _reading(verb, subject, types, speaker, preps) \
            or after_an_end(verb, subject, out)
        if reading is not None and {reading.subject.lower(), reading.object.lower()} & _NO_ONE:
            reading = None  # ("Nobody owns the notifications service any more": no one holds it, no one is no value)
        if reading is not None:
            if reading.shape == "plain" and _says_an_end(verb, ends):  # an ontology's own ``ends``: "lost the deal"
                reading = replace(reading, shape="end")
            reading = _done_at(verb, reading, speaker)
            held = of_its_slot_noun(verb, reading.object, slot_words)
            if held is not None:  # "switched onto a diet of trout": trout (the clause said as it was, with its noun)
                reading = replace(reading, object=_text(held), text=reading.text if _text(held) in reading.text
                                  else reading.text.replace(reading.object, _text(held)))
            worked_on = _moved_thing(verb, types) or (topic if _it_object(verb) else None)
            moved = owner_before_slot_noun(worked_on, slot_words)
            if moved and not _overlaps(moved, reading.object) and not _overlaps(moved, reading.old or "") \
                    and (not _possessed(verb) or moved != worked_on) \
                    and (moved != worked_on or moved.split()[-1].lower() not in slot_words):  # "got a new number:
                # 555-9090" names the slot, and moves no thing of it
                reading = replace(reading, moved=moved)
            if reading.subject != speaker and (reading.shape == "change" and _possessed(verb) or reading.shape
                                               == "end" and _possessed(verb, ("my",))):
                reading = replace(reading, subject=speaker)  # "the doctor swapped (stopped) my omeprazole": mine
                # (not "The Swan dropped our lager": a group's own thing, whose slot the Swan held)
            if reading.shape == "end" and reading.subject != speaker and any(me_with(t, "on") for t in verb.doc):
                reading = replace(reading, subject=speaker)  # "the nurse stopped the metformin and put me on X"
            whose = _end_owner(verb, reading, speaker, types, slot_words)
            if whose is not None:  # "We lost the deal with Cyberdyne": Cyberdyne's deal ends
                reading = replace(reading, subject=whose, said_by=reading.subject)
            front = _fronted(verb) or _at_after(verb)
            if front is not None and reading.subject == speaker and not reading.moved:
                # "At Stark we deal with Pepper Potts", "We talk to Nina at Aperture"
                reading = replace(reading, moved=_phrase(front, types))
            if reading.shape == "plain" and out and out[-1].shape == "end" and follows_an_end(verb):
                reading = replace(reading, shape="change")  # "sold my Civic and bought a Tesla": the new value
            reading = _in_place_of(verb, reading)
            out.append(reading)
            out += _misread_clauses(verb, reading.subject)
            if reading.subject != speaker:
                topic = reading.subject
        if reading is None or reading.subject == speaker or is_agent(reading.subject):
            topic = _moved_thing(verb, types) or topic  # "we moved the wiki to Notion; it ...": the wiki
            if _of_mine(verb, types, people):
                topic = speaker  # "upgraded my phone, it's a Pixel 8 now": what is said of it is the speaker's
    return out


def _done_at(verb: Any, reading: Reading, speaker: str) -> Reading:
    """"We record Field Notes at Soundhouse Studios": the speaker (or a team) doing a verb to a named thing at
    a named place: the place is the value, of the thing (which the reader takes as what is worked on)."""
    dobj = next((k for k in verb.children if k.dep_ == "dobj"), None)
    if reading.shape != "plain" or not (reading.subject == speaker or is_agent(reading.subject)) \
            or dobj is None or not _is_name(dobj) or verb.lemma_.lower() in _MEETING:
        return reading
    place = next((o for k in (*verb.children, *dobj.children)  # (the parser may hang "at X" on the thing)
                  if k.dep_ == "prep" and k.lower_ in ("at", "on", "in", "through", "via")
                  if (o := _pobj(k)) is not None and (_is_name(o) or k.lower_ in ("at", "in") and a_room(o))), None)
    return reading if place is None else replace(reading, object=_text(place), object_proper=True)


_MEETING = frozenset({"meet", "see", "visit", "call", "text", "email", "talk", "bump", "catch", "hug", "thank", "ask",
                      "tell", "help", "join", "find", "spot", "watch", "hear"})  # one met at a place is no thing there


def _a_past_time(verb: Any) -> bool:
    """A time said as a past state ("... since he was a puppy", "when I was at school"): no fact of its own."""
    return verb.dep_ == "advcl" and verb.tag_ == "VBD" and any(k.dep_ == "mark" and k.lower_ in ("since", "when")
                                                               for k in verb.children)


# what a thing does when it is gone for good, said of the thing itself ("the Astra died", "the boiler packed up",
# "the Fabia gave up");
# not a fault one mends ("the laptop crashed", "my phone broke")
_GIVES_OUT = frozenset({"die", "perish", "expire"})
_GIVES_OUT_WITH = frozenset({("conk", "out"), ("pack", "up"), ("pack", "in"), ("give", "up"), ("give", "out")})


_LOST = frozenset({"scrap", "steal", "total", "repossess"})  # what is done to a thing that leaves it gone


def _lost(verb: Any) -> bool:
    """"The Focus got written off", "the Mini's gone" (said as a clause of its own): a thing gone for good."""
    if verb.lemma_.lower() == "go":
        return verb.tag_ == "VBN" and all(k.dep_ in ("nsubj", "aux", "punct", "advmod") for k in verb.children) \
            and any(k.dep_ == "nsubj" for k in verb.children)
    return verb.tag_ == "VBN" and (verb.lemma_.lower() in _LOST or verb.lemma_.lower() == "write" and any(
        k.dep_ == "prt" and k.lower_ == "off" for k in verb.children))


def _gave_out(verb: Any, speaker: str) -> Reading | None:
    """"The Astra finally died": a named thing that gives out, with no object, ends the speaker's slot that holds it
    (the pipeline settles which, by the value; a thing the speaker holds in none ends nothing)."""
    lemma = verb.lemma_.lower()
    gone = lemma in _GIVES_OUT or any(k.dep_ == "prt" and (lemma, k.lower_) in _GIVES_OUT_WITH for k in verb.children) \
        or lemma == "stop" and any(k.dep_ == "xcomp" and k.lemma_.lower() == "work" for k in verb.children) \
        and (verb.dep_ in ("ccomp", "advcl") or any(k.dep_ == "conj" for k in verb.children))
    # ("Lansoprazole stopped working, so ... put me on X": one held no longer, said with what came after it; not a
    # fault alone, which may be mended: "my Pixel stopped working")
    lost = _lost(verb)
    if not (gone or lost) or any(k.dep_ in ("dobj", "attr") for k in verb.children):
        return None
    thing = next((k for k in verb.children if k.dep_ in ("nsubj", "nsubjpass") and k.pos_ == "PROPN"
                  and _is_name(k)), None)
    if thing is not None and (lemma == "give" or lost) and not any(k.dep_ in ("det", "poss") for k in thing.children):
        return None  # ("the Fabia gave up": a thing; "Tom gave up" says nothing of a thing held)
    return None if thing is None else _made(speaker, verb.lemma_.lower(), thing, _clause_text(verb), "end")


def _misread_clauses(verb: Any, subject: str) -> list[Reading]:
    """The clause of a second verb the parser took for a noun ("uses MySQL and deploys to Heroku"):
    the same subject, and the object of the preposition right after that verb."""
    out = []
    for t in verb.subtree:
        if t.i > verb.i and _misread_verb(t):
            doc = t.doc
            value = _NAMED.match(doc.text, doc[t.i + 2].idx)  # the name after its preposition
            if value is not None:  # (which the parser may have hung anywhere: "to Render" as a verb)
                name = value.group(0).strip(" .,;")
                out.append(Reading(subject, t.lemma_.lower(), name, f"{subject} {t.text} {doc[t.i + 1].text} {name}",
                                   "plain", True))
    return out


# a value said in place of another: "runs on ECS instead of Lambda" (the name after it is the old
# value), "dropped Redis in favour of DynamoDB" (the name after it is the new one)
_INSTEAD = re.compile(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?:the\s+)?")
_IN_FAVOUR = re.compile(r"\bin\s+favou?r\s+of\s+(?:the\s+)?")


def _in_place_of(verb: Any, reading: Reading) -> Reading:
    """A clause that names the value it replaces: a change from that value."""
    said = " ".join(t.text for t in verb.subtree)
    found = in_place_of(said, reading.subject)
    if found is None:
        return reading
    new, old = found
    return replace(reading, object=new, old=old, shape="change", object_proper=True)


def in_place_of(said: str, subject: str) -> tuple[str, str] | None:
    """(new value, old value) of words that say one in place of the other ("runs on ECS instead of
    Lambda", "dropped Redis in favour of DynamoDB"), with the name before the phrase the other one."""
    for rx, new_after in ((_INSTEAD, False), (_IN_FAVOUR, True)):
        m = rx.search(said)
        after = _NAMED.match(said, m.end()) if m else None
        if m is None or after is None:
            continue
        named = (_unopened(n.group(0).strip(" .,;")) for n in _NAMED.finditer(said[:m.start()]))
        before = [n for n in named if n and not _overlaps(n, subject) and not _WHEN.match(n)
                  and n.lower() not in _PRONOUNS | _FIRST]
        other = after.group(0).strip(" .,;")
        word = re.search(r"([a-z]+)\s*$", said[:m.start()]) if not before and not new_after else None
        if word is not None and _WHEN.match(other) is None and word.group(1) not in STOPWORDS:
            before = [word.group(1)]  # ("at noon rather than 11 am": a word alone before the phrase)
        if not before:
            return None
        return (other, before[-1]) if new_after else (before[-1], other)
    return None


def _unopened(name: str) -> str:
    """A name without a function word the sentence opened with ("From Monday": "Monday")."""
    first, _, rest = name.partition(" ")
    return rest if first.lower() in STOPWORDS else name


def _says_an_end(verb: Any, ends: frozenset[str]) -> bool:
    """Does the clause say one of an ontology's ``ends`` phrasings ("we lost the deal with Cyberdyne")? As
    said, or in its words' stems with others between: "closed my account" is said by "closed the Lloyds
    account" (the clause's verb is the phrasing's, and its other words are the clause's own)."""
    said = " ".join(t.lower_ for t in verb.subtree)
    if not ends or any(re.search(rf"\b{re.escape(e)}\b", said) for e in ends):
        return bool(ends)
    stems = {t.lemma_.lower() for t in own_words(verb)}
    return any(words[0] == verb.lemma_.lower() and set(words) <= stems for e in ends if (words := _end_stems(e)))


@functools.lru_cache(maxsize=1024)
def _end_stems(phrase: str) -> tuple[str, ...]:
    """An ``ends`` phrasing's stems without its little words ("closed my account": close, account)."""
    return tuple(t.lemma_.lower() for t in parse.parsed(phrase)
                 if not (t.is_punct or t.pos_ in ("DET", "PRON", "AUX", "PART") or t.dep_ == "poss"))


def _end_owner(verb: Any, reading: Reading, speaker: str, types: frozenset[str],
               slot_words: frozenset[str]) -> str | None:
    """Whose slot an end names when its object is the slot's noun with an owner ("lost the deal with
    Cyberdyne", "cancelled Hooli's contract")."""
    dobj = next((k for k in verb.children if k.dep_ == "dobj"), None)
    if reading.shape != "end" or dobj is None or dobj.lemma_.lower() not in slot_words:
        return None
    owner = _owner(dobj, speaker, types) or _owner(verb, speaker, types)  # the parser may hang "with X" on the verb
    return owner if owner not in (None, speaker) else None


def _fronted(verb: Any) -> Any | None:
    """A name a clause opens with, before its subject, that says whose the clause is ("For Vandelay we
    talk to Art", "At Stark we deal with Pepper Potts")."""
    subj = next((k for k in verb.children if k.dep_ == "nsubj"), None)
    for k in verb.children:
        if k.dep_ == "prep" and k.lower_ in ("for", "at", "with", "on") and subj is not None and k.i < subj.i:
            obj = _pobj(k)
            if obj is not None and _is_name(obj) and not said_when(obj):
                return obj
    return None


def _at_after(verb: Any) -> Any | None:
    """A name after the clause's value that says whose the clause is: "We talk to Nina at Aperture"
    (an "at" name after another name the verb's "to" or "with" takes)."""
    said = [(k.lower_, o) for k in verb.children if k.dep_ == "prep" if (o := _pobj(k)) is not None and _is_name(o)]
    for n, (prep, obj) in enumerate(said):
        if prep == "at" and any(p in ("to", "with") for p, _ in said[:n]):
            return obj
    return None


def _it_object(verb: Any) -> bool:
    """Does the clause act on "it" ("... and put it on Nomad"), which the thing said before is?"""
    return any(k.dep_ == "dobj" and k.lower_ in ("it", "them") for k in verb.children)


def _overlaps(a: str, b: str) -> bool:
    """Do two phrases share a word ("mg" and "10 mg")?"""
    return bool(set(a.lower().split()) & set(b.lower().split()))


def _possessed(verb: Any, whose: tuple[str, ...] = ("my", "our")) -> bool:
    """Is what the clause acts on the speaker's ("I moved my care to Dr. Sato")?"""
    dobj = next((k for k in verb.children if k.dep_ == "dobj"), None)
    return dobj is not None and any(k.dep_ == "poss" and k.lower_ in whose for k in dobj.children)


def _moved_thing(verb: Any, types: frozenset[str]) -> str | None:
    """What a clause moves or works on, which a following "it" continues: its object, or what the
    small parser took for a verb under a change verb ("migrating billing off Postgres"). Not an object
    said with its name ("adopted a cat named Miso"): the name is the clause's value, not a thing moved;
    nor an arrangement held with a provider ("took out a policy with Haven": the provider is the value)."""
    dobj = next((k for k in verb.children if k.dep_ == "dobj"), None)
    if dobj is not None and dobj.lemma_.lower() in _ARRANGEMENTS:
        return None
    if dobj is not None and _numeric(dobj):  # "set aside £30k for the loft": the amount is the loft's
        of = next((o for k in verb.children if k.dep_ == "prep" and k.lower_ == "for"
                   if (o := _pobj(k)) is not None and o.pos_ in ("NOUN", "PROPN")), None)
        return None if of is None else _phrase(of, types)
    if dobj is not None and dobj.pos_ in ("NOUN", "PROPN"):
        return None if called(dobj) is not dobj else _with_its_owner(dobj, types)
    if verb.lemma_.lower() in CHANGE:
        thing = next((k for k in verb.children if k.dep_ == "xcomp" and not _is_verb(k)), None)
        return None if thing is None else " ".join(
            [thing.text, *(k.text for k in thing.children if k.dep_ == "dobj" and _compound_read_as_verb(thing))])

    return None


def _of_mine(verb: Any, types: frozenset[str], people: frozenset[str]) -> bool:
    """A clause that works on a thing of the speaker's ("upgraded my phone"), which a following "it" continues."""
    dobj = next((k for k in verb.children if k.dep_ == "dobj"), None)
    return dobj is not None and _my_thing(dobj, types, people)


def _doer_of_slot(verb: Any, slot_words: frozenset[str]) -> Reading | None:
    """"Gemma handles our account at Evri", "Ben Ode plays the lead in Macbeth", "Sam handles Northwind's invoices":
    a name acting on a slot's noun that is held at or in a name, or is a name's, is the value of that name's slot
    (and no longer so: "Priya no longer handles ...", an end of it)."""
    doer = next((k for k in verb.children if k.dep_ == "nsubj" and k.pos_ == "PROPN"), None)
    noun = next((o for k in verb.children if (o := k if k.dep_ == "dobj" else _pobj(k) if k.dep_ == "prep"
                                                and k.lower_ in ("after", "for") else None) is not None), None)
    if doer is None or noun is None or noun.pos_ != "NOUN" or not {noun.lemma_.lower(), noun.lower_} & slot_words:
        return None
    at = next((o for k in (*noun.children, *verb.children) if k.dep_ == "prep" and k.lower_ in ("at", "with", "in")
               and k.i > noun.i if (o := _pobj(k)) is not None and _is_name(o)), None) \
        or next((k for k in noun.children if k.dep_ == "poss" and _is_name(k)
                 and verb.lemma_.lower() not in HAND_OVER), None)  # (not "handed Kandula's care to ...")
    ended = said_no_more(verb)
    return None if at is None else _made(_text(at), verb.lemma_.lower(), doer,
                                         _clause_text(verb, drop_negation=ended), "end" if ended else "plain")


def _let_gone(verb: Any) -> Any | None:
    """The one let go in "we let Green Fork go": the subject of a "go" the verb "let" takes."""
    if verb.lemma_.lower() != "go" or verb.dep_ not in ("ccomp", "xcomp") or verb.head.lemma_.lower() != "let":
        return None
    return next((k for k in verb.children if k.dep_ == "nsubj" and _is_name(k)), None)


def _let_go(verb: Any, speaker: str, topic: str | None, types: frozenset[str]) -> Reading | None:
    """"We let Green Fork go": the one let go held the slot, which ends."""
    gone = _let_gone(verb)
    if gone is None:
        return None
    subject, _ = _subject_of(verb.head, speaker, topic, types)
    return None if subject is None else _made(subject, "let go", gone, _clause_text(verb.head), "end")


def _with_its_owner(noun: Any, types: frozenset[str]) -> str:
    """A noun a thing possesses, said with it ("took Hydra's docs off GitBook": "Hydra's docs", "migrated the
    parser crate's CI": "parser crate's CI", whose slot noun then says whose the slot is); else as it is."""
    poss = next((k for k in noun.children if k.dep_ == "poss" and k.pos_ in ("PROPN", "NOUN")), None)
    if poss is None:
        return _phrase(noun, types)
    owner = {t.i for t in poss.subtree}  # (the possessor's own words are not the noun's: "the parser crate's CI")
    said = " ".join(t.text for t in noun.subtree if t.i <= noun.i and t.i not in owner and t.lower_ not in DETS)
    return f"{_phrase(poss, types)}'s {said}"


def _subject_of(verb: Any, speaker: str, topic: str | None, types: frozenset[str],
                slot_words: frozenset[str] = frozenset(), people: frozenset[str] = frozenset()
                ) -> tuple[str | None, str | None]:
    subjects = [k for h in (verb, *(a for a in verb.children if a.dep_ in ("aux", "auxpass")))  # ("The otter Pip
                for k in h.children if k.dep_ in ("nsubj", "nsubjpass")]  # is fed sprats": the parser hung it on "is")
    subj = (subjects[1] if _kind_then_name(subjects) else subjects[0]) if subjects else next(
        (k for k in verb.children if k.dep_ == "compound" and k.pos_ == "PROPN" and k.i < verb.i), None)
    # ("BP sponsors the show": the small parser took the name for a compound of its verb)
    head = verb
    while subj is None and head.dep_ in ("conj", "xcomp", "dobj", "pcomp", "prep") and head.head != head:
        head = head.head  # a coordinated verb, or one the parser hung on the first verb's object (or, through
        # "after", the verb whose time it says: "joined KPMG after leaving Deloitte")
        if _let_gone(head) is not None:
            head = head.head  # "we let X go and hired Y": who hired is who let X go
        subj = next((k for k in head.children if k.dep_ in ("nsubj", "nsubjpass")), None)
    subj = subj if subj is not None else _hung_subject(head)
    named = next((k for k in subj.children if k.dep_ == "appos" and k.pos_ == "PROPN"), None) if subj is not None \
        and subj.pos_ == "NOUN" else None
    subj = named if named is not None else subj  # "his understudy Leon Price is playing Macbeth": Leon Price
    if subj is None:
        # a chat line that drops its "I" ("Traded the Focus in for a Subaru"): a past verb that opens it
        opens = head.dep_ == "ROOT" and head.tag_ in ("VBD", "VBN") and all(
            t.is_punct or t.dep_ in ("advmod", "aux", "auxpass") and t.head == head  # ("Finally scrapped ...",
            for t in head.doc[:head.i])  # "Got rid of ...")
        return (speaker if opens and (topic is None or verb is not head) else None), topic  # (and its conj)
    low = subj.lower_
    if low in _FIRST or _with_me(subj):
        return speaker, topic
    if low in _PRONOUNS:
        return topic, topic
    noun = subj.pos_ == "NOUN" or subj.dep_ == "advmod"  # (a noun the parser took for an adverb: _hung_subject)
    if noun and not _numbered(subj) and (a_slot_noun(subj, slot_words) or _mine_said_as(subj, verb, people)) or \
            subj.pos_ == "PROPN" and _mine_said_as(subj, verb, people):  # "My GP is Dr. Lindqvist"
        owner = _there(subj, slot_words) or _owner(subj, speaker, types)
        if owner is not None:
            return owner, owner
        if _said_as_own(subj, verb):
            return speaker, topic
        if topic is not None and subj.lemma_.lower() in slot_words and not _numbered(subj) and not named_by(subj):
            return topic, topic  # "Tyrell signed; the deal is closed won": the deal is Tyrell's (not "Laptop 7",
            # nor "the Egyptian collection")
    if _my_thing(subj, types, people):
        return speaker, topic  # "My amlodipine went up to 10 mg": the speaker's dose
    passed = owner_of_passed(subj, verb, types)
    if passed is not None:
        return passed, passed
    if any(t.pos_ == "VERB" and t.dep_ not in ("amod", "compound") for t in subj.subtree if t.i < subj.i):
        return None, topic  # a clause the parser took for a subject ("Ledger outgrew SQLite, so it ..."): misread
    phrase = _phrase(subj, types)
    return phrase, phrase


def _kind_then_name(subjects: list[Any]) -> bool:
    """"The snow leopard Irbis is looked after by Sam": the small parser made the kind and the name two subjects of
    one verb; the name is the subject."""
    return len(subjects) == 2 and subjects[0].pos_ == "NOUN" and subjects[1].pos_ == "PROPN" and all(
        t.is_punct for t in subjects[0].doc[subjects[0].i + 1:subjects[1].i])


def _passive_state(verb: Any, subject: str | None, states: frozenset[str]) -> Reading | None:
    """"Omar has been shortlisted", "Ben has been offered the job": a passive participle of one of ``states``
    is the value its subject now holds (the participle as said); not one said with its doer or where it was done
    ("Night Shift is taped at Soundhouse", "printed by the Gazette"): the doer or the place is the value."""
    if subject is None or verb.lemma_.lower() not in states or verb.tag_ != "VBN" \
            or not any(k.dep_ == "auxpass" for k in verb.children) \
            or any(k.dep_ in ("agent", "prep", "prt") or k.dep_ == "advmod" and k.pos_ == "ADP" for k in verb.children):
        return None
    return Reading(subject, verb.lemma_.lower(), verb.lower_, _clause_text(verb), "plain", False)


def _inverse_copula(verb: Any, speaker: str, types: frozenset[str], slot_words: frozenset[str],
                    people: frozenset[str] = frozenset()) -> Reading | None:
    """"Luis is my boss now", "Dana is the contact at Globex": the slot noun is the complement, its
    owner the subject of the slot, and the copula's subject the value; so too of a verb "as" the slot
    noun ("took over as my GP")."""
    # (a name the parser took for an adverb: "Kier is the main contractor on ...")
    subj = next((k for k in verb.children if k.dep_ in ("nsubj", "nsubjpass")), None) or _hung_subject(verb)
    if verb.lemma_ == "be":  # ("Nadia is responsible for payments": an adjective of the slot's own words)
        attr = next((k for k in verb.children if k.dep_ == "attr" or k.dep_ == "acomp"
                     and k.lower_ in slot_words and any(g.dep_ == "prep" for g in k.children)), None)
    else:  # "Dr. Park took over as my GP", "Ana stepped in as our contact at Hooli": the same, said with "as"
        attr = next((o for k in verb.children if k.dep_ == "prep" and k.lower_ == "as" and (o := _pobj(k))
                     is not None and (o.pos_ == "NOUN" or o.text.isupper() and o.lower_ in slot_words)), None)
        # ("took over as PI": a slot's own letters)
        # ("Peter was elected chair of Open Doors", "they made Jo captain": the role the verb makes one)
        attr = attr or next((k for k in verb.children if k.dep_ == "oprd" and k.pos_ == "NOUN"), None) \
            or (verb if verb.tag_ == "VBN" and verb.lower_ in slot_words and verb.lemma_.lower() == verb.lower_
                and any(k.dep_ == "auxpass" and k.lemma_ == "be" for k in verb.children) else None)
        # (a slot's noun taken for a participle, with no other form: "Ian is warden for the bottom field")
    subj = _named_before(verb, subj)
    named = next((k for k in verb.children if k.dep_ == "dobj" and _is_name(k) and k.pos_ != "PRON"), None)
    if verb.lemma_ != "be" and named is not None and (subj is None or subj.lower_ in _PRONOUNS | _FIRST):
        subj = named  # "We hired Ravi as our tour manager": the one taken on as the role
    if subj is None or attr is None or not _is_name(subj) or subj.pos_ == "PRON" \
            or attr.lemma_.lower() in _MEMBERSHIP:
        return None  # ("Ilse is a member of the design team" says what she belongs to: no one holds her)
    mine = any(k.dep_ == "poss" and k.lower_ in ("my", "our") for k in attr.children)
    # ("the account executive for Umbrella": a compound of the slot's words or an entity type names it too)
    named_slot = any(k.dep_ == "compound" and k.lemma_.lower() in slot_words | types for k in attr.children)
    if attr.lemma_.lower() not in slot_words and not agent_noun(attr.lemma_.lower(), slot_words) and not named_slot:
        if not mine or attr.lemma_.lower() in people:
            return None  # ("Dr. Fischer is my GP": a thing of mine that is no relation of mine names a slot too)
        what = role_of(attr, types, slot_words)
        if what is not None:  # "Priti is our health correspondent": she covers health
            return _made(_phrase(subj, types), "be", what, _clause_text(verb), "plain")
    owner = _there(attr, slot_words) or _owner(attr, speaker, types) or _of_thing(attr, types) \
        or (_owner(verb, speaker, types) if verb.lemma_ != "be" and named is None else None)
    # ("took over as PI on HEART-2": the role's thing said on the verb, of one who holds it as said)
    # ("Ellie stepped down as producer of Deep Cuts": the role ends)
    ended = verb.lemma_ != "be" and (verb.lemma_.lower() in STOP or phrasal_stop(verb) is not None)
    return None if owner is None else _made(owner, "be", subj, _clause_text(verb), "end" if ended else "plain")


_MEMBERSHIP = frozenset({"member", "part"})  # "a member of", "part of": what one belongs to is the value
# an arrangement one holds with a provider ("took out cover with Lemonade", "opened one with Starling"): the
# provider named after "with" is the value, not the arrangement
_ARRANGEMENTS = frozenset({"account", "policy", "cover", "plan", "subscription", "mortgage",
                           "loan", "tariff", "one"})


def _taken_over(verb: Any) -> bool:
    """"took over", "picked up" a thing (not "took over as my GP", said with "as")."""
    prt = {k.lower_ for k in verb.children if k.dep_ in ("prt", "advmod")}  # (the small parser: "over" an adverb)
    lemma = verb.lemma_.lower()  # (beside any other adverb: "so Dev has taken over the EP")
    return (lemma == "inherit" or any((lemma, p) in _TAKEN_OVER for p in prt)) \
        and not any(k.dep_ == "prep" and k.lower_ == "as" for k in verb.children)


_TAKEN_OVER = frozenset({("take", "over"), ("take", "on"), ("pick", "up")})  # ("taken on rotas from Jo")


def _taken_from(verb: Any) -> str | None:
    """The one a thing is taken over from ("took the stout over from Kofi"), who held it: "from" on the verb, its
    "over" or the thing ("has taken on the rota from Mair")."""
    held = (verb, *(k for k in verb.children if k.lower_ == "over" or k.dep_ == "dobj"))
    froms = (k for c in held for k in c.children if k.dep_ == "prep" and k.lower_ == "from")
    return next((_text(o) for k in froms if (o := _pobj(k)) is not None and _is_name(o)), None)


def _reading(verb: Any, subject: str | None, types: frozenset[str], speaker: str = "User",
             given: frozenset[tuple[str, str]] = frozenset()) -> Reading | None:
    """The clause's reading; ``given``: the (verb, preposition) pairs that give a value (``value_preps``)."""
    aimed = _aimed(verb, subject)
    if aimed is not None:
        return aimed
    lemma = verb.lemma_.lower()
    kids = list(verb.children)
    dobj = antecedent(verb, next((k for k in kids if k.dep_ in ("dobj", "attr")), None))
    dobj = _one_of(dobj, types) if dobj is not None and lemma in ("be", "have") else dobj  # ("one of his patients")
    if lemma in ("keep", "continue") and dobj is not None and dobj.left_edge.tag_ == "VBG":
        return None  # "Apex kept missing deadlines": a habit, whose object is no value
    preps, level = preps_said(verb, lemma, kids, dobj, given)
    if dobj is None and not any(v is not None for v in preps.values()):
        dobj = amount_in(verb)  # "I was prescribed 20 mg of X": the parser hung the amount off the clause
    said = next((k for k in dobj.children if k.dep_ == "appos"), None) if dobj is not None else None
    if said is not None:  # "I got a new number: 555-9090": the value is what the noun is said to be
        dobj = said
    dobj = called(dobj) if dobj is not None else None  # "a climbing gym called Boulder Barn": the name
    if dobj is not None and dobj.dep_ == "attr" and dobj.lemma_.lower() in types:
        named = next((k for k in dobj.children if k.dep_ == "compound" and _is_name(k)), None)
        if named is not None:  # "The indexer is a Java service": the name before the type noun is the value
            return _made(subject, lemma, named, _clause_text(verb), "plain") if subject is not None else None
    held = next((k for k in dobj.children if k.dep_ == "poss" and _is_name(k)), None) \
        if dobj is not None and dobj.dep_ == "attr" and not _is_name(dobj) and subject is not None \
        and any(k.dep_ == "nsubj" and k.pos_ == "NOUN" for k in kids) else None  # (a thing, not a person)
    if held is not None:  # "the gateway is Ravi's responsibility": a thing that is someone's is theirs
        dobj = held
    if dobj is not None and dobj.dep_ in ("attr", "poss") and _is_name(dobj) and subject is not None \
            and any(k.dep_ == "case" and k.lower_ in ("'s", "’s") for k in dobj.children):
        now = " now" if any(k.lower_ == "now" for k in verb.children) else ""  # ("Van 4 is Elena's now")
        # ("Payments is Ada's"; "the herd is Dylan's responsibility": Dylan is responsible for it)
        whole = next((" ".join(t.text for t in k.subtree) for k in kids if k.dep_ == "nsubj"), subject)
        said = f"{dobj.text} is{now} responsible for {whole}" if held is not None \
            else f"{subject} is{now} owned by {dobj.text}"
        made = _made(subject, "own", dobj, said, "plain")
        return None if made is None else replace(made, object=re.sub(r"\s*['’]s$", "", made.object))
    if dobj is not None and dobj.dep_ == "attr" and dobj.lemma_.lower() in _MEMBERSHIP:
        # "Chloe is part of the mobile team": what one is part of is the value
        dobj = next((o for k in dobj.children if k.dep_ == "prep" and k.lower_ == "of"
                     if (o := _pobj(k)) is not None), dobj)
    if dobj is not None and dobj.dep_ == "attr" and not _is_name(dobj):
        dobj = _held_at(dobj)  # "I'm a member at Gold's Gym": the name a role is held at
    # "no longer uses", "doesn't use it anymore" end a slot; a plain "didn't get the job" ends nothing
    negated = said_no_more(verb)
    if any(k.dep_ == "neg" for k in kids) and not negated:
        return None
    xcomp = next((k for k in kids if k.dep_ == "xcomp" and k.pos_ == "VERB"), None)
    of = charge_of(dobj) if dobj is not None else None  # ("handed over command of the Arctic Tern to ...": the ship)
    if of is not None and preps.get("to") is None:  # (the small parser hangs "to ..." on the ship)
        preps["to"] = next((_pobj(k) for k in of.children if k.dep_ == "prep" and k.lower_ == "to"), None)
    if lemma in HAND_OVER and dobj is not None and someone(preps.get("to")) and not _possessed(verb):
        # (not one's own thing moved: "I've transferred my master's to Bristol" is a change of the speaker's)
        x, b = (_text(of) if of is not None else _phrase(dobj, types)), preps["to"]
        made = _made(x, lemma, b, f"{x} is now owned by {_text(b)}", "hand_over")
        # the one who hands it over held it: "Charlie handed Wonka over to Augustus" is Charlie's slot's change
        giver = subject if subject and subject != speaker and subject[:1].isupper() else None
        return replace(made, old=giver) if made is not None and giver and not _overlaps(giver, made.object) else made
    if (out_of := _taken_out_of(verb, dobj)) is not None:  # ("ripped Crashlytics out of the Android app": an end)
        return _made(_with_its_owner(out_of, types), lemma, dobj, f"{_text(dobj)} taken out of {out_of.text}", "end")
    off = preps.get("off")
    if dobj is not None and dobj.pos_ in ("NOUN", "PROPN") and dobj.lower_ not in ("me", "us") \
            and off is not None and _is_name(off) and subject is not None:
        # "We took the ledger off Kubernetes": the thing's value ends; "... and onto EKS": and is that now
        x = _with_its_owner(dobj, types)
        onto = next((_pobj(c) for c in (*off.head.children, *off.children)
                     if c.dep_ == "conj" and c.lower_ in ("onto", "into", "to")), None) \
            or preps.get("onto") or preps.get("into") or preps.get("to")  # (or the verb's own: "off AWS onto GCP")
        if onto is not None and _is_name(onto):
            made = _made(x, lemma, onto, f"{x} moved from {off.text} to {_text(onto)}", "change")
            return None if made is None else replace(made, old=_text(off))
        return _made(x, lemma, off, f"{x} no longer on {off.text}", "end")
    charge = in_charge_of(verb, dobj)
    if charge is not None and subject is not None and subject[:1].isupper():
        # "Captain Adeyemi has taken command of the Pride of Kent": the one who takes it is its new holder
        x = _text(charge) if _is_name(charge) else _phrase(charge, types)  # (a name whole: "Pride of Kent")
        return Reading(x, lemma, subject, f"{x} is now owned by {subject}", "hand_over", True)
    giver = _taken_from(verb) if _taken_over(verb) else None
    if _taken_over(verb) and dobj is not None and subject is not None and (named_thing(dobj) or giver) \
            and not any(k.dep_ == "det" and k.lower_ in ("a", "an") for k in dobj.children):  # ("picked up a Jazz")
        # "I took over Umbrella from Priya", "Marta has taken the stout over from Kofi": the one who takes a thing
        # over is its new holder, and the one it is taken from held it
        x = _phrase(dobj, types)
        return Reading(x, lemma, subject, f"{x} is now owned by {subject}", "hand_over", True, old=giver)
    # "ported billing to Kotlin"; but "writes its transactions to Postgres" stores them there
    into = preps.get("in") if preps.get("in") is not None or lemma in WRITE else preps.get("to")
    passive = dobj is None and subject is not None and any(k.dep_ == "nsubjpass" for k in kids)
    if lemma in REWRITE and (dobj is not None or passive) and into is not None and _is_name(into):
        # ("The indexer was rewritten in Rust": what was rewritten is the subject)
        x, b = (_phrase(dobj, types) if dobj is not None else subject or ""), into
        return _made(x, lemma, b, f"{x} is written in {_text(b)}", "rewrite")
    if lemma in REMADE and dobj is not None and (as_ := preps.get("as") or preps.get("into")) is not None \
            and not _possessed(verb, ("my",)):  # (not one's own: "turning my passion for dance into a business")
        x = _phrase(dobj, types)  # "We've rebuilt Room 2 as a space station": the thing is that now
        return _made(x, lemma, as_, f"{x} is now {_text(as_)}", "change")
    if subject is None:
        return None
    # "left AWS for GCP", "dropped Mongo for Postgres": a stop with what it was left for is a change
    # (the small parser may hang "for GCP" on the object)
    for_ = preps.get("for") if preps.get("for") is not None or dobj is None else next(
        (o for k in dobj.children if k.dep_ == "prep" and k.lower_ == "for" if (o := _pobj(k)) is not None), None)
    for_ = _held_at(for_) if for_ is not None and not _is_name(for_) else for_  # "for a job at Superdrug"
    left_for = lemma in STOP and dobj is not None and _is_name(dobj) and for_ is not None and _is_name(for_)
    if lemma in REPLACE or left_for:  # "traded in the Civic for a Subaru", "replaced ClickHouse with Druid"
        new = for_ if for_ is not None else preps.get("with")
        old = dobj if dobj is not None else preps.get("in")
        if new is not None:
            made = _made(subject, lemma, new, _clause_text(verb), "change")
            return made if made is None or old is None else replace(made, old=_text(old))
    # "dropped croissants to £1.95": a stop to an amount changes the amount
    to_amount = (lemma in STOP or dobj is not None) and preps.get("to") is not None and _counted(preps["to"])
    if lemma in STOP and xcomp is not None:  # "stopped using Mongo": the slot of "using" ends
        obj = next((k for k in xcomp.children if k.dep_ == "dobj"), None)
        said = " ".join(t.text for t in obj.subtree) if obj is not None else ""  # (with its article: "our lager")
        return None if obj is None else _made(subject, xcomp.lemma_, obj, f"{subject} {xcomp.lemma_} {said}", "end")
    gone = dobj if dobj is not None or lemma != "rid" else preps.get("of")  # "got rid of the Leaf"
    begun = verb.dep_ == "xcomp" and verb.head.lemma_.lower() in ("start", "begin")  # ("has started selling it")
    if lemma in STOP and gone is not None and not to_amount and not begun:
        # "I quit the Zone 2 plan": the slot that held it ends
        return _made(subject, lemma, gone, _clause_text(verb), "end")
    if lemma == "finish" and dobj is not None and dobj.pos_ == "PROPN":  # "finished Wolf Hall": done with it
        return _made(subject, lemma, dobj, _clause_text(verb), "end")
    gave_up = phrasal_stop(verb)
    if gave_up is not None:  # "I gave up on the pull-ups goal", "came off metformin": a stop said with a particle
        role = preps.get("as")  # "stepped down as producer of Deep Cuts": the name the role was held at
        obj = dobj if dobj is not None else preps.get("on") if preps.get("on") is not None else preps.get(gave_up) \
            if preps.get(gave_up) is not None else _held_at(role) if role is not None else None
        return None if obj is None else _made(subject, lemma, obj, _clause_text(verb), "end")
    if negated:  # "no longer uses Postgres": the slot of the clause without its negation ends
        obj = dobj if dobj is not None else next((v for v in preps.values() if v is not None), None)
        return None if obj is None else _made(subject, lemma, obj, _clause_text(verb, drop_negation=True), "end")
    back = any(k.lower_ == "back" and k.dep_ in ("advmod", "prt") for k in kids)  # "slipped back to discovery"
    if preps.get("to") is not None and (lemma in CHANGE or preps.get("from") is not None or level is not None
                                        or back or to_amount):
        b, a = preps["to"], preps.get("from")
        mine = dobj is not None and (dobj.lower_ in ("me", "us") or any(
            k.dep_ == "poss" and k.lower_ in ("my", "our") for k in dobj.children))  # "switched me from A to B"
        # "My doctor bumped my lisinopril to 20 mg": what changed is the speaker's, whoever changed it
        made = _made(speaker if mine else subject, lemma, b, _clause_text(verb), "change")
        return made if made is None or a is None else replace(made, old=_text(a))
    front = _fronted(verb) or _at_after(verb)
    if front is not None:  # the name a clause opens with (or ends with, after "at") says whose it is
        preps = {p: (None if o is not None and o.i == front.i else o) for p, o in preps.items()}
    with_ = preps.get("with")
    being_with = lemma == "be" and dobj is None and subject != speaker and with_ is not None and _is_name(with_)
    # (the name one is with: "Flat 3 is with British Gas for energy")
    not_value = NOT_VALUE - {"with"} if front is not None or being_with else NOT_VALUE
    if dobj is None and subject != speaker and lemma not in CHANGE | STOP | REPLACE \
            and [p for p, o in preps.items() if o is not None] == ["from"]:
        not_value = not_value - {"from"}  # a thing that reads from its only named source ("feed reads from Cassandra")
    named = next((o for p, o in preps.items() if o is not None and _is_name(o) and p not in not_value
                  and not bare_place(p, o)), None)
    provider = preps.get("with") if dobj is None or preps.get("with") is not None else next(
        (_pobj(k) for k in dobj.children if k.dep_ == "prep" and k.lower_ == "with"), None)
    if dobj is not None and _is_name(dobj) and provider is not None and provider.pos_ == "NOUN" \
            and not _is_name(provider) and (subject == speaker or is_agent(subject)) and lemma not in _MEETING:
        return _made(subject, lemma, provider, _clause_text(verb), "plain")  # "drilled Top Field with barley"
    if dobj is not None and dobj.lemma_.lower() in _ARRANGEMENTS and provider is not None and _is_name(provider):
        return _made(subject, lemma, provider, _clause_text(verb), "plain")
    if dobj is not None and not any(v is not None for v in preps.values()) and its_own(dobj):
        return None  # "Cab 7 failed its MOT": a thing's own part or event is no value of it
    kept = kept_in(dobj, preps)
    if dobj is not None and (_is_name(dobj) or named is None) and kept is None:
        return _made(subject, lemma, dobj, _clause_text(verb), "plain", timed_word(dobj, given))
    if kept is not None:
        return _made(subject, lemma, kept, _clause_text(verb), "plain")
    for prep, obj in preps.items():
        takes = prep not in not_value or (lemma, prep) in AIM_PREPS | CARE_PREPS | given
        if obj is not None and takes and (named is None or obj is named):
            timed = (lemma, prep) in given or timed_word(obj, given)
            return _made(subject, lemma, obj, _clause_text(verb), "plain", timed)
    told = next((k for k in kids if k.dep_ == "npadvmod" and timed_word(k, given)), None)
    return None if told is None else _made(subject, lemma, told, _clause_text(verb), "plain", True)  # "works nights"


AIM_VERBS = frozenset({"want", "aim", "hope", "plan", "try", "train", "mean", "intend"})


def _aimed(verb: Any, subject: str | None) -> Reading | None:
    """A clause that says what is aimed at as a verb phrase ("I want to swim a mile", "my aim is to do
    ten pull-ups"): the phrase is the value."""
    light = verb.lemma_.lower() in parse.LIGHT_VERBS - {"do"}
    if verb.dep_ != "xcomp" or verb.pos_ != "VERB" or subject is None or light:
        return None
    head = verb.head
    if head.lemma_.lower() not in AIM_VERBS and not (head.lemma_ == "be" and any(
            k.dep_ == "nsubj" and k.lemma_.lower() in ("aim", "goal", "plan", "target") for k in head.children)):
        return None
    words = [t for t in verb.subtree if t.dep_ not in ("aux", "prep", "punct", "advmod") and t.i >= verb.i
             and not any(a.dep_ == "prep" for a in t.ancestors if a.i > verb.i)]
    value = " ".join(t.text for t in words).replace(" - ", "-")
    return None if len(words) < 2 else Reading(subject, verb.lemma_.lower(), value, _clause_text(verb), "plain", False)


# no one, whom a clause names as no holder and no value ("Nobody owns the notifications service")
_NO_ONE = frozenset({"nobody", "no one", "noone", "no-one", "none of us", "nothing"})


_NAMED = re.compile(r"[A-Z0-9][\w.'’/-]*(?:\s+(?:[A-Z0-9][\w.'’/-]*|(?:of|de|la)\b))*")
