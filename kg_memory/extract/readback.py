"""An ontology's own examples read back by the offline extractor.

A group's examples are what it means by each of its predicates; the offline extractor learns its wording from
them. An example it cannot read as its own predicate is one whose wording it will miss in the group's turns too
(the example is still used for meaning). ``kgmem ontology check FILE --examples`` reports those, with the facts
each was read as, so that the one who wrote the file can rephrase it or add one the reader takes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from ..core.models import Episode
from ..core.ontology import Ontology
from ..embed.base import Embedder
from .rules import RulesExtractor

_AT = datetime(2000, 1, 1, tzinfo=UTC)  # (an example says no time: any will do)


@dataclass(frozen=True)
class ExampleRead:
    predicate: str
    example: str
    read_as: tuple[tuple[str, str, str], ...]  # the facts it gave: (subject, predicate, object)

    @property
    def read(self) -> bool:
        """Did it give a fact of its own predicate?"""
        return any(p == self.predicate for _, p, _ in self.read_as)

    def said(self) -> str:
        """The facts it gave, for people ("nothing" when none)."""
        return "; ".join(" ".join(f) for f in self.read_as) or "nothing"

    def to_json(self) -> dict[str, object]:
        return {"predicate": self.predicate, "example": self.example, "read": self.read,
                "read_as": [{"subject": s, "predicate": p, "object": o} for s, p, o in self.read_as]}


def read_examples(ontology: Ontology, embedder: Embedder | None) -> list[ExampleRead]:
    """Each example of the ontology's own predicates (not the default's it extends), as the offline extractor
    reads it under that ontology."""
    reader = RulesExtractor(embedder).with_vocabulary(ontology.vocab)
    out = []
    for name in sorted(ontology.custom):
        for example in ontology.vocab.predicates[name].examples:
            ep = Episode(group_id="examples", role="user", content=example, occurred_at=_AT, created_at=_AT)
            facts = reader.extract(ep).facts
            said = tuple((f.subject, f.predicate, f.object) for f in facts if not f.ending)
            out.append(ExampleRead(name, example, said))
    return out
