"""Sentences said again in the words the readers know: an aside dropped ("If I'm honest, ..."), a couple said as the
speaker's own clause ("Jonah and I have been dating"), "my phone's a OnePlus" as "my phone is", a headline that
names a new one ("New number: ..."), a thing of one's own changed to a value ("switched my email to X"), a wedding
said as an idiom ("we tied the knot"), a move to a job as a new job, a subject read at a university as studied and
one standing in a role as its holder ("Owen is covering as my manager"); what they did to the speaker as done to the
speaker ("they've promoted me to")."""

from __future__ import annotations

import re

from . import dates

# "My phone's a OnePlus": "is", not whose (for the parse too, which reads "phone's" as an owner); and "my boyfriend
# now is Kofi", "is now Kofi" as "is Kofi", which the patterns and the parser read as a copula
_THING_IS = re.compile(r"\b([Mm]y|[Oo]ur)\s+(\w+)(?:['’]s|\s+now\s+is|\s+is\s+now)\s+(?=(?:a|an|the|[A-Z])\w*)")
# an aside that opens a sentence and says nothing of its facts ("If I'm honest, ...", "To be fair ...")
_ASIDE = re.compile(r"^(?:if\s+I['’]?m\s+(?:being\s+)?honest|to\s+be\s+(?:honest|fair)|honestly|in\s+all\s+honesty|"
                    r"if\s+you\s+ask\s+me)\b,?\s+(?=\S)", re.I)
# a couple said together ("Jonah and I have been dating since uni"): said as the speaker's own clause
_TOGETHER = re.compile(r"\b(?P<who>[A-Z][a-z]+)\s+and\s+I\s+(?P<aux>have\s+been|['’]ve\s+been|are|started|got)\s+"
                       r"(?P<how>dating|seeing each other|going out|together)\b")
# a line with no verb that names a new one: "New mobile, new number: 07700 900456" says "My new number is ..."
_NEW_ONE_LINE = re.compile(r"^(?:[\w\s-]+,\s+)?(?:[Mm]y\s+|[Oo]ur\s+)?[Nn]ew\s+((?:[a-z]+\s+){0,2}[a-z]+)\s*:\s+(?=\S)")
# a thing of mine changed to a value is the thing's value now: "I've switched my email to jo@example.org" says "My
# email is jo@example.org" (a slot's noun or an attribute's, whose old value it then replaces)
_MINE_CHANGED = re.compile(r"\b(?:I|[Ww]e)(?:['’]ve|\s+have)?\s+(?:just\s+|finally\s+)?(?:changed|switched|updated)\s+"
                           r"([Mm]y|[Oo]ur)\s+((?:[a-z]+\s+)?[A-Za-z]+)\s+(?:over\s+)?to\s+(?!(?:a|an)\s)(?=\S)")

# a wedding said as an idiom ("We tied the knot in September!"): said plainly, as "got married"
_HITCHED = re.compile(r"\b(I|[Ww]e)\s+((?:finally|just|officially)\s+)?(?:tied\s+the\s+knot|got\s+hitched)\b")

# what they did to the speaker, said as done to the speaker ("They've bumped me up to HR manager": "I got bumped up
# to HR manager"), as the phrase patterns read it
_THEY_DID_ME = re.compile(r"\b[Tt]hey(?:['’]ve|\s+have)?\s+(?:just\s+|finally\s+)?([a-z]+ed)\s+me\s+"
                          r"((?:up|over)\s+)?to\b")

# one standing in a role of the speaker's ("Owen is covering as my manager"): said as the role's holder ("my manager
# is Owen")
_STANDS_AS = re.compile(r"\b(?P<who>[A-Z][a-z]+)\s+(?:is|['’]s|has\s+been)\s+(?:now\s+)?(?:covering|acting|"
                        r"standing\s+in|filling\s+in|stepping\s+in|serving)\s+as\s+(?P<mine>[Mm]y|[Oo]ur)\s+"
                        r"(?P<role>[a-z]+(?:\s+[a-z]+)?)\b(?=\s*(?:[.,;!]|$|\s+(?:now|for|while|until)\b))")

# a move to a job is a new job, not a new home ("Ines moved to a job at St Peter's Academy")
_MOVED_TO_A_JOB = re.compile(r"\bmoved\s+(?:over\s+)?(?:to|into)\s+(?:a|an)\s+(?:new\s+)?(?:job|role|post|position)\s+"
                             r"(?:at|with)\b")

# a subject "read" at a university is studied there ("I'm reading chemistry at uni"), not a book read
_READ_AT_UNI = re.compile(r"\breading\s+(?=(?:[a-z]+\s+){1,3}(?:at|in)\s+(?:uni\b|university\b|college\b|"
                          r"(?-i:[A-Z])))", re.I)


def _said_as_mine(m: re.Match[str]) -> str:
    """"Jonah and I have been dating": "I have been dating Jonah" ("together with", "going out with", "seeing")."""
    aux = "am" if m.group("aux") == "are" else m.group("aux")
    how = {"together": "together with", "going out": "going out with", "seeing each other": "seeing"}.get(
        m.group("how"), m.group("how"))
    return f"I {aux} {how} {m.group('who')}"


def reworded(raw: str) -> str:
    """The sentence ``raw`` said again as the readers read it (see the module's doc)."""
    said = _TOGETHER.sub(_said_as_mine, _ASIDE.sub("", raw.strip()))
    said = _THEY_DID_ME.sub(lambda m: f"I got {m.group(1)} {m.group(2) or ''}to", said)
    said = _STANDS_AS.sub(lambda m: f"{m.group('mine')} {m.group('role')} is {m.group('who')}", said)
    said = _MOVED_TO_A_JOB.sub("got a job at", _READ_AT_UNI.sub("studying ", said))
    said = _HITCHED.sub(lambda m: f"{m.group(1)} {m.group(2) or ''}got married", said)
    said = said[:1].upper() + said[1:]
    said = _MINE_CHANGED.sub(lambda m: f"{m.group(1).capitalize()} {m.group(2)} is ", said)
    said = _THING_IS.sub(r"\1 \2 is ", dates.expand_weekdays(said))  # (the one slot's new value: no "now")
    return _NEW_ONE_LINE.sub(r"My new \1 is ", said)
