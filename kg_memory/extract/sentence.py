"""A sentence as the offline extractor reads it: where sentences end, their quotes and contractions made plain,
and which subjects name someone (not a pronoun, not a possessive cut short)."""

from __future__ import annotations

import re

# a sentence ends at . ! ? (not after a title: "Dr. Patel") or a line break
# (a headline's colon before a first-person clause ends a sentence too: "New goal: I'm training for ...")
SENTENCE = re.compile(r"(?<!\b[DMS][rts]\.)(?<!\bMrs\.)(?<!\bProf\.)(?<=[.!?])\s+|(?<=:)\s+(?=(?:I|We|My|Our)\b)|\n+")

_CONTRACTIONS = [
    (r"\bI'm\b", "I am"), (r"\bI've\b", "I have"), (r"\bI'd\b", "I would"), (r"\bI'll\b", "I will"),
    (r"\bwe're\b", "we are"), (r"\bwe've\b", "we have"), (r"\bdon't\b", "do not"),
    (r"\bdoesn't\b", "does not"), (r"\bdidn't\b", "did not"), (r"\bhe's\b", "he is"), (r"\bshe's\b", "she is"),
    (r"\bIm\b", "I am"),
]
# a chat line that drops its "I" before a verb of change ("Finally got myself a Galaxy", "Moved to Leeds")
_DROPPED_I = re.compile(r"^((?:finally|just|recently|so|also|then|now)\s+)?(got|bought|went|took|made|sold|left|moved|"
                        r"started|switched|quit|traded|swapped|upgraded|joined|became)\b", re.I)


def normalize_text(text: str) -> str:
    s = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    for rx, repl in _CONTRACTIONS:
        s = re.sub(rx, repl, s, flags=re.I)
    return _DROPPED_I.sub(lambda m: f"{m.group(1) or ''}I {m.group(2).lower()}", s)


_PRONOUNS = {"i", "me", "we", "us", "you", "he", "him", "she", "her", "they", "them", "it", "this", "that", "these",
             "those", "there", "here", "what", "who", "which", "someone", "something", "everyone", "everything"}
_SAINTS = re.compile(r"(?:St\.?|Saint)\s+[A-Z][\w-]*['’]s$")  # a church's name ends as a possessive: "St Mary's"


def named_subject(subject: str) -> bool:
    """A subject that names someone: not a pronoun ("it lives in me") and not a possessive cut short ("love's")."""
    s = subject.strip()
    return bool(s) and s.lower() not in _PRONOUNS and "  " not in subject \
        and (not s.endswith(("'s", "’s")) or _SAINTS.fullmatch(s) is not None)
