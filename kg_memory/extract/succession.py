"""One who steps in after another's end, in the same sentence: "Keith quit The Strays and Lola took over",
"Mario's Trattoria closed down, and Blue Olive is taking over the menu", "Dev pulled out; his colleague Ruth
Okafor is covering the day". Pure functions over the sentence's words; which slot the one who stepped in
now holds is settled by whoever holds the one who ended (``kg_memory.ingest.holders``)."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from ..core.temporal import names_value
from ..core.vocab import Vocabulary
from .base import ExtractedFact

NAME = r"([A-Z][\w.'’&-]*(?:\s+[A-Z][\w.'’&-]*)*)"  # a run of words said with capitals

# what a name does when it steps in, said of its own ("took over", "is covering the day", "stepped in")
_STEPS_IN = (r"(?:took|taken|taking|takes|take)\s+over|(?:stepped|stepping|steps)\s+(?:in|up)|"
             r"(?:picked|picking|picks)\s+up|(?:moved|moves|moving)\s+in\b(?!\s+with)|"
             r"(?:replaced|replaces|replacing|succeeded|succeeds)\s+(?:him|her|them)|"
             r"(?:filled|fills|filling)\s+in|(?:came|comes|coming)\s+in|"
             r"(?:covering|covers|covered|will\s+cover)|(?:looking|looks|will\s+look)\s+after|"
             r"is\s+(?:now\s+)?(?:the|our|their)\s+new\s+[\w-]+")

# one who steps in after an end ("... and Lola took over on drums", "and Dan is the new host"), and the
# one said with whose work it is ("his colleague Ruth Okafor")
STEPPED_IN = re.compile(rf"(?:\band|\bso|\bthen|[,;])\s+(?:(?:his|her|their|its|our)\s+[a-z]+\s+)?{NAME}\s+"
                        rf"(?:has\s+|have\s+|is\s+|are\s+|was\s+)?(?:now\s+)?(?:{_STEPS_IN})\b")

# a name's own end, with no value said ("Apex Lofts went bust", "Dev pulled out", "Ines has stepped down
# from the parser crate"): the name held a slot, which someone else now holds
_ENDED = re.compile(rf"(?:^|[,;]\s+|\b(?:and|but)\s+){NAME}(?:['’]s\s+|\s+(?:has|have|had|is|are|was)\s+|\s+)(?:"
                    r"closed(?:\s+down)?|shut\s+down|went\s+(?:bust|under)|gone\s+(?:bust|under)|folded|"
                    r"(?:pulled|dropped|backed|pulling|dropping|backing)\s+out|double[- ]booked|"
                    r"cancell?ed(?:\s+on\s+(?:us|me))?|retired|retiring|quit|quitting|resigned|resigning|left|leaving|"
                    r"(?:stepped|stepping)\s+(?:down|back|aside)|(?:moved|moving)\s+(?:on|away|out|to\s+another\s+\w+))\b")
# the one said to replace an end ("and her replacement for aqua aerobics is Tom Wills")
_REPLACEMENT = re.compile(rf"\b(?:his|her|their|its)\s+(?:replacement|successor)\b[^.;]*?\s+(?:is|will\s+be)\s+"
                          rf"(?:(?:a|an|some|this)\s+(?:[a-z]+\s+){{0,2}}(?:called|named)\s+)?{NAME}")
# (and one said by what they are called: "her replacement is a guy called Olu")


def stepped_in(sentence: str, after: int = 0) -> str | None:
    """The name that steps in, after position ``after`` of the sentence."""
    said = STEPPED_IN.search(sentence, after) or _REPLACEMENT.search(sentence, after)
    return said.group(1).rstrip(".") if said is not None else None


def took_over(sentence: str) -> list[tuple[str, str]]:
    """(the one whose end the sentence says, the one who steps in after it): "Dev pulled out; his colleague
    Ruth Okafor is covering the day" gives ("Dev", "Ruth Okafor")."""
    out = []
    for ended in _ENDED.finditer(sentence):
        gone = re.sub(r"['’]s$", "", ended.group(1))  # ("Danny's moved on": Danny)
        after = stepped_in(sentence, ended.end())
        if after is not None and after != gone:
            out.append((gone, after))
    return out


# words said with a capital that open a sentence or clause and name nothing
_OPENERS = frozenset("the a an we i our my his her their its it this that these those so and but then after before "
                     "since when while on in at for from to with by as if once now today yesterday".split())


def names_in(sentence: str) -> list[str]:
    """The names a sentence says, without a capitalised opener ("The", "After")."""
    out = []
    for said in re.finditer(NAME, sentence):
        words = said.group(1).split()
        while words and words[0].lower() in _OPENERS:
            words = words[1:]
        if words:
            out.append(" ".join(words))
    return list(dict.fromkeys(out))


def with_names(f: ExtractedFact, sentence: str) -> ExtractedFact:
    """A new value, with the other names its sentence says (one may be the value it replaces)."""
    if f.ending or f.replaces:
        return f
    said = tuple(n for n in names_in(sentence) if not names_value(n, f.subject) and not names_value(n, f.object))
    return replace(f, named=said) if said else f


def in_place_of(vocab: Vocabulary, sentence: str, start: datetime, dated: bool) -> list[ExtractedFact]:
    """"Dev pulled out; Ruth Okafor is covering the day": the one who steps in after a name's own end, said of
    the name it replaces, in any of the group's own single slots (the holders settle which thing's slot it is,
    the one that holds the name; else it is dropped)."""
    # (a group's own slots; under the default ontology, the built-in ones of a named one: "my boss")
    slots = [p for p in vocab.own if vocab.is_single(p) and vocab.predicates[p].object_kind in ("entity", "value")] \
        or [p for p in vocab.predicates if vocab.is_single(p) and vocab.predicates[p].object_kind == "entity"]
    if not slots:
        return []
    spec = vocab.predicates[slots[0]]
    return [ExtractedFact(subject=gone, predicate=spec.name, object=after, statement=spec.render(gone, after),
                          valid_from=start, dated=dated, object_kind="entity", confidence=0.8,
                          alternatives=tuple(slots[1:]), needs_slot=True, replaces=gone)
            for gone, after in took_over(sentence)]
