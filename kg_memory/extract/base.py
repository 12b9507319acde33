"""The extractor interface. Extractors are pure: episode in, names and facts out.
Resolving names to entities and deciding invalidation happens in the pipeline."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

from ..core.models import Episode


@dataclass(frozen=True)
class ExtractedFact:
    subject: str
    predicate: str
    object: str
    statement: str
    valid_from: datetime
    valid_to: datetime | None = None
    subject_kind: Literal["entity", "value"] = "entity"
    object_kind: Literal["entity", "value"] = "entity"
    dated: bool = False
    ending: bool = False
    any_object: bool = False
    confidence: float = 1.0
    # A change whose slot meaning alone does not settle ("we moved the wiki to Notion": hosted on? owned
    # by?): the other predicates it may change, nearest first. The pipeline takes the first of
    # (predicate, *alternatives) the subject holds a value of now; with none held, ``predicate`` unless
    # ``needs_slot`` (then nothing: meaning was too unsure to start a slot).
    alternatives: tuple[str, ...] = ()
    needs_slot: bool = False
    # The old value a change names ("switched from ibuprofen to naproxen"): the slot it changes is the
    # one in which the subject holds that value now, whatever meaning ranked first.
    replaces: str = ""
    # The other names the sentence says ("Lucy double-booked, so Priya will shoot the wedding": Lucy): one of
    # them held now as the value of the fact's slot by one thing makes the fact that thing's change.
    named: tuple[str, ...] = ()
    # A start said as a period ("in March", "this spring"): the latest it may have begun (the period's end, or
    # when it was said). A value known to hold from inside that period came before it (see ``temporal.decide``).
    started_by: datetime | None = None
    # An open fact (no predicate of the ontology) that the sentence says is the one value of its slot ("my
    # dentist is Dr. Greaves", "my favourite band is Wet Leg"): a new one of the subject's replaces it.
    one_value: bool = False
    # A change of a many-valued slot that names no old value ("my GP has moved me onto citalopram"): it takes the
    # place of the subject's one value of the slot, when the subject holds exactly one.
    in_place_of_held: bool = False
    # The predicates the meaning reader found nearly as near as ``predicate`` for a plain clause (the group's
    # pharmacy "gets its flu vaccines from Seqirus": dispensing_system, then supplier): a model that read the
    # sentence and chose one of them settles it.
    rivals: tuple[str, ...] = ()
    # A value an earlier turn said, read again when a later turn changed its slot (``ingest.lookback``): that turn's
    # id, the fact's source.
    source_episode: str = ""


@dataclass
class Extraction:
    facts: list[ExtractedFact] = field(default_factory=list)
    mentions: list[str] = field(default_factory=list)  # entity names the episode mentions
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class ExtractContext:
    """Previous turns of the same session (oldest first), for extractors that use them."""

    previous: tuple[Episode, ...] = ()


class Extractor(Protocol):
    name: str
    version: str | None

    def extract(self, episode: Episode, context: ExtractContext) -> Extraction: ...
