"""Edits by fact id: correct, change and retire.

An agent (or a person) says what is wrong or what changed; the temporal core
decides what that means (``temporal.decide`` for a change or a retirement,
``temporal.decide_correction`` for a correction) and this module persists the
decision in one store write. Every edit is recorded as an episode (role
``system``, source ``api:<kind>``) that the new versions cite, so the audit
trail says who changed a belief, when and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..core.merged import find_live
from ..core.models import Entity, Episode, FactVersion, normalize_name
from ..core.temporal import Candidate, Decision, decide, decide_correction
from ..core.vocab import Vocabulary, load_vocabulary
from ..embed.base import Embedder
from ..errors import ConfigError, NotFoundError
from ..store.base import StoreCore, WriteBatch
from .links import related_links

MAX_VALUE_CHARS = 500


@dataclass
class EditResult:
    """What an edit did: the versions it wrote, the versions whose belief it closed,
    and the episode that records it."""

    kind: str  # correct | change | retire
    episode_id: str
    written: list[FactVersion] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "episode_id": self.episode_id, "closed": list(self.closed),
                "written": [{"id": v.id, "fact_id": v.fact_id, "statement": v.statement,
                             "valid_from": v.valid_from.isoformat() if v.valid_from else None,
                             "valid_to": v.valid_to.isoformat() if v.valid_to else None} for v in self.written]}


class Editor:
    def __init__(self, store: StoreCore, embedder: Embedder | None, vocab: Vocabulary | None = None,
                 related: tuple[int, float] = (5, 0.75)):
        self.store = store
        self.embedder = embedder
        self.vocab = vocab or load_vocabulary()
        self.related = related  # (k, min cosine) of the RELATED_TO links a new fact gets

    # -- the three edits ---------------------------------------------------------
    def correct(self, group: str, fact_id: str, value: str, reason: str | None, now: datetime) -> EditResult:
        current = self.current(group, fact_id)
        head = current[0]
        value = _value(value)
        obj, batch = self._object(group, head.predicate, value, now)
        statement = self.statement(head.subject, head.predicate, obj.name)
        why = f" Reason: {reason.strip()}" if reason and reason.strip() else ""
        episode = self._episode(group, "correct", f"Correction: {statement} (not {head.object}).{why}", now)
        decision = decide_correction(current, obj.id, obj.name, statement, episode.id, now)
        if decision.kind == "noop":
            raise ConfigError(f"fact {fact_id} already says {head.object!r}; nothing to correct")
        return self._persist(group, "correct", episode, decision, batch, [head.subject_id, obj.id])

    def change(self, group: str, fact_id: str, value: str, at: datetime, now: datetime) -> EditResult:
        current = self.current(group, fact_id)
        head = current[0]
        starts = [v.valid_from for v in current if v.valid_from is not None]
        if starts and at <= min(starts):
            raise ConfigError(f"the change at {at.isoformat()} is not after the fact started "
                              f"({min(starts).isoformat()}); if it was never true, correct it instead")
        value = _value(value)
        obj, batch = self._object(group, head.predicate, value, now)
        statement = self.statement(head.subject, head.predicate, obj.name)
        episode = self._episode(group, "change", f"Change from {at:%Y-%m-%d}: {statement} "
                                                 f"(before: {head.object}).", now)
        cand = self._candidate(head, obj.id, obj.name, statement, at, episode.id)
        decision = decide(cand, current, True, now)  # a change in the world supersedes, whatever the predicate
        if decision.kind == "noop":
            raise ConfigError(f"fact {fact_id}: the change at {at.isoformat()} changes nothing")
        return self._persist(group, "change", episode, decision, batch, [head.subject_id, obj.id])

    def retire(self, group: str, fact_id: str, at: datetime, now: datetime) -> EditResult:
        current = self.current(group, fact_id)
        head = current[0]
        episode = self._episode(group, "retire", f"Retired from {at:%Y-%m-%d}: {head.statement}.", now)
        cand = self._candidate(head, head.object_id, head.object, head.statement, at, episode.id, ending=True)
        decision = decide(cand, current, False, now)
        if decision.kind == "noop":
            raise ConfigError(f"fact {fact_id} does not hold at {at.isoformat()}; nothing to retire")
        return self._persist(group, "retire", episode, decision, WriteBatch(), [head.subject_id])

    # -- reading what an edit applies to -----------------------------------------------
    def current(self, group: str, fact_id: str) -> list[FactVersion]:
        """The believed versions of the fact that ``fact_id`` (a version or fact id) names."""
        found = self.find(group, fact_id)
        fact_ids = sorted({v.fact_id for v in found})
        current = [v for v in self.store.fact_versions(group, fact_ids) if v.expired_at is None]
        if not current:
            closed = found[-1]
            raise ConfigError(f"fact {fact_id} is no longer believed (closed {closed.expired_at:%Y-%m-%d %H:%M:%S} "
                              f"by {closed.expired_by}); edit the fact that replaced it")
        return current

    def find(self, group: str, fact_id: str) -> list[FactVersion]:
        """The versions a fact or version id names; a unique prefix of one (the short ids
        that `kgmem facts` prints) works too."""
        if not isinstance(fact_id, str) or not fact_id.strip():
            raise ConfigError("the fact id is empty; `kgmem facts --json` lists the ids")
        found = self.store.fact_versions(group, [fact_id])
        if not found and len(fact_id) >= 8:
            every = self.store.list_facts(group, None, limit=1_000_000)
            named = {v.id if v.id.startswith(fact_id) else v.fact_id for v in every
                     if v.id.startswith(fact_id) or v.fact_id.startswith(fact_id)}
            if len(named) > 1:
                raise ConfigError(f"the id {fact_id!r} is a prefix of {len(named)} ids; give more of it")
            found = self.store.fact_versions(group, list(named)) if named else []
        if not found:
            raise NotFoundError(f"no fact {fact_id!r} in group {group!r}; `kgmem facts --group {group}` lists them")
        return found

    def statement(self, subject: str, predicate: str, obj: str) -> str:
        spec = self.vocab.predicates.get(predicate)
        if spec is not None:
            return spec.render(subject, obj)
        return f"{subject} {predicate.replace('_', ' ')} {obj}"

    # -- writing ---------------------------------------------------------------
    def _object(self, group: str, predicate: str, value: str, now: datetime) -> tuple[Entity, WriteBatch]:
        """The entity the new value names: a stored one, or a new one written with the edit."""
        batch = WriteBatch()
        known = find_live(self.store, group, [normalize_name(value)])
        if known:
            return next(iter(known.values())), batch
        spec = self.vocab.predicates.get(predicate)
        kind = "value" if spec is not None and spec.object_kind == "value" else "entity"
        ent = Entity(group_id=group, name=value, kind=kind, created_at=now)  # type: ignore[arg-type]
        batch.entities.append(ent)
        if self.embedder is not None:
            batch.entity_vectors[ent.id] = self.embedder.embed([ent.name])[0]
        return ent, batch

    @staticmethod
    def _episode(group: str, kind: str, content: str, now: datetime) -> Episode:
        return Episode(group_id=group, role="system", speaker="kgmem", content=content, occurred_at=now,
                       created_at=now, source=f"api:{kind}", status="done")

    @staticmethod
    def _candidate(head: FactVersion, object_id: str, obj: str, statement: str, at: datetime, episode_id: str,
                   ending: bool = False) -> Candidate:
        return Candidate(group_id=head.group_id, subject_id=head.subject_id, subject=head.subject,
                         predicate=head.predicate, object_id=object_id, object=obj, statement=statement,
                         valid_from=at, valid_to=None, episode_id=episode_id, ending=ending, dated=True,
                         extractor="api")

    def _persist(self, group: str, kind: str, episode: Episode, decision: Decision, batch: WriteBatch,
                 mentioned: list[str]) -> EditResult:
        """The episode first (it is the evidence the versions cite), then the decision in
        one transaction. If that write fails, the episode is marked failed with the reason."""
        self.store.add_episodes([episode])
        batch.inserts = list(decision.inserts)
        batch.expiries = [(group, x) for x in decision.expiries]
        batch.mentions = [(group, episode.id, m) for m in dict.fromkeys(mentioned)]
        if self.embedder is not None:
            vecs = self.embedder.embed([episode.index_text(), *(v.statement for v in batch.inserts)])
            batch.episode_vectors[(group, episode.id)] = vecs[0]
            batch.fact_vectors = {v.id: vecs[i + 1] for i, v in enumerate(batch.inserts)}
            batch.links = related_links(self.store, group, batch.inserts, batch.fact_vectors, episode.created_at,
                                        *self.related)
        try:
            self.store.write(batch)
        except Exception as exc:
            self.store.write(WriteBatch(statuses=[(group, episode.id, "failed", f"{kind} not applied: {exc}"[:500])]))
            raise
        return EditResult(kind, episode.id, list(decision.inserts), [x.version_id for x in decision.expiries])


def _value(value: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError("the new value is empty; give the value the fact should hold")
    value = " ".join(value.split())
    if len(value) > MAX_VALUE_CHARS:
        raise ConfigError(f"the new value is {len(value)} characters; at most {MAX_VALUE_CHARS}")
    return value
