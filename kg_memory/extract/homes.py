"""Where one lives, said as a home in a named place ("bought a flat in Leeds", "my own flat in Bath", "Home for
me is a little place in Norwich"): a move there, under the place slot whose keywords name the home."""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from ..core.vocab import Predicate, Vocabulary
from .clauses import HYPOTHETICAL
from .reading import STOP, Reading
from .succession import NAME

# a home one only looks at or stays in ("viewed a flat in Leeds", "stayed in a house in Rome on holiday")
_NOT_A_HOME = re.compile(r"\b(?:stay|look|view|visit|tour)(?:s|ed|ing)?\b|\b(?:holiday|trip|airbnb|hotel)\b", re.I)


# other nouns of a home, for the place slot whose own keywords name homes ("house", "flat"): English words
# for a dwelling, not phrasings of a domain
_DWELLINGS = frozenset({"place", "flatshare", "houseshare", "bungalow", "cottage", "studio", "maisonette", "townhouse",
                        "condo", "bedsit", "semi", "terrace", "loft", "duplex"})


# a home said by its bedrooms ("a two-bed in Clapham", "a 3-bedroom in Leith"): a place one lives in
_BEDS = r"(?:one|two|three|four|five|\d)[- ]?bed(?:room)?"


# places of work one is moved to ("Marcus moved to the Dublin office"): no home
WORKPLACES = frozenset({"office", "offices", "branch", "team", "department", "site", "desk", "shift", "ward", "campus",
                        "hq", "headquarters", "depot", "store", "plant", "factory", "lab", "division", "unit"})


# a street address ("3 Church Street", "14a Mill Lane"): English words for a street
_STREET = re.compile(r"\d+[A-Za-z]?,?\s+(?:[A-Z][\w'’-]*\s+){1,3}(?i:street|st|road|rd|lane|avenue|ave|close|drive|way|"
                     r"place|crescent|terrace|court|gardens|grove|row|square|hill|mews|walk|boulevard|view)\b")


def whole_address(value: str, sentence: str) -> str:
    """"My new address is Flat 4, 9 Mill Lane": an address said in parts (a flat, then its street) is all of them."""
    at = sentence.find(value + ",")
    street = _STREET.match(sentence[at + len(value) + 1:].lstrip()) if at >= 0 else None
    return f"{value}, {street.group(0)}" if street is not None else value


_SAID_BY_US = re.compile(r"(?:I|we)\b", re.I)  # (not "our office is at ...", "my address is ...": another slot's)


# a home that is not one's own now ("my old flat in Leeds", "my parents' house")
_PAST_HOME = re.compile(r"\b(?:old|former|previous|last|first|parents'?|mum's|dad's|childhood)\b", re.I)


# what one does to a home that makes it one's own ("bought a house in Ipswich", "rent a place in Didsbury")
_HOMING = frozenset({"buy", "rent", "get", "find", "be", "have", "own", "move", "lease", "share", "take", "settle"})


class Homes:
    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab

    @functools.cached_property
    def dwellings(self) -> dict[str, Predicate]:
        """Nouns that name where one is (a predicate's own keywords: "house", "flat") -> the one single-valued
        entity predicate of a place that lists them (its description says "place" or "city")."""
        places = [p for p in self.vocab.predicates.values() if p.object_kind == "entity" and p.single_valued
                  and re.search(r"\b(?:place|city)\b", p.description)]
        index: dict[str, list[Predicate]] = {}
        for p in places:
            for word in p.keywords:
                index.setdefault(word, []).append(p)
        homes = {w: ps[0] for w, ps in index.items() if len(ps) == 1}
        held = {p.name: p for w, p in homes.items() if w in ("house", "flat", "home")}
        return homes | ({w: next(iter(held.values())) for w in _DWELLINGS if w not in homes} if len(held) == 1 else {})

    @functools.cached_property
    def _dwelling_words(self) -> str:
        """The dwellings' nouns as one alternation, longest first (none: a pattern that never matches)."""
        words = "|".join(sorted(map(re.escape, self.dwellings), key=len, reverse=True))
        return f"{_BEDS}|{words}" if words else "(?!)"

    @functools.cached_property
    def _my_home(self) -> re.Pattern[str]:
        """A home of one's own said anywhere in a clause, in a named place ("my own flat in Bath")."""
        return re.compile(rf"\b(?i:(?:a|an|my|our)\s+(?:[a-z]+\s+){{0,2}}({self._dwelling_words}))\s+in\s+{NAME}")

    @functools.cached_property
    def _my_home_is(self) -> re.Pattern[str]:
        """A home of one's own said as a copula's subject ("Our flat is above a bakery in Falmouth")."""
        return re.compile(rf"^(?i:my|our)\s+(?:[a-z]+\s+){{0,2}}({self._dwelling_words})\s+is\b")

    def read(self, r: Reading, speaker: str = "User") -> tuple[Reading, Predicate] | None:
        """The reading as a move to the named place (the home in it, near it or outside it: "a caravan near
        Newquay"), and the slot; None when it says no home of one's own."""
        # the home said as the value, as what was bought ("bought a house in Ipswich") or as the copula's subject
        # ("Home for me is a little place in Norwich"), or anywhere in the clause ("the keys to my own flat in Bath")
        at = self._at_an_address(r, speaker)
        if at is not None:
            return at
        home = r.object if not r.object_proper else r.moved or (r.text.split()[0] if r.verb == "be" else "")
        plain = r.shape in ("plain", "change")  # ("moved into a flatshare in Leeds")
        taken = r.object_proper or r.verb == "move" or not _PAST_HOME.search(  # (not "cleaned my old flat"; but
            " ".join(r.text.split(home)[0].split()[-2:]) if home else "")  # "moved back to my parents' place")
        spec = self._home_said(home, r.verb) if home and r.object and plain and taken else None
        mine = self._my_home.search(r.text) if spec is None and r.shape == "plain" else None
        if mine is not None and self._owned(r, mine.group(0)):
            home, spec = mine.group(1), self._home_said(mine.group(1), "")
        said = self._my_home_is.match(r.text) if spec is None and r.verb == "be" and r.shape == "plain" else None
        if said is not None and not _PAST_HOME.search(said.group(0)):
            home, spec, r = said.group(1), self._home_said(said.group(1), ""), replace(r, subject=speaker)
        said_home = "[- ]".join(map(re.escape, home.split("-")))  # ("a two-bed", parsed as "two bed")
        placed = re.search(rf"\b{said_home}\b(?:\s+\S+){{0,6}}?\s+(?:in|near|outside|on the (?:edge|outskirts) of)"
                           rf"\s+(?:the\s+)?{NAME}", r.text) \
            if spec is not None else None
        if spec is None or placed is None or HYPOTHETICAL.search(r.text) or _NOT_A_HOME.search(r.text):
            return None
        return replace(r, object=placed.group(1).rstrip(".,;:!?"), object_proper=True, shape="change"), spec

    def _at_an_address(self, r: Reading, speaker: str) -> tuple[Reading, Predicate] | None:
        """"We're at 14 Ferndale Road", "we've just completed on 3 Orchard Close": the speaker at, or making their
        own, a street address is living there."""
        spec = self.dwellings.get("home") or self.dwellings.get("house")
        if spec is None or self._own_addresses or r.subject != speaker or not _SAID_BY_US.match(r.text) \
                or r.shape == "end" or r.verb not in _HOMING | {"live", "complete"} \
                or not _STREET.fullmatch(r.object.strip()) or HYPOTHETICAL.search(r.text) or _NOT_A_HOME.search(r.text):
            return None
        return replace(r, object_proper=True, shape="change"), spec

    @functools.cached_property
    def _own_addresses(self) -> bool:
        """Does a slot of the group's own take street addresses (its examples say one)? Then it reads them."""
        return any(_STREET.search(e) for p in self.vocab.own for e in self.vocab.predicates[p].examples)

    def _home_said(self, home: str, verb: str) -> Predicate | None:
        """The place slot a home's noun names ("flat", "cottage"); or whatever one is said to live on or in ("living
        on a houseboat on the canal in Oxford")."""
        last = home.lower().split()[-1]
        spec = self.dwellings.get("place" if re.fullmatch(_BEDS, last) or re.search(rf"\b{_BEDS}$", home.lower())
                                  else last)
        return spec if spec is not None or verb != "live" else self.dwellings.get("home") or self.dwellings.get("house")

    def of_address(self, noun: str, value: str) -> Predicate | None:
        """"Our new address is 3 Church Street": one's street address is where one lives (the place slot whose
        keywords name a home); not an address of work or of mail ("my work address", "my email address")."""
        said = noun.lower().split()
        if not said or said[-1] != "address" or not set(said[:-1]) <= {"new", "home", "street", "postal"} \
                or _STREET.match(value.strip()) is None:
            return None
        return self.dwellings.get("home") or self.dwellings.get("house")

    @staticmethod
    def _owned(r: Reading, said: str) -> bool:
        """A home said in a clause is one's own now when the clause makes it so ("bought a house in Ipswich") or
        says it as one's own ("got the keys to our place in Stockport"), unless the clause lets it go ("sold
        our house in Leeds") or it is an old one or another's ("my old flat", "my parents' house")."""
        if _PAST_HOME.search(said):
            return False
        return r.verb in _HOMING or bool(re.match(r"(?i:my|our)\s", said)) and r.verb not in STOP
