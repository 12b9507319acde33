"""Erasure (the right to be forgotten): what to remove, as a pure plan the stores persist.

Retiring a fact closes it and keeps it in history; erasure removes content for good:

* the episodes named (their bodies, full-text rows, vectors and mentions);
* every fact version with an erased entity at either end, and every version whose
  provenance lies wholly in the erased episodes (with their index entries and
  RELATED_TO links, once no version of the fact is left);
* the erased episodes' ids from the provenance of the versions that stay (their
  evidence count drops by as many);
* the entities erased, and the entities that nothing names any more;
* the local LLM response cache entries made from the erased turns.

A tombstone stays: what kind of thing was erased, when, why and how much, and no
content. Beliefs that an erased turn closed stay closed (their ``expired_by`` names
an id that no longer resolves); erasure does not rewrite history, it removes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from .models import FactVersion, new_id

Kind = Literal["episode", "entity", "group"]


@dataclass(frozen=True)
class Tombstone:
    id: str
    group_id: str
    kind: Kind
    erased_at: datetime
    reason: str | None
    episodes: int
    facts: int
    entities: int

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "group_id": self.group_id, "kind": self.kind,
                "erased_at": self.erased_at.isoformat().replace("+00:00", "Z"), "reason": self.reason,
                "episodes": self.episodes, "facts": self.facts, "entities": self.entities}


@dataclass
class ErasePlan:
    """What ``Store.erase`` removes and rewrites, in one transaction."""

    group_id: str
    whole_group: bool = False
    episode_ids: list[str] = field(default_factory=list)
    version_ids: list[str] = field(default_factory=list)  # versions removed
    provenance: dict[str, tuple[tuple[str, ...], int]] = field(default_factory=dict)  # kept: ids, evidence
    entity_ids: list[str] = field(default_factory=list)  # removed whatever refers to them
    maybe_orphans: list[str] = field(default_factory=list)  # removed when no fact or mention names them
    fact_ids: list[str] = field(default_factory=list)  # facts whose RELATED_TO links go when no version is left


def plan_erasure(group_id: str, episode_ids: list[str], entity_ids: list[str],
                 versions: list[FactVersion], mentioned: dict[str, list[str]]) -> ErasePlan:
    """The plan for erasing ``episode_ids`` and ``entity_ids``. ``versions`` are the
    versions that cite an erased episode or touch an erased entity; ``mentioned`` the
    entities each erased episode mentions."""
    gone_eps, gone_ents = set(episode_ids), set(entity_ids)
    plan = ErasePlan(group_id, episode_ids=sorted(gone_eps), entity_ids=sorted(gone_ents))
    orphans: set[str] = {e for ents in mentioned.values() for e in ents} - gone_ents
    for v in versions:
        kept = tuple(i for i in v.episode_ids if i not in gone_eps)
        touches = v.subject_id in gone_ents or v.object_id in gone_ents
        if touches or (not kept and v.episode_ids):
            plan.version_ids.append(v.id)
            plan.fact_ids.append(v.fact_id)
            orphans |= {v.subject_id, v.object_id} - gone_ents
        elif len(kept) < len(v.episode_ids):
            dropped = len(v.episode_ids) - len(kept)
            plan.provenance[v.id] = (kept, max(1, v.reinforcement_count - dropped))
    plan.version_ids.sort()
    plan.fact_ids = sorted(set(plan.fact_ids))
    plan.maybe_orphans = sorted(orphans)
    return plan


def new_tombstone(group_id: str, kind: Kind, now: datetime, reason: str | None, plan: ErasePlan,
                  entities_removed: int) -> Tombstone:
    return Tombstone(id=new_id("tomb"), group_id=group_id, kind=kind, erased_at=now,
                     reason=(reason or "").strip()[:500] or None, episodes=len(plan.episode_ids),
                     facts=len(plan.version_ids), entities=entities_removed)
