"""How an ontology's phrasings are said: the forms of a phrase after "I" or "we", a pattern of them all, and
sentences said in other words put plainly.

A phrase is written once ("was promoted to", "went", "am working for"); these are the forms English gives it
after a subject ("I've just been promoted to", "I've gone vegan", "I'm now working for"), so that an ontology
need not list them."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .preps import AIM_PREPS

ADVERBS = (r"just|also|recently|finally|now|still|currently|actually|really|already|officially|"
           r"eventually|happily|fully|totally|completely|entirely|properly|strictly|basically|then|even|both")

# the past participles of the irregular verbs phrases begin with ("went vegan": "have gone vegan")
_PARTICIPLES = {"went": "gone", "became": "become", "took": "taken", "began": "begun", "drove": "driven",
                "gave": "given", "ate": "eaten", "did": "done", "ran": "run", "rode": "ridden", "chose": "chosen"}


def forms(phr: tuple[str, ...]) -> tuple[str, ...]:
    """A phrase's forms as said after "I" or "we": "are" for "am" ("we are engaged"), "been" for "was" or "got" after
    "have" ("I've just been promoted to"), and an irregular past's participle ("I've gone vegan")."""
    words = [f.split(" ", 1) for f in phr]
    return (*phr, *("are" + f[2:] for f in phr if f == "am" or f.startswith("am ")),
            *("been " + w[1] for w in words if w[0] in ("was", "got") and len(w) > 1),
            *(" ".join([_PARTICIPLES[w[0]], *w[1:]]) for w in words if w[0] in _PARTICIPLES))


def phrase_rx(phrases: Iterable[str]) -> str:
    """The phrasings as one pattern; after "am", "is" or "are", adverbs may come between the words ("am now working
    for")."""
    alts = sorted({p for p in phrases if "{" not in p}, key=len, reverse=True)
    return "(?:" + "|".join(_said_as(p) for p in alts) + ")"


def _said_as(phrase: str) -> str:
    head, _, rest = phrase.partition(" ")
    if not rest:
        return re.escape(head)
    gap = rf"\s+(?:(?:{ADVERBS})\s+)*" if head.lower() in ("am", "is", "are") else r"\s+"
    words = rest.split(" ")  # (an article before a noun of the phrase may be "the": "got the job at")
    said = [r"(?:an?|the)" if w in ("a", "an") and i < len(words) - 1 else re.escape(w) for i, w in enumerate(words)]
    return re.escape(head) + gap + r"\s+".join(said)


# the one one likes most, said as the subject ("The book I love most is X"): one's favourite
_LIKED_MOST = re.compile(r"\b[Tt]he\s+((?:[a-z]+\s+)?[a-z]+)\s+(?:I|we)\s+(?:love|like|enjoy)\s+"
                         r"(?:the\s+)?(?:most|best)\s+(?=(?:is|was)\b)")
# a named vehicle one gets about in ("I get around in a battered old Skoda Fabia", "we run about in a Fiesta"):
# the one one drives (a name only: "I get to work in a taxi" says no car of one's own)
_TRAVELLED_IN = re.compile(rf"\b(I|[Ww]e)\s+(?:(?:{ADVERBS})\s+)*(?:get|run|go|zip|nip|travel|commute|drive|potter)"
                           r"\s+(?:around|about|round|everywhere|to\s+work)\s+in\s+(?:a|an|my|our)\s+"
                           r"(?:(?-i:[a-z][a-z-]*)\s+){0,3}(?=[A-Z])")


_DETS = "(?:The|This|That|These|Those|My|Our|Your|His|Her|Their|Its|An?|Every|Each|Some|All)"
# work said by what one does at or for a name ("I teach chemistry at Lincoln High", "I'm driving for Uber now"): a
# verb (``_DOING_AT``'s "verb") whose doer is a job, said in the present by the speaker or by a name ("Ines teaches
# at Hillcrest Primary")
_DOING_AT = re.compile(rf"\b(?P<who>I|[Ww]e|(?!{_DETS}\b)(?-i:[A-Z][a-z]+)(?=\s+[a-z]+s\s))"
                       rf"(?:\s+(?P<be>(?:am|are|is|have\s+been|has\s+been)\s+)"
                       rf"|(?P<be2>['’](?:m|re|ve\s+been)\s+)|\s+)"
                       rf"(?:(?:{ADVERBS})\s+)*(?P<verb>[a-z]+)\s+"
                       r"(?:(?-i:[a-z][a-z'’-]*|[A-Z]{2,5}|[A-Z][a-z]+)\s+){0,3}?"  # (what is taught may be said
                       # with a capital: "I teach PE at", "French")
                       r"(?P<prep>at|for)\s+(?=(?:the\s+)?[A-Z])")


# one's "go-to" X is one's favourite ("Football Weekly is my go-to podcast now")
_GO_TO = re.compile(r"\b([Mm]y|[Oo]ur)\s+go[- ]to\s+(?=[a-z])")


# a favourite said as its name first ("Empire is my favourite podcast now"): as the phrasings say it, "My favourite
# podcast is Empire now"
_NAMED_FAVOURITE = re.compile(r"(?P<pre>^|[;:,]\s+|\band\s+)(?P<name>(?:[A-Z][\w'’.&-]*\s+){0,4}[A-Z][\w'’.&-]*)\s+"
                              r"(?:is|['’]s)\s+(?P<now>now\s+)?(?P<mine>[Mm]y|[Oo]ur)\s+(?:new\s+)?"
                              r"(?P<fav>favourite|favorite)\s+(?P<kind>[a-z]+(?:\s+(?!now\b)[a-z]+)?)\b(?P<then>\s+now\b)?"
                              r"(?=\s*[.!;,]|\s*$)")


# a post taken up, said with its role after "as" ("Just started a new role as a product owner"): one is that now
_NEW_ROLE = re.compile(rf"(?:\b(?:I|[Ww]e)(?:\s+|(?=['’]))|^)(?:(?:{ADVERBS}|[Jj]ust)\s+)*(?:['’]ve\s+|have\s+)?"
                       r"(?:started|took|taken|accepted|landed|begun|began)\s+(?:a\s+|my\s+)?(?:new\s+)?"
                       r"(?:role|job|position|post)\s+as\s+(?:an?\s+|the\s+)?(?=[a-zA-Z])")


def said_plainly(sentence: str, jobs: frozenset[str] = frozenset()) -> str:
    """A sentence with what it says in other words put as the phrasings say it; ``jobs``: the verbs whose doer is
    a job ("teach", "drive": the work one says one does at a name)."""
    sentence = _GO_TO.sub(r"\1 favourite ", _LIKED_MOST.sub(r"My favourite \1 ", sentence))
    sentence = _NAMED_FAVOURITE.sub(_favourite_said, _NEW_ROLE.sub(_role_said, sentence))
    sentence = _DOING_AT.sub(lambda m: _work_said(m, jobs), sentence) if jobs else sentence
    return _TRAVELLED_IN.sub(r"\1 drive a ", sentence)


def _role_said(m: re.Match[str]) -> str:
    """"started a new role as an analyst": "I'm now an analyst" (the article the role's first letter takes)."""
    after = m.string[m.end():m.end() + 1].lower()
    return f"I'm now {'an' if after in 'aeiou' else 'a'} "


def _favourite_said(m: re.Match[str]) -> str:
    now = "now " if m.group("now") or m.group("then") else ""
    mine = m.group("mine").lower() if m.group("pre") else m.group("mine").capitalize()
    return f"{m.group('pre')}{mine} {m.group('fav')} {m.group('kind')} is {now}{m.group('name')}"


def _work_said(m: re.Match[str], jobs: frozenset[str]) -> str:
    """"I teach chemistry at X": "I work at X", when the one who teaches is a job ("teacher")."""
    verb, be = m.group("verb"), m.group("be") or m.group("be2")
    bases = ({verb[:-3], verb[:-3] + "e", verb[:-4]} if verb.endswith("ing") else set()) if be else {verb}
    bases = {verb[:-1], verb[:-2]} if m.group("who") not in ("I", "We", "we") and not be else bases  # ("Ines
    # teaches at X")
    own_for = m.group(0).rstrip().endswith(f"{verb} for") and (
        bases & _FOR_PHRASAL or any((b, "for") in AIM_PREPS for b in bases))  # ("training for a race": an aim)
    if bases & _NOT_WORK or own_for or not bases & jobs:
        return m.group(0)
    who, prep, be = m.group("who"), m.group("prep"), (be or "").strip()
    if not be:
        return f"{who} {'work' if who in ('I', 'We', 'we') else 'works'} {prep} "
    return f"{who}{'' if be[0] in _APOSTROPHES else ' '}{be} working {prep} "  # ("I'm teaching": "I'm working")


_APOSTROPHES = "'’"


# verbs whose "for" is their own ("wait for Tom", "look for work"), not the one the work is done for
_FOR_PHRASAL = frozenset({"wait", "look", "ask", "care", "search", "apply", "vote", "hope", "head"})
# (and the verbs of aiming and choosing, whose "for" names what is aimed at: ``preps.AIM_PREPS``)
# verbs whose doer's noun is a job but which say no work ("I found it at Tesco": no founder; "I train at a gym"; "I
# bank at Barclays")
_NOT_WORK = frozenset({"work", "found", "train", "bank"})
