"""Words of a clause that say when its value holds: a state said in the present, just begun or lasting; a value
said as the one now, or as new; a value added beside those held (``meaning.MeaningReader``)."""

from __future__ import annotations

import re

from .dates import CLAUSE_BREAK

# a state the speaker says in the present ("I'm at Durham", "we're in Leeds", "my phone is ...", "I live with ...")
PRESENT_STATE = re.compile(r"^(?:I\s*'?m|I\s+am|we\s*'?re|we\s+are|my\s+\w+(?:\s+\w+)?\s+is|(?:I|we)\s+"
                           r"(?!(?:had|was|were|did|went|got|made|said|saw|thought|told)\b)[a-z]+(?<!ed))\b", re.I)
# a value added beside those held, not in place of one ("I've also been put on ramipril")
ADDED = re.compile(r"\b(?:also|too|as\s+well|added|on\s+top)\b", re.I)
# a value said in place of another, though not which ("moved me onto citalopram instead", "swapped to an inhaler")
SWAPPED = re.compile(r"\b(?:instead|in\s+place\s+of|switch(?:ed|es|ing)?|swap(?:ped|s|ping)?|"
                     r"(?:changed|moved|put)\s+(?:me|us|him|her|them)\s+(?:on|onto|over|to)\b)", re.I)
BEGUN = re.compile(r"^(?:I|we)\s*(?:['’]ve|have)\s+(?:just\s+)?(?:started|begun)\b", re.I)  # a state just begun
# a state that has lasted and goes on ("I've been at Deloitte for three years")
LASTING = re.compile(r"^(?:I|we)\s*(?:['’]\s*ve|have)\s+been\b[^.;]*?\b"
                     r"(?:for\s+(?:\w+\s+)?(?:years|months|ages|decades)|since\s+\d{4}|since\s+(?:the\s+|last\s+)?"
                     r"(?:spring|summer|autumn|fall|winter|christmas|easter|january|february|march|april|may|june|"
                     r"july|august|september|october|november|december))\b", re.I)
SAID_NOW = re.compile(r"\b(?:now|these days|nowadays|lately)\b", re.I)  # a value said as the one now
# words that say a clause's value is new: such a clause states a change even without a change verb
# ("I'm back in Sydney for good now", "I became charge nurse", "lately my favourite band is Big Thief")
CHANGE_CUE = re.compile(r"\b(?:now|new|newly|became|become|becomes|lately|these days|nowadays|anymore|"
                        r"no longer|instead|from now on|for good|currently)\b", re.I)
# an end to come, or one supposed, is no end yet ("I'll sell the car", "if we split up")
SUPPOSED = re.compile(r"\b(?:I|we)\s*(?:['’]ll|will|shall|['’]d|would)\b|\bif\s+(?:I|we)\b", re.I)
# a stay that ends by itself: a visit, not where one lives or works ("We went to Paris for the weekend", "I went back
# to Leeds for Christmas", "we're in Lisbon on holiday"; not a season: "rebased to Bristol for the winter")
_A_STAY = re.compile(r"\b(?:for\s+(?:the|a|an|one|two|three|a\s+few|a\s+couple\s+of|the\s+long)?\s*(?:weekend|week|"
                     r"day|night|fortnight|holiday|christmas|easter|break|trip|half[- ]term)s?"
                     r"|on\s+(?:holiday|a\s+trip|vacation|a\s+break|a\s+visit))"
                     r"(?=\s*(?:[.,;!?]|$)|\s+(?:to|with|and|at|in|because|so|but)\b)", re.I)  # ("the weekend edition")


def a_stay(sentence: str, value: str) -> bool:
    """Is the value said in a clause of a visit (``_A_STAY``): a stay that ends by itself?"""
    clause = next((c for c in re.split(rf"{CLAUSE_BREAK.pattern}|,\s+|\s+(?:and|but|so)\s+", sentence) if value in c),
                  "")  # (a clause of a sentence, and each part of it joined by a comma or a conjunction)
    return _A_STAY.search(clause) is not None
