"""The data model: episodes, entities and fact versions (pydantic v2)."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .timeutil import ensure_utc

Role = Literal["user", "assistant", "system", "tool"]
Status = Literal["pending", "done", "failed"]


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def content_sha256(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


class _UTCModel(BaseModel):
    model_config = ConfigDict(frozen=True)

    @field_validator(
        "occurred_at", "created_at", "valid_from", "valid_to", "expired_at",
        mode="after", check_fields=False,
    )
    @classmethod
    def _utc(cls, v: datetime | None) -> datetime | None:
        return ensure_utc(v) if v is not None else None


class Episode(_UTCModel):
    """An immutable record of something said or observed."""

    id: str = Field(default_factory=lambda: new_id("ep"))
    group_id: str
    role: Role = "user"
    speaker: str | None = None
    content: str
    occurred_at: datetime
    created_at: datetime
    session_id: str | None = None
    source: str | None = None
    content_sha256: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    status: Status = "pending"
    status_reason: str | None = None
    # where the body went when `kgmem jobs archive` moved it out of the store (content is then
    # empty; content_sha256 still names the body, and `kgmem jobs restore` checks it)
    archive_ref: str | None = None

    @property
    def archived(self) -> bool:
        return self.archive_ref is not None

    def display_text(self) -> str:
        """The content, or a note that the body is in the archive (`kgmem jobs restore`)."""
        return "[archived: `kgmem jobs restore` brings the text back]" if self.archived else self.content

    def model_post_init(self, __context: Any) -> None:
        if not self.content_sha256:
            object.__setattr__(self, "content_sha256", content_sha256(self.content))

    @property
    def dedupe_key(self) -> tuple[str, str, str, datetime]:
        return (self.group_id, self.role, self.content_sha256, self.occurred_at)

    def index_text(self) -> str:
        """What search indexes: the content, the speaker, the date and any image caption."""
        parts = []
        if self.speaker:
            parts.append(f"{self.speaker}:")
        parts.append(self.content)
        caption = self.metadata.get("blip_caption") if self.metadata else None
        if caption:
            parts.append(f"[image: {caption}]")
        parts.append(f"({self.occurred_at:%d %B %Y})")
        return " ".join(parts)


class Entity(_UTCModel):
    id: str = Field(default_factory=lambda: new_id("en"))
    group_id: str
    name: str
    kind: Literal["entity", "value"] = "entity"
    aliases: tuple[str, ...] = ()
    created_at: datetime
    # set when entity resolution merged this entity into another (kg_memory/maintenance/resolve.py); lookups
    # by this entity's name then find the survivor, and `kgmem jobs unmerge` clears it
    merged_into: str | None = None

    @property
    def key(self) -> str:
        return normalize_name(self.name)


class FactVersion(_UTCModel):
    """One version of a fact. Never edited except to close its transaction time."""

    id: str = Field(default_factory=lambda: new_id("fv"))
    fact_id: str = Field(default_factory=lambda: new_id("fact"))
    group_id: str
    subject_id: str
    subject: str
    predicate: str
    object_id: str
    object: str
    statement: str
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    created_at: datetime
    expired_at: datetime | None = None
    expired_by: str | None = None
    episode_ids: tuple[str, ...] = ()
    extractor: str = "rules"
    prompt_version: str | None = None
    confidence: float = 1.0
    reinforcement_count: int = 1

    def replace(self, **changes: Any) -> FactVersion:
        return self.model_copy(update=changes)


class ScoredFact(BaseModel):
    fact: FactVersion
    score: float
    components: dict[str, float] = Field(default_factory=dict)


class ScoredEpisode(BaseModel):
    episode: Episode
    score: float
    components: dict[str, float] = Field(default_factory=dict)


class RecallResult(BaseModel):
    query: str
    group_id: str
    as_of: datetime
    known_at: datetime
    facts: list[ScoredFact]
    episodes: list[ScoredEpisode]
    # Asked-for values that no longer hold: the latest ended version of each
    # (named subject, predicate) the question asks about that has no value now.
    ended: list[FactVersion] = Field(default_factory=list)

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        def ts(v: datetime | None) -> str | None:
            return v.isoformat().replace("+00:00", "Z") if v else None

        facts = []
        for sf in self.facts:
            f = sf.fact
            row: dict[str, Any] = {
                "id": f.id, "fact_id": f.fact_id, "subject": f.subject, "predicate": f.predicate,
                "object": f.object, "statement": f.statement, "valid_from": ts(f.valid_from),
                "valid_to": ts(f.valid_to), "created_at": ts(f.created_at),
                "expired_at": ts(f.expired_at), "expired_by": f.expired_by,
                "score": round(sf.score, 6), "episode_ids": list(f.episode_ids),
            }
            if explain:
                row["components"] = {k: round(v, 6) for k, v in sf.components.items()}
            facts.append(row)
        eps = []
        for se in self.episodes:
            e = se.episode
            row = {
                "id": e.id, "content": e.content, "role": e.role, "speaker": e.speaker,
                "occurred_at": ts(e.occurred_at), "session_id": e.session_id, "metadata": dict(e.metadata),
                "score": round(se.score, 6),
            }
            if explain:
                row["components"] = {k: round(v, 6) for k, v in se.components.items()}
            eps.append(row)
        ended = [{"id": f.id, "fact_id": f.fact_id, "subject": f.subject, "predicate": f.predicate,
                  "object": f.object, "statement": f.statement, "valid_from": ts(f.valid_from),
                  "valid_to": ts(f.valid_to), "episode_ids": list(f.episode_ids)} for f in self.ended]
        return {"query": self.query, "group_id": self.group_id, "as_of": ts(self.as_of),
                "known_at": ts(self.known_at), "facts": facts, "ended": ended, "episodes": eps,
                "context_block": self.context_block()}

    def context_block(self) -> str:
        from .vocab import load_vocabulary

        known = load_vocabulary().predicates
        lines = ["# Facts"]
        for sf in self.facts:
            f = sf.fact
            since = f" (since {f.valid_from:%Y-%m-%d})" if f.valid_from else ""
            until = f" (until {f.valid_to:%Y-%m-%d})" if f.valid_to else ""
            # an open predicate reads better as the sentence it came from
            said = f"{f.subject} {f.predicate} {f.object}" if f.predicate in known or not f.statement else f.statement
            lines.append(f"- {said}{since}{until}")
        if not self.facts:
            lines.append("- (none)")
        if self.ended:
            lines.append("# No longer true")
            for f in self.ended:
                since = f"from {f.valid_from:%Y-%m-%d}, " if f.valid_from else ""
                lines.append(f"- {f.subject} {f.predicate} {f.object} ({since}ended {f.valid_to:%Y-%m-%d})"
                             if f.valid_to else f"- {f.statement}")
        lines.append("# Episodes")
        for se in self.episodes:
            e = se.episode
            who = e.speaker or e.role
            lines.append(f"- [{e.occurred_at:%Y-%m-%d}] {who}: {e.display_text()}")
        if not self.episodes:
            lines.append("- (none)")
        return "\n".join(lines)


M = TypeVar("M", bound=BaseModel)


def from_trusted(cls: type[M], **values: Any) -> M:
    """Build a model from values that are already valid, such as a row this
    library wrote: every field given, no validation, no defaults. It is what
    ``model_construct`` does, minus the per-field default handling that made it
    the biggest Python cost of a recall (about 10 us per row)."""
    m = cls.__new__(cls)
    object.__setattr__(m, "__dict__", values)
    object.__setattr__(m, "__pydantic_fields_set__", set(values))
    object.__setattr__(m, "__pydantic_extra__", None)
    object.__setattr__(m, "__pydantic_private__", None)
    return m


def normalize_name(name: str) -> str:
    """Case- and space-insensitive key for entity names ("the" dropped)."""
    s = " ".join(name.lower().replace("’", "'").split())
    for art in ("the ", "a ", "an "):
        if s.startswith(art):
            s = s[len(art):]
    return s.strip(" .,!?;:'\"")


@dataclass(frozen=True)
class JobRecord:
    """What a maintenance job keeps in the store: a merge, a review decision, an archive
    run, a shadow promotion, a job's last run. ``body`` is plain JSON."""

    group_id: str
    kind: str
    id: str
    at: datetime
    body: dict[str, Any] = field(default_factory=dict)
