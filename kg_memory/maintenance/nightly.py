"""The maintenance jobs over one ``Memory``, each run under the group's lock and recorded
(``kg_memory/maintenance/runner.py``): what ``kgmem jobs ...`` and the schedules in ``jobs/`` call.

``nightly`` runs, in order, entity resolution, archiving, the hub report and, for a group whose
ontology or extractor changed since its facts were made, a shadow re-extraction (reported, never
promoted: that stays a person's decision) on each group,
and keeps going after a failure so that one bad group or job does not stop the others;
it reports every outcome and fails at the end if any job failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..core.ontology import ontology_record
from ..errors import KgMemError
from ..progress import Progress
from ..store.base import TimeFilter, WriteBatch
from .archive import Archive, ArchiveReport, default_archive_url
from .merges import Resolver, ResolveReport
from .runner import HUB_MIN_DEGREE, Hub, Jobs, RunRecord, hubs
from .shadow import SUFFIX, Shadow, ShadowReport, shadow_of

if TYPE_CHECKING:
    from ..core.ontology import Ontology
    from ..extract.base import Extractor
    from ..memory import Memory

STALE_SAMPLE = 10_000  # current facts read to see which extractor versions made them (a group's first 10k)
NIGHTLY = ("resolve-entities", "archive", "hubs", "reextract")


@dataclass
class NightlyReport:
    groups: list[str]
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def failed(self) -> list[dict[str, Any]]:
        return [r for r in self.runs if r["outcome"] != "ok"]

    def to_json(self) -> dict[str, Any]:
        return {"job": "run-nightly", "groups": self.groups, "runs": self.runs, "failed": len(self.failed)}


class Maintenance:
    def __init__(self, memory: Memory, owner: str | None = None):
        self.memory = memory
        self.store = memory.store
        self.settings = memory.settings
        self.jobs = Jobs(memory.store, memory.clock.now, owner)

    def _now(self) -> datetime:
        return self.memory.clock.now()

    # -- the jobs ----------------------------------------------------------------------
    def resolver(self) -> Resolver:
        return Resolver(self.store, self.memory.embedder, self.settings.resolve_merge_at,
                        self.settings.resolve_review_at)

    def resolve_entities(self, group: str, dry_run: bool = False, progress: Progress | None = None) -> ResolveReport:
        return self.jobs.run("resolve-entities", group,
                             lambda: self.resolver().run(group, self._now(), dry_run, progress),
                             lambda r: r.counts(), record=not dry_run)

    def review_decide(self, group: str, pair_id: str, accept: bool, by: str = "person") -> dict[str, Any]:
        with self.jobs.locked(group):
            return self.resolver().decide(group, pair_id, accept, self._now(), by)

    def unmerge(self, group: str, merge_id: str, by: str = "person", dry_run: bool = False) -> dict[str, Any]:
        with self.jobs.locked(group):
            return self.resolver().unmerge(group, merge_id, self._now(), by, dry_run)

    def archive_store(self) -> Archive:
        return Archive(self.store, self.settings.archive_url or default_archive_url())

    def retention(self, group: str) -> timedelta:
        days = self.settings.archive_after_days_by_group.get(group, self.settings.archive_after_days)
        return timedelta(days=days)

    def archive(self, group: str, older_than: timedelta | None = None, dry_run: bool = False,
                progress: Progress | None = None) -> ArchiveReport:
        window = older_than if older_than is not None else self.retention(group)
        return self.jobs.run("archive", group,
                             lambda: self.archive_store().archive(group, window, self._now(), dry_run, progress),
                             lambda r: r.counts(), record=not dry_run)

    def restore(self, group: str, episode_ids: list[str] | None = None, dry_run: bool = False,
                progress: Progress | None = None) -> ArchiveReport:
        return self.jobs.run("restore", group,
                             lambda: self.archive_store().restore(group, episode_ids, dry_run, progress),
                             lambda r: r.counts(), record=not dry_run)

    def _scoped_extractor(self, extractor: str | None, group: str) -> tuple[Extractor, Ontology]:
        """The extractor (made here: the local LLM starts its server) under the group's ontology."""
        from ..extract.factory import for_vocabulary, make_extractor

        name = extractor or self.settings.extractor
        chosen = make_extractor(name, self.settings, self.memory.embedder) if name != self.settings.extractor \
            else self.memory.extractor
        ont = self.memory.ontology(group)
        return for_vocabulary(chosen, ont.vocab, ont.is_default), ont

    def shadow(self, extractor: str | None = None, group: str | None = None) -> Shadow:
        """A shadow builder with this extractor, under the live group's ontology (the shadow group is
        given the same ontology record, so a promotion keeps it)."""
        from ..ingest.pipeline import Pipeline

        live = group or self.settings.group
        chosen, ont = self._scoped_extractor(extractor, live)

        def extract(shadow: str) -> object:
            if not ont.is_default:
                self.store.write(WriteBatch(records=[ontology_record(shadow, ont, self._now())]))
            pipe = Pipeline(self.store, chosen, self.memory.embedder, self._now,
                            related_k=self.settings.related_k, related_min_cosine=self.settings.related_min_cosine,
                            vocab=ont.vocab)
            return pipe.run(shadow, self.settings.batch_size)

        return Shadow(self.store, extract, f"{chosen.name}:{chosen.version}", self.archive_store(), ont.vocab,
                      self._now)

    def _swapper(self) -> Shadow:
        """A shadow for promote, rollback and a dry run, which extract nothing (so no extractor starts)."""
        def extract(group: str) -> object:
            raise AssertionError("promote, rollback and a dry run do not extract")

        return Shadow(self.store, extract, "", self.archive_store())

    def reextract(self, group: str, extractor: str | None = None, since: datetime | None = None,
                  until: datetime | None = None, rebuild: bool = False, dry_run: bool = False,
                  progress: Progress | None = None) -> ShadowReport:
        if dry_run:  # what would be replayed (no extractor starts)
            count = sum(len(page) for page in self._swapper().pages(group, since, until))
            return ShadowReport(group, shadow_of(group), "dry-run", extractor or self.settings.extractor,
                                episodes=count)
        return self.jobs.run("reextract", group,
                             lambda: self.shadow(extractor, group).build(group, self._now(), since, until, rebuild,
                                                                         progress),
                             lambda r: r.counts())

    def stale_versions(self, group: str, extractor: str | None = None) -> list[str]:
        """The extractor versions (ontology included) of facts believed now that the group's extractor
        would not write today: empty when its facts are as the current ontology and extractor make them."""
        scoped, _ = self._scoped_extractor(extractor, group)
        now = self._now()
        made = {f.prompt_version for f in self.store.list_facts(group, TimeFilter(as_of=now, known_at=now),
                                                                  limit=STALE_SAMPLE)
                if f.extractor == scoped.name and f.prompt_version}
        return sorted(made - {scoped.version})

    def promote(self, group: str) -> ShadowReport:
        return self.jobs.run("promote", group, lambda: self._swapper().promote(group, self._now()),
                             lambda r: r.counts())

    def rollback(self, group: str) -> ShadowReport:
        return self.jobs.run("rollback", group, lambda: self._swapper().rollback(group, self._now()),
                             lambda r: r.counts())

    def nightly_groups(self) -> list[str]:
        """Every group of the store except shadows (a shadow is maintained by its own decisions)."""
        return [g for g, _ in self.memory.groups() if not g.endswith(SUFFIX)]

    def hubs(self, group: str, min_degree: int = HUB_MIN_DEGREE, top: int = 5) -> list[Hub]:
        return hubs(self.store, group, min_degree, top)

    # -- the schedule ----------------------------------------------------------------------
    def nightly(self, groups: list[str], dry_run: bool = False, progress: Progress | None = None) -> NightlyReport:
        report = NightlyReport(groups)
        for group in groups:
            for job in NIGHTLY:
                started = self._now()
                try:
                    counts = self._nightly_job(job, group, dry_run, progress)
                    report.runs.append({"group_id": group, "job": job, "outcome": "ok", "counts": counts,
                                        "started_at": started.isoformat()})
                except KgMemError as exc:
                    report.runs.append({"group_id": group, "job": job, "outcome": "failed", "error": str(exc),
                                        "started_at": started.isoformat()})
        return report

    def _nightly_job(self, job: str, group: str, dry_run: bool, progress: Progress | None) -> dict[str, Any]:
        if job == "resolve-entities":
            return self.resolve_entities(group, dry_run, progress).counts()
        if job == "archive":
            return self.archive(group, dry_run=dry_run, progress=progress).counts()
        if job == "reextract":
            return self.jobs.run("reextract", group, lambda: self._reextract_if_stale(group, dry_run, progress),
                                 lambda counts: counts, record=not dry_run)
        found = self.jobs.run("hubs", group, lambda: self.hubs(group), lambda hs: {"hubs": len(hs)},
                              record=not dry_run)
        return {"hubs": len(found)}

    def _reextract_if_stale(self, group: str, dry_run: bool, progress: Progress | None) -> dict[str, Any]:
        """The nightly re-extraction: a shadow built and compared when the group's facts were made by
        another ontology or extractor version; the diff is reported, the shadow waits for a person."""
        stale = self.stale_versions(group)
        if not stale or dry_run:
            return {"stale": len(stale), **({"would_reextract": True} if stale else {})}
        report = self.shadow(None, group).build(group, self._now(), progress=progress)
        return {"stale": len(stale), **report.counts()}

    def status(self, group: str) -> list[RunRecord]:
        return self.jobs.status(group)
