"""`kgmem jobs resolve-entities`, `review` and `unmerge`: entity resolution carried out.

``kg_memory/maintenance/resolve.py`` says which entities name the same thing; this module reads what
it needs from the store, and persists each merge in one store write:

* the facts believed now at the absorbed entity close, and successors name the survivor
  (``temporal.decide_merge``, which also reconciles single-valued predicates that now
  collide); mentions move to the survivor; the survivor gains the absorbed names as
  aliases; the absorbed entity keeps its row, pointing at the survivor;
* a ``merge`` job record says when, the score, the evidence, who (the job or a person),
  and everything needed to undo it exactly (``unmerge``).

Pairs in the middle band go to a review queue (``review`` records); a person accepts or
rejects them, and a decided pair is never proposed again.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..core.models import Entity, FactVersion
from ..core.temporal import decide_merge, decide_unmerge
from ..core.vocab import Vocabulary, load_vocabulary
from ..embed.base import Embedder
from ..errors import ConfigError, NotFoundError
from ..progress import NoProgress, Progress
from ..store.base import JobRecord, Store, WriteBatch
from .resolve import Context, Match, choose_survivor, context_of, find_matches


@dataclass
class ResolveReport:
    group_id: str
    dry_run: bool
    entities: int = 0
    candidates: int = 0
    merged: list[dict[str, Any]] = field(default_factory=list)
    queued: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def counts(self) -> dict[str, int]:
        return {"entities": self.entities, "candidates": self.candidates, "merged": len(self.merged),
                "queued": len(self.queued)}

    def to_json(self) -> dict[str, Any]:
        return {"job": "resolve-entities", "group_id": self.group_id, "dry_run": self.dry_run, **self.counts(),
                "merges": self.merged, "review": self.queued, "seconds": round(self.seconds, 3)}


class Resolver:
    def __init__(self, store: Store, embedder: Embedder | None, merge_at: float, review_at: float,
                 vocab: Vocabulary | None = None):
        if not 0.0 <= review_at <= merge_at <= 1.0:
            raise ConfigError(f"resolve thresholds must satisfy 0 <= review ({review_at}) <= merge ({merge_at}) <= 1")
        self.store = store
        self.embedder = embedder
        self.merge_at = merge_at
        self.review_at = review_at
        self.vocab = vocab or load_vocabulary()

    # -- the job ---------------------------------------------------------------
    def run(self, group: str, now: datetime, dry_run: bool = False, progress: Progress | None = None
            ) -> ResolveReport:
        """Find candidate pairs, merge those at or above ``merge_at`` and queue those at or
        above ``review_at`` for a person. A second run finds nothing new."""
        progress = progress or NoProgress()
        started = time.perf_counter()
        report = ResolveReport(group, dry_run)
        entities = self.store.entities(group)
        report.entities = len(entities)
        progress.phase("read", len(entities))
        ctx = self._context(group)
        vectors = self._vectors(group, entities)
        progress.advance(len(entities))
        decided = {r.id for r in self.store.job_records(group, "review")}
        matches = find_matches(entities, vectors, ctx, self.review_at, skip=decided)
        report.candidates = len(matches)
        by_id = {e.id: e for e in entities}
        progress.phase("merge", len(matches))
        absorbed: set[str] = set()
        queue: list[JobRecord] = []
        for m in matches:
            progress.advance()
            if m.a in absorbed or m.b in absorbed:
                continue  # one end was merged into a third entity by this run; the next run judges again
            if m.score >= self.merge_at:
                survivor, gone = choose_survivor(by_id[m.a], by_id[m.b], ctx)
                absorbed.add(gone.id)
                report.merged.append(self._describe(m, survivor, gone) if dry_run else
                                     self.merge(group, survivor.id, gone.id, now, by="job:resolve-entities",
                                                score=m.score, evidence=m.evidence.to_json()))
            else:
                item = self._review_item(m, by_id)
                report.queued.append(item)
                queue.append(JobRecord(group, "review", m.key, now, item))
        if queue and not dry_run:
            self.store.write(WriteBatch(records=queue))
        report.seconds = time.perf_counter() - started
        return report

    def _context(self, group: str) -> Context:
        believed = [v for v in self.store.list_facts(group, None, limit=10_000_000) if v.expired_at is None]
        return context_of(believed, self.vocab.is_single)

    def _vectors(self, group: str, entities: list[Entity]) -> dict[str, Any]:
        live = [e for e in entities if e.merged_into is None and e.kind == "entity"]
        vectors = self.store.entity_vectors(group, [e.id for e in live])
        missing = [e for e in live if e.id not in vectors]
        if missing and self.embedder is not None:
            vectors.update(zip((e.id for e in missing), self.embedder.embed([e.name for e in missing]), strict=True))
        return vectors

    @staticmethod
    def _describe(m: Match, survivor: Entity, gone: Entity) -> dict[str, Any]:
        return {"survivor": survivor.name, "survivor_id": survivor.id, "absorbed": gone.name, "absorbed_id": gone.id,
                "score": round(m.score, 4), "evidence": m.evidence.to_json()}

    @staticmethod
    def _review_item(m: Match, by_id: dict[str, Entity]) -> dict[str, Any]:
        return {"a": m.a, "b": m.b, "a_name": by_id[m.a].name, "b_name": by_id[m.b].name,
                "score": round(m.score, 4), "evidence": m.evidence.to_json(), "status": "open"}

    # -- one merge ---------------------------------------------------------------
    def merge(self, group: str, survivor_id: str, absorbed_id: str, now: datetime, by: str,
              score: float | None = None, evidence: dict[str, Any] | None = None,
              also: list[JobRecord] | None = None, merge_id: str | None = None) -> dict[str, Any]:
        """Merge ``absorbed_id`` into ``survivor_id`` in one store write (with the records in
        ``also``); return the merge record's body."""
        with self.store.read_scope():  # one read transaction for the merge's reads
            survivor, gone = self._pair(group, survivor_id, absorbed_id)
            moving = self._believed(group, gone.id)
            predicates = {v.predicate for v in moving}
            staying = [v for v in self._believed(group, survivor.id) if v.predicate in predicates]
            episodes = self.store.episodes_about(group, [gone.id], None)
            had = self.store.mentions(group, episodes)
        merge_id = merge_id or f"merge_{uuid.uuid4().hex}"
        decision = decide_merge(moving, staying, gone.id, survivor.id, survivor.name, self.vocab.is_single,
                                now, merge_id)
        both = [ep for ep in episodes if survivor.id in had.get(ep, [])]
        aliases = tuple(dict.fromkeys((*survivor.aliases, gone.name, *gone.aliases)))
        body = {"status": "merged", "survivor_id": survivor.id, "survivor": survivor.name,
                "absorbed_id": gone.id, "absorbed": gone.name, "by": by, "score": score, "evidence": evidence or {},
                "survivor_aliases_before": list(survivor.aliases), "episodes": episodes, "episodes_both": both,
                "closed": [x.version_id for x in decision.expiries], "written": [v.id for v in decision.inserts]}
        batch = WriteBatch(
            inserts=decision.inserts, expiries=[(group, x) for x in decision.expiries],
            entity_updates=[survivor.model_copy(update={"aliases": aliases}),
                            gone.model_copy(update={"merged_into": survivor.id})],
            unmentions=[(group, ep, gone.id) for ep in episodes],
            mentions=[(group, ep, survivor.id) for ep in episodes if ep not in both],
            records=[JobRecord(group, "merge", merge_id, now, body), *(also or [])])
        self._carry_vectors(group, decision.inserts, batch)
        self.store.write(batch)
        return {"id": merge_id, **body}

    def _pair(self, group: str, survivor_id: str, absorbed_id: str) -> tuple[Entity, Entity]:
        found = {e.id: e for e in self.store.entities(group, [survivor_id, absorbed_id])}
        for i in (survivor_id, absorbed_id):
            if i not in found:
                raise NotFoundError(f"no entity {i!r} in group {group!r}; `kgmem jobs review` lists the pairs")
        if survivor_id == absorbed_id or found[absorbed_id].merged_into or found[survivor_id].merged_into:
            raise ConfigError(f"entities {survivor_id} and {absorbed_id} cannot be merged: one was already merged "
                              "(see `kgmem jobs merges`)")
        return found[survivor_id], found[absorbed_id]

    def _believed(self, group: str, entity_id: str) -> list[FactVersion]:
        return [v for v in self.store.list_facts(group, None, entity_id=entity_id, limit=10_000_000)
                if v.expired_at is None]

    def _carry_vectors(self, group: str, inserts: list[FactVersion], batch: WriteBatch) -> None:
        """A successor's statement is its predecessor's, so it reuses the embedding when one
        can be computed (the store has no read for fact vectors; the embedder is cheap on a few)."""
        if self.embedder is not None and inserts:
            vecs = self.embedder.embed([v.statement for v in inserts])
            batch.fact_vectors.update({v.id: vec for v, vec in zip(inserts, vecs, strict=True)})

    # -- undo ------------------------------------------------------------------
    def unmerge(self, group: str, merge_id: str, now: datetime, by: str = "person", dry_run: bool = False
                ) -> dict[str, Any]:
        """Restore what the merge changed: the facts it closed are believed again (as new
        versions of the same facts), the versions it wrote close, mentions move back, and the
        entities' aliases and pointers are as they were."""
        record = self.merge_record(group, merge_id)
        body = dict(record.body)
        if body.get("status") != "merged":
            raise ConfigError(f"merge {merge_id} was already undone at {body.get('unmerged_at')}; nothing to do")
        unmerge_id = f"unmerge_{uuid.uuid4().hex}"
        versions = {v.id: v for v in self.store.fact_versions(group, [*body["closed"], *body["written"]])}
        written = [versions[i] for i in body["written"] if i in versions]
        closed = [versions[i] for i in body["closed"] if i in versions]
        decision = decide_unmerge(written, closed, now, unmerge_id)
        ents = {e.id: e for e in self.store.entities(group, [body["survivor_id"], body["absorbed_id"]])}
        survivor, gone = ents[body["survivor_id"]], ents[body["absorbed_id"]]
        body.update(status="unmerged", unmerged_at=now.isoformat(), unmerged_by=by, unmerge_id=unmerge_id,
                    restored=[v.id for v in decision.inserts])
        batch = WriteBatch(
            inserts=decision.inserts, expiries=[(group, x) for x in decision.expiries],
            entity_updates=[survivor.model_copy(update={"aliases": tuple(body["survivor_aliases_before"])}),
                            gone.model_copy(update={"merged_into": None})],
            unmentions=[(group, ep, survivor.id) for ep in body["episodes"] if ep not in body["episodes_both"]],
            mentions=[(group, ep, gone.id) for ep in body["episodes"]],
            records=[JobRecord(group, "merge", merge_id, record.at, body)])
        if dry_run:
            closing = [x.version_id for x in decision.expiries]
            return {"id": merge_id, **body, "status": "merged", "would_close": closing}
        self._carry_vectors(group, decision.inserts, batch)
        self.store.write(batch)
        return {"id": merge_id, **body}

    def merge_record(self, group: str, merge_id: str) -> JobRecord:
        for r in self.store.job_records(group, "merge"):
            if r.id == merge_id:
                return r
        raise NotFoundError(f"no merge {merge_id!r} in group {group!r}; `kgmem jobs merges` lists them")

    # -- the review queue -----------------------------------------------------------
    def queue(self, group: str, include_decided: bool = False) -> list[JobRecord]:
        return [r for r in self.store.job_records(group, "review")
                if include_decided or r.body.get("status") == "open"]

    def decide(self, group: str, pair_id: str, accept: bool, now: datetime, by: str = "person") -> dict[str, Any]:
        """Accept (merge now) or reject (never propose again) a queued pair; ``pair_id`` is
        the pair's key or a unique prefix of it."""
        matches = [r for r in self.queue(group, include_decided=True) if r.id.startswith(pair_id)]
        if len(matches) != 1:
            what = "no queued pair" if not matches else f"{len(matches)} queued pairs"
            raise NotFoundError(f"{what} match {pair_id!r} in group {group!r}; `kgmem jobs review` lists them")
        record = matches[0]
        if record.body.get("status") != "open":
            raise ConfigError(f"pair {record.id} was already {record.body.get('status')}; nothing to do")
        body = dict(record.body, status="accepted" if accept else "rejected", decided_at=now.isoformat(),
                    decided_by=by)
        if not accept:
            self.store.write(WriteBatch(records=[JobRecord(group, "review", record.id, record.at, body)]))
            return {"id": record.id, **body}
        ents = {e.id: e for e in self.store.entities(group, [body["a"], body["b"]])}
        pair_facts = [*self._believed(group, body["a"]), *self._believed(group, body["b"])]
        survivor, gone = choose_survivor(ents[body["a"]], ents[body["b"]],
                                         context_of(pair_facts, self.vocab.is_single))
        merge_id = f"merge_{uuid.uuid4().hex}"
        body["merge_id"] = merge_id
        self.merge(group, survivor.id, gone.id, now, by=by, score=body.get("score"), evidence=body.get("evidence"),
                   also=[JobRecord(group, "review", record.id, record.at, body)], merge_id=merge_id)
        return {"id": record.id, **body}
