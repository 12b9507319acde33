"""An attribute said by part of its name is the one its holder has: "my email is X" after "my work email is Y"
changes the work email, and "my work email is X" after "my email is Y" the email. An attribute is a noun of
someone's that no predicate of the ontology names, kept with one value (``ExtractedFact.one_value``); its
predicate is the noun as said ("work_email"), so two ways of saying one noun would keep two current values.

The subject's attribute is the one whose name ends with the said name, or with which the said name ends
("phone_number" for "number", "email" for "work_email"), when it holds exactly one such and none of the said
name itself; with two ("work_email" and "personal_email") the said one stays its own."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from ..core.models import Entity, normalize_name
from ..core.vocab import Vocabulary
from ..extract.base import ExtractedFact, Extraction
from ..store.base import StoreCore, TimeFilter

# the current facts read of the subjects that say attributes, the latest first: a speaker of a long conversation
# may hold more, and an attribute said before the latest 1,000 of them is then not found (it stays its own)
_HELD_READ = 1000


def as_held(store: StoreCore, group_id: str, vocab: Vocabulary, extractions: dict[str, Extraction],
            order: list[str], known: dict[str, Entity], now: datetime) -> dict[str, Extraction]:
    """``extractions`` (episodes in time ``order``) with each attribute said under the name its subject holds it by."""
    subjects = sorted({e.id for x in extractions.values() for f in x.facts
                       if an_attribute(f, vocab) and (e := known.get(normalize_name(f.subject))) is not None})
    if not subjects:
        return extractions
    tf = TimeFilter(as_of=now, known_at=now)
    held: dict[str, set[str]] = {s: set() for s in subjects}
    for v in store.facts_for_entities(group_id, subjects, tf, _HELD_READ):
        if v.subject_id in held and v.predicate not in vocab.predicates:
            held[v.subject_id].add(v.predicate)
    out = dict(extractions)
    for eid in order:
        if eid in extractions:
            out[eid] = replace(extractions[eid], facts=[_named(f, vocab, known, held) for f in extractions[eid].facts])
    return out


def an_attribute(f: ExtractedFact, vocab: Vocabulary) -> bool:
    """A fact of a noun no predicate of the ontology names, kept with one value ("my dentist is X")."""
    return f.one_value and f.predicate not in vocab.predicates


def _named(f: ExtractedFact, vocab: Vocabulary, known: dict[str, Entity], held: dict[str, set[str]]) -> ExtractedFact:
    """The fact under its subject's name for the attribute; ``held`` learns the name (a later turn of the batch
    says it by part of it too)."""
    subject = known.get(normalize_name(f.subject))
    if not an_attribute(f, vocab) or subject is None or subject.id not in held:
        return f
    names = held[subject.id]
    variants = {q for q in names if q.endswith("_" + f.predicate) or f.predicate.endswith("_" + q)}
    if f.predicate not in names and len(variants) == 1:
        name = variants.pop()
        said = f.predicate.replace("_", " ")
        f = replace(f, predicate=name, statement=f.statement.replace(said, name.replace("_", " "), 1))
    names.add(f.predicate)
    return f
