"""The public API: :class:`Memory` (sync) and :class:`AsyncMemory`."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from .core.erasure import ErasePlan, Kind, Tombstone, new_tombstone, plan_erasure
from .core.merged import find_live
from .core.models import Episode, FactVersion, RecallResult, ScoredEpisode, normalize_name
from .core.ontology import RECORD_KIND as ONTOLOGY_RECORDS
from .core.ontology import (
    Ontology,
    OntologyInUse,
    changes_in_use,
    load_ontology_file,
    ontology_from_mapping,
    ontology_of_records,
    ontology_record,
    parse_ontology,
)
from .core.temporal import lineage
from .core.timeutil import Clock, SystemClock, ensure_utc, parse_datetime
from .core.vocab import Vocabulary, check_predicate
from .embed.base import Embedder, make_embedder
from .embed.threads import limit_blas
from .errors import ConfigError, InputError, NotFoundError
from .extract.base import Extractor
from .extract.factory import for_vocabulary, make_extractor
from .ingest.edits import Editor, EditResult
from .ingest.formats import Parsed, iter_chunks
from .ingest.pipeline import IngestStats, Pipeline
from .ingest.worker import ExtractionWorker
from .maintenance.archive import Archive, default_archive_url
from .progress import NoProgress, Progress
from .recall.ranking import Recaller
from .settings import Settings, default_store_url, load_settings
from .store.base import DEFAULT_DIM, Store, TimeFilter, WriteBatch
from .store.url import open_store


@dataclass(frozen=True)
class OntologyChange:
    """What ``Memory.set_ontology`` did: the versions before and after, and what it changes."""

    group_id: str
    before: str
    after: str
    changes: list[str]
    written: bool

    def to_json(self) -> dict[str, Any]:
        return {"group_id": self.group_id, "before": self.before, "after": self.after, "changes": self.changes,
                "written": self.written}


class Memory:
    """A bitemporal memory over one store.

    >>> mem = Memory.open(f"sqlite:///{tmp}/memory.db")
    >>> stats = mem.add("I live in Lisbon.", group="alice")
    >>> print(mem.recall("Where do I live?", group="alice").context_block().splitlines()[1][:22])
    - User lives_in Lisbon
    >>> mem.close()
    """

    def __init__(self, store: Store, *, settings: Settings | None = None, embedder: Embedder | None = None,
                 extractor: Extractor | None = None, clock: Clock | None = None, use_embedder: bool = True,
                 owns_store: bool = True):
        """``owns_store=False``: :meth:`close` leaves the store open (its owner closes it)."""
        self.owns_store = owns_store
        self.settings = settings or Settings()
        limit_blas(self.settings.blas_threads)
        self.store = store
        self.embedder = embedder if (embedder is not None or not use_embedder) else make_embedder(self.settings)
        self.extractor = extractor or make_extractor(self.settings.extractor, self.settings, self.embedder)
        self.clock = clock or SystemClock()
        self._recaller: Recaller | None = None
        self._worker: ExtractionWorker | None = None
        self._extracting = threading.RLock()  # one pipeline at a time per Memory (caller or worker)
        self._scoped: dict[str, Extractor] = {}  # the extractor of each group ontology, by its version

    @classmethod
    def open(cls, store_url: str | None = None, *, settings: Settings | None = None,
             extractor: Extractor | str | None = None, clock: Clock | None = None,
             embedder: Embedder | None = None) -> Memory:
        settings = settings or load_settings()
        url = store_url or settings.store or default_store_url()
        # Configuration errors surface before anything is opened or written.
        emb = embedder if embedder is not None else make_embedder(settings)
        if extractor is None or isinstance(extractor, str):
            extractor = make_extractor(extractor or settings.extractor, settings, emb)
        store = open_store(url, dim=emb.dim if emb is not None else DEFAULT_DIM, cache_groups=settings.cache_groups,
                           password=settings.store_password())
        return cls(store, settings=settings, embedder=emb, extractor=extractor, clock=clock,
                   use_embedder=emb is not None)

    def close(self) -> None:
        """Extract what ``add(wait=False)`` left waiting, then close the store."""
        if self._worker is not None:
            self._worker.close()
        if self._recaller is not None:
            self._recaller.close()
        if self.owns_store:
            self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -----------------------------------------------------------
    def _pipeline(self) -> Pipeline:
        return Pipeline(self.store, self.extractor, self.embedder, self.clock.now,
                        related_k=self.settings.related_k, related_min_cosine=self.settings.related_min_cosine,
                        scope=self._scope)

    # -- ontologies --------------------------------------------------------
    def ontology(self, group: str | None = None) -> Ontology:
        """The group's current ontology (the built-in default when it has none of its own)."""
        return ontology_of_records(self.store.job_records(group or self.settings.group, ONTOLOGY_RECORDS))

    def set_ontology(self, source: str | Path | Mapping[str, Any], *, group: str | None = None,
                     force: bool = False) -> OntologyChange:
        """Give the group an ontology: a TOML file's path, its text, or the same as a mapping. It is
        checked first (an ``InputError`` with every problem, nothing written). Removing or retyping a
        predicate that facts believed now use is refused unless ``force``; the result says what it did.
        The store keeps every version; extraction uses the newest from the next episode on."""
        gid = group or self.settings.group
        if isinstance(source, Mapping):
            new = ontology_from_mapping(source)
        elif isinstance(source, Path) or "\n" not in str(source) and Path(str(source)).suffix == ".toml":
            new = load_ontology_file(source)
        else:
            new = parse_ontology(str(source))
        old = self.ontology(gid)
        in_use: dict[str, int] = {}
        for _, _, predicate, n in self.store.entity_degrees(gid):
            in_use[predicate] = in_use.get(predicate, 0) + n
        changes = changes_in_use(old, new, in_use)
        if changes and not force:
            raise OntologyInUse(changes)
        if new.version != old.version:
            self.store.write(WriteBatch(records=[ontology_record(gid, new, self.clock.now())]))
        return OntologyChange(gid, old.version, new.version, changes, new.version != old.version)

    def _scope(self, group_id: str) -> tuple[Extractor, Vocabulary]:
        """The extractor and vocabulary the group's ontology asks for (one extractor per ontology version)."""
        ont = self.ontology(group_id)
        if ont.is_default:
            return self.extractor, ont.vocab
        if ont.version not in self._scoped:
            self._scoped[ont.version] = for_vocabulary(self.extractor, ont.vocab, default=False)
        return self._scoped[ont.version], ont.vocab

    def ingest_files(self, paths: Sequence[str | Path], fmt: str = "auto", group: str | None = None,
                     on_error: str = "fail", progress: Progress | None = None) -> IngestStats:
        """Parse every file, store the episodes (committed), then extract them.

        With ``on_error='fail'`` any bad record stops the run before anything is
        written. With ``'skip'`` bad records are reported in ``errors``."""
        if on_error not in ("fail", "skip"):
            raise ConfigError("on_error must be fail or skip", params=("on_error",))
        now = self.clock.now()
        limit = self.settings.max_content_bytes
        report = progress or NoProgress()
        kept: dict[str, list[Parsed]] = {}  # standard input cannot be read twice
        if on_error == "fail":  # a first pass finds every problem before anything is written
            report.phase("check", len(paths))
            problems: list[str] = []
            for p in paths:
                chunks = iter_chunks(p, fmt, group, now, limit)
                if str(p) == "-":
                    kept["-"] = list(chunks)
                    chunks = iter(kept["-"])
                problems.extend(x for chunk in chunks for x in chunk.problems)
                report.advance(1)
            if problems:
                raise InputError(problems)
        report.phase("parse and store", len(paths))
        stats = IngestStats()
        groups: dict[str, None] = {}
        for p in paths:
            for chunk in kept.get(str(p)) or iter_chunks(p, fmt, group, now, limit):
                added, skipped = self.store.add_episodes(chunk.episodes)
                stats.episodes_added += len(added)
                stats.episodes_skipped += skipped
                stats.errors.extend(chunk.problems)
                groups.update(dict.fromkeys(e.group_id for e in chunk.episodes))
            report.advance(1)
        for g in groups:
            stats.merge(self._drain(g, progress))
        return stats

    def add_episodes(self, episodes: Iterable[Episode], progress: Progress | None = None,
                     extract: bool = True) -> IngestStats:
        episodes = list(episodes)
        report = progress or NoProgress()
        report.phase("store episodes", len(episodes))
        added, skipped = self.store.add_episodes(episodes)
        report.advance(len(episodes))
        stats = IngestStats(episodes_added=len(added), episodes_skipped=skipped)
        if extract:
            for group in dict.fromkeys(e.group_id for e in episodes):
                stats.merge(self._drain(group, progress))
        return stats

    def _add_now(self, ep: Episode) -> IngestStats:
        """Store and extract one episode: in one transaction when its group has no pending episode
        (``Pipeline.add_new``), else after those, in their order (``add_episodes``)."""
        with self._extracting:
            if self.store.pending_episodes(ep.group_id, 1):
                return self.add_episodes([ep])
            return self._pipeline().add_new(ep)

    def _drain(self, group: str, progress: Progress | None = None) -> IngestStats:
        """Extract every pending episode of one group (never another group's)."""
        with self._extracting:
            return self._pipeline().run(group, self.settings.batch_size, progress=progress)

    def add(self, content: str, *, group: str | None = None, role: str = "user", speaker: str | None = None,
            occurred_at: datetime | str | None = None, session_id: str | None = None,
            metadata: dict[str, Any] | None = None, wait: bool = True) -> IngestStats:
        """Store one episode and extract it. With ``wait=False`` it returns as soon as
        the episode is committed; a background worker extracts it, and ``flush()``
        waits for that (read-after-write)."""
        ep = self.episode(content, group=group, role=role, speaker=speaker, occurred_at=occurred_at,
                          session_id=session_id, metadata=metadata)
        return self.add_episode(ep, wait=wait)

    def episode(self, content: str, *, group: str | None = None, role: str = "user", speaker: str | None = None,
                occurred_at: datetime | str | None = None, session_id: str | None = None,
                metadata: dict[str, Any] | None = None, source: str = "api") -> Episode:
        """A new episode, checked (a ``ConfigError`` for empty content, a bad time or role)."""
        now = self.clock.now()
        if not isinstance(content, str) or not content.strip():
            raise ConfigError("the content is empty; give the text to remember")
        if role not in ("user", "assistant", "system", "tool"):
            raise ConfigError(f"role {role!r}: use user, assistant, system or tool")
        try:
            size = len(content.encode("utf-8"))
        except UnicodeEncodeError:
            raise ConfigError("the content is not valid Unicode (a lone surrogate); fix its encoding") from None
        try:
            json.dumps(metadata or {})
        except (TypeError, ValueError, RecursionError) as exc:
            raise ConfigError(f"metadata must be a JSON object ({type(exc).__name__}); pass plain values") from None
        if size > self.settings.max_content_bytes:
            raise ConfigError(f"the content is {size:,} bytes, over the limit of {self.settings.max_content_bytes:,} "
                              "(max_content_bytes); split it into several episodes")
        try:
            at = ensure_utc(parse_datetime(occurred_at)) if occurred_at is not None else now
        except (ValueError, TypeError, OverflowError) as exc:
            raise ConfigError(f"occurred_at: {exc}") from None
        return Episode(group_id=group or self.settings.group, role=role, speaker=speaker, content=content,  # type: ignore[arg-type]
                       occurred_at=at, created_at=now, session_id=session_id, metadata=metadata or {}, source=source)

    def add_episode(self, ep: Episode, *, wait: bool = True) -> IngestStats:
        """Store an episode built by :meth:`episode`; extract it now, or in the background."""
        if wait:
            return self._add_now(ep)
        stats = self.add_episodes([ep], extract=False)
        if stats.episodes_added:
            self.worker().submit(ep.group_id, stats.episodes_added)
        return stats

    def worker(self) -> ExtractionWorker:
        """The background extractor of ``add(wait=False)`` (started on first use)."""
        if self._worker is None:
            self._worker = ExtractionWorker(self._drain, self.settings.worker_max_waiting)
        return self._worker

    def flush(self, timeout: float | None = None) -> IngestStats:
        """Wait until every episode added with ``wait=False`` is extracted, so that a
        recall after it sees them. Raises the extraction errors seen since the last
        flush (the failed episodes stay stored), or ``FlushTimeout``."""
        if self._worker is None:
            return IngestStats()
        return self._worker.flush(timeout)

    def process_pending(self, group: str | None = None, retry_failed: bool = False,
                        progress: Progress | None = None) -> IngestStats:
        with self._extracting:
            return self._pipeline().run(group, self.settings.batch_size, retry_failed=retry_failed,
                                        progress=progress)

    # -- reading -----------------------------------------------------------
    def recall(self, query: str, *, group: str | None = None, as_of: datetime | str | None = None,
               known_at: datetime | str | None = None, k: int | None = None,
               half_life: float | None = None) -> RecallResult:
        """``half_life``: days for superseded evidence to lose half its weight (the
        configured ``weights.half_life_days`` when None; 0 turns decay off)."""
        now = self.clock.now()
        a = time_option("as_of", as_of) if as_of is not None else now
        kn = time_option("known_at", known_at) if known_at is not None else now
        gid = group or self.settings.group
        query = _query(query)
        if self._recaller is None:  # built once: it indexes the vocabulary's keywords
            self._recaller = Recaller(self.store, self.embedder, self.settings.weights,
                                      parallel_reads=self.store.concurrent_reads)
        if half_life is not None and half_life < 0:
            raise ConfigError(f"half_life: must be 0 or more days, got {half_life}", params=("half_life",))
        return self._recaller.recall(query, gid, a, kn, _k(k) if k is not None else self.settings.recall_k,
                                     half_life=half_life)

    def search_text(self, query: str, *, group: str | None = None, k: int = 10, as_of: datetime | str | None = None,
                    known_at: datetime | str | None = None) -> list[ScoredEpisode]:
        """Full-text (BM25) search over the episodes visible at (as_of, known_at)."""
        gid, tf = group or self.settings.group, self._time_filter(as_of, known_at)
        hits = self.store.episode_text_search(gid, _query(query), _k(k), tf)
        return self._scored_episodes(gid, hits)

    def search_semantic(self, query: str, *, group: str | None = None, k: int = 10,
                        as_of: datetime | str | None = None, known_at: datetime | str | None = None
                        ) -> list[ScoredEpisode]:
        """Embedding search over the episodes visible at (as_of, known_at)."""
        if self.embedder is None:
            raise ConfigError("semantic search needs an embedder; this memory was opened without one")
        gid, tf = group or self.settings.group, self._time_filter(as_of, known_at)
        vec = self.embedder.embed([_query(query)])[0]
        return self._scored_episodes(gid, self.store.episode_vector_search(gid, vec, _k(k), tf))

    def _time_filter(self, as_of: datetime | str | None, known_at: datetime | str | None) -> TimeFilter:
        now = self.clock.now()
        return TimeFilter(as_of=time_option("as_of", as_of) if as_of is not None else now,
                          known_at=time_option("known_at", known_at) if known_at is not None else now)

    def _scored_episodes(self, group: str, hits: list[tuple[str, float]]) -> list[ScoredEpisode]:
        found = {e.id: e for e in self.store.get_episodes(group, [i for i, _ in hits])}
        return [ScoredEpisode(episode=found[i], score=s) for i, s in hits if i in found]

    def history(self, entity: str, *, group: str | None = None, predicate: str | None = None
                ) -> list[FactVersion]:
        gid = group or self.settings.group
        return self.store.history(gid, self._entity_id(gid, entity), predicate)

    def facts(self, *, group: str | None = None, entity: str | None = None, predicate: str | None = None,
              as_of: datetime | str | None = None, known_at: datetime | str | None = None,
              all_versions: bool = False, limit: int = 10_000) -> list[FactVersion]:
        """Fact versions of the group, oldest belief first: those true at ``as_of`` and
        believed at ``known_at`` (both default to now), or every version with
        ``all_versions``. ``entity`` keeps the versions with that entity at either end."""
        gid = group or self.settings.group
        if predicate is not None:
            check_predicate(predicate)
        entity_id = self._entity_id(gid, entity) if entity is not None else None
        if all_versions:
            if as_of is not None or known_at is not None:
                raise ConfigError("all_versions lists every version; it takes no as_of or known_at",
                                  params=("all_versions", "as_of", "known_at"))
            return self.store.list_facts(gid, None, entity_id, predicate, limit)
        return self.store.list_facts(gid, self._time_filter(as_of, known_at), entity_id, predicate, limit)

    def fact_history(self, fact_id: str, *, group: str | None = None) -> list[FactVersion]:
        """Every version of a fact (by version or fact id), with the corrections and
        changes that replaced it and that it replaced, oldest belief first."""
        gid = group or self.settings.group
        found = self._editor().find(gid, fact_id)
        head = found[0]
        slot = [v for v in self.store.history(gid, head.subject_id, head.predicate) if v.subject_id == head.subject_id]
        return lineage({v.id for v in found}, slot)

    def related(self, fact_id: str, *, k: int = 5, group: str | None = None) -> list[tuple[FactVersion, float]]:
        """Facts linked to this one (RELATED_TO, written when each fact was stored), best
        first: the versions believed now of each linked fact, with the link's cosine."""
        gid = group or self.settings.group
        head = self._editor().find(gid, fact_id)[0]
        links = self.store.related(gid, head.fact_id, _k(k))
        versions = self.store.fact_versions(gid, [other for other, _ in links])
        out: list[tuple[FactVersion, float]] = []
        for other, score in links:
            now = [v for v in versions if v.fact_id == other and v.expired_at is None]
            out.extend((v, score) for v in now)
        return out

    # -- erasure -------------------------------------------------------------
    def forget(self, *, episode: str | None = None, entity: str | None = None, whole_group: bool = False,
               group: str | None = None, reason: str | None = None) -> Tombstone:
        """Erase for good (kg_memory/core/erasure.py): one episode, everything about an entity
        (the entity, its facts, and the turns that mention or name it), or the whole group.
        Leaves a tombstone without content. Retiring a fact is not erasure."""
        chosen = [x for x in (episode is not None, entity is not None, whole_group) if x]
        if len(chosen) != 1:
            raise ConfigError("say what to forget: exactly one of --episode ID, --entity NAME or the whole --group")
        gid = group or self.settings.group
        self.flush()  # nothing still on its way into the store may bring the content back
        with self._extracting:
            if whole_group:
                return self._forget_group(gid, reason)
            if episode is not None:
                if not self.store.get_episodes(gid, [episode]):
                    raise NotFoundError(f"no episode {episode!r} in group {gid!r}")
                return self._forget_rows(gid, "episode", [episode], [], reason)
            assert entity is not None
            entity_id = self._entity_id(gid, entity)
            return self._forget_rows(gid, "entity", self._episodes_naming(gid, entity_id, entity), [entity_id],
                                     reason)

    def _episodes_naming(self, group: str, entity_id: str, name: str) -> list[str]:
        """The episodes that mention the entity, or name it as a word ("Al" erases "Al said",
        not every turn with "also" in it)."""
        word = re.compile(rf"(?<!\w){re.escape(name.strip())}(?!\w)", re.IGNORECASE)
        candidates = self.store.episodes_about(group, [entity_id], name.strip())
        mentioned = {e for e, ents in self.store.mentions(group, candidates).items() if entity_id in ents}
        return [e.id for e in self.store.get_episodes(group, candidates)
                if e.id in mentioned or word.search(e.content)]

    def _forget_rows(self, group: str, kind: Kind, episode_ids: list[str], entity_ids: list[str],
                     reason: str | None) -> Tombstone:
        episodes = self.store.get_episodes(group, episode_ids)
        versions = self.store.facts_citing(group, episode_ids, entity_ids)
        mentioned = self.store.mentions(group, episode_ids)
        plan = plan_erasure(group, episode_ids, entity_ids, versions, mentioned)
        done = self.store.erase(plan, new_tombstone(group, kind, self.clock.now(), reason, plan, 0))
        self._forget_cached([e.content_sha256 for e in episodes])
        self._archive().discard([e.archive_ref for e in episodes if e.archive_ref])
        return done

    def _forget_group(self, group: str, reason: str | None) -> Tombstone:
        hashes = self.store.episode_hashes(group)  # for the response cache
        archived = self._archive().archived_refs(group)  # bodies that jobs archive moved out
        plan = ErasePlan(group, whole_group=True)
        done = self.store.erase(plan, new_tombstone(group, "group", self.clock.now(), reason, plan, 0))
        self._forget_cached(hashes)
        self._archive().discard(archived)
        return done

    def _archive(self) -> Archive:
        return Archive(self.store, self.settings.archive_url or default_archive_url())

    def _forget_cached(self, hashes: list[str]) -> int:
        """Remove the LLM responses made from the erased turns (the cache in the data directory)."""
        from .extract.client import ResponseCache
        from .settings import data_dir

        path = data_dir() / "llm-cache.db"
        if not hashes or not path.exists():
            return 0
        cache = ResponseCache(path)
        try:
            return cache.forget(hashes)
        finally:
            cache.close()

    def tombstones(self, *, group: str | None = None) -> list[Tombstone]:
        return self.store.tombstones(group or self.settings.group)

    # -- editing by fact id --------------------------------------------------
    def _editor(self) -> Editor:
        return Editor(self.store, self.embedder, related=(self.settings.related_k, self.settings.related_min_cosine))

    def correct(self, fact_id: str, value: str, *, reason: str | None = None, group: str | None = None) -> EditResult:
        """We were wrong: the fact's current belief closes and a version with ``value``
        takes its place over the same valid time."""
        return self._editor().correct(group or self.settings.group, fact_id, value, reason, self.clock.now())

    def change(self, fact_id: str, value: str, at: datetime | str, *, group: str | None = None) -> EditResult:
        """The world changed at ``at``: the fact ends there and ``value`` holds from then
        on (handled like any superseding value)."""
        return self._editor().change(group or self.settings.group, fact_id, value, time_option("at", at),
                                     self.clock.now())

    def retire(self, fact_id: str, *, at: datetime | str | None = None, group: str | None = None) -> EditResult:
        """The fact stopped being true at ``at`` (default now). It stays in history."""
        now = self.clock.now()
        return self._editor().retire(group or self.settings.group, fact_id,
                                     time_option("at", at) if at is not None else now, now)

    def _entity_id(self, group: str, entity: str) -> str:
        found = find_live(self.store, group, [normalize_name(entity)])
        if not found:
            raise NotFoundError(f"no entity named {entity!r} in group {group!r}; {self.hint(group, entity)}")
        return next(iter(found.values())).id

    def groups(self) -> list[tuple[str, dict[str, int]]]:
        """Every group in the store with its episode, entity and fact-version counts."""
        return self.store.groups()

    def hint(self, group: str, entity: str | None = None) -> str:
        """What to try when a group or an entity name matched nothing."""
        known = dict(self.store.groups())
        if group not in known:
            listed = ", ".join(g for g in list(known)[:10]) or "none yet"
            return f"the group {group!r} holds nothing (groups in this store: {listed}; see `kgmem groups`)"
        if entity is None:
            return "try other words, or an earlier --known-at"
        names = self.store.entity_names(group, 5000)
        close = get_close_matches(entity, names, n=3, cutoff=0.6) or get_close_matches(
            entity.lower(), [n.lower() for n in names], n=3, cutoff=0.6)
        if close:
            return "did you mean " + " or ".join(repr(c) for c in close) + "?"
        return f"the group has {len(names)} entities; `kgmem history` takes an entity's name, e.g. {names[0]!r}" \
            if names else "the group has no entities yet (has extraction run?)"

    def doctor(self) -> dict[str, Any]:
        from .embed.minilm import model_dir

        path = model_dir()
        out = {"store": self.store.info(), "embedder": getattr(self.embedder, "name", None),
               "model_path": str(path) if path else None, "extractor": self.extractor.name}
        if self._worker is not None:
            out["worker"] = self._worker.snapshot()
        return out


MAX_QUERY_CHARS = 2000  # longer queries are refused: they would only add noise (and Lucene clauses)


def _query(text: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise ConfigError("the query is empty; say what to look for")
    if len(text) > MAX_QUERY_CHARS:
        raise ConfigError(f"the query is {len(text)} characters; at most {MAX_QUERY_CHARS}")
    return text


def _k(k: int) -> int:
    if not isinstance(k, int) or not 1 <= k <= 200:
        raise ConfigError(f"k must be between 1 and 200, got {k!r}")
    return k


def time_option(name: str, value: datetime | str) -> datetime:
    """A recall time argument, or a ConfigError that names the option."""
    try:
        return ensure_utc(parse_datetime(value))
    except (ValueError, TypeError, OverflowError) as exc:
        raise ConfigError(f"{name}: {exc}", params=(name,)) from None


class AsyncMemory:
    """The same API for asyncio code; work runs in a thread so the loop never blocks."""

    def __init__(self, memory: Memory):
        self._m = memory
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, store_url: str | None = None, **kwargs: Any) -> AsyncMemory:
        return cls(await asyncio.to_thread(Memory.open, store_url, **kwargs))

    @property
    def sync(self) -> Memory:
        return self._m

    async def add(self, content: str, **kwargs: Any) -> IngestStats:
        async with self._lock:
            return await asyncio.to_thread(self._m.add, content, **kwargs)

    async def flush(self, timeout: float | None = None) -> IngestStats:
        return await asyncio.to_thread(self._m.flush, timeout)

    async def ingest_files(self, paths: Sequence[str | Path], **kwargs: Any) -> IngestStats:
        async with self._lock:
            return await asyncio.to_thread(self._m.ingest_files, paths, **kwargs)

    async def recall(self, query: str, **kwargs: Any) -> RecallResult:
        return await asyncio.to_thread(self._m.recall, query, **kwargs)

    async def history(self, entity: str, **kwargs: Any) -> list[FactVersion]:
        return await asyncio.to_thread(self._m.history, entity, **kwargs)

    async def groups(self) -> list[tuple[str, dict[str, int]]]:
        return await asyncio.to_thread(self._m.groups)

    async def ontology(self, group: str | None = None) -> Ontology:
        return await asyncio.to_thread(self._m.ontology, group)

    async def set_ontology(self, source: str | Path | Mapping[str, Any], **kwargs: Any) -> OntologyChange:
        async with self._lock:
            return await asyncio.to_thread(self._m.set_ontology, source, **kwargs)

    async def facts(self, **kwargs: Any) -> list[FactVersion]:
        return await asyncio.to_thread(self._m.facts, **kwargs)

    async def fact_history(self, fact_id: str, **kwargs: Any) -> list[FactVersion]:
        return await asyncio.to_thread(self._m.fact_history, fact_id, **kwargs)

    async def correct(self, fact_id: str, value: str, **kwargs: Any) -> EditResult:
        async with self._lock:
            return await asyncio.to_thread(self._m.correct, fact_id, value, **kwargs)

    async def change(self, fact_id: str, value: str, at: datetime | str, **kwargs: Any) -> EditResult:
        async with self._lock:
            return await asyncio.to_thread(self._m.change, fact_id, value, at, **kwargs)

    async def retire(self, fact_id: str, **kwargs: Any) -> EditResult:
        async with self._lock:
            return await asyncio.to_thread(self._m.retire, fact_id, **kwargs)

    async def related(self, fact_id: str, **kwargs: Any) -> list[tuple[FactVersion, float]]:
        return await asyncio.to_thread(self._m.related, fact_id, **kwargs)

    async def search_text(self, query: str, **kwargs: Any) -> list[ScoredEpisode]:
        return await asyncio.to_thread(self._m.search_text, query, **kwargs)

    async def search_semantic(self, query: str, **kwargs: Any) -> list[ScoredEpisode]:
        return await asyncio.to_thread(self._m.search_semantic, query, **kwargs)

    async def forget(self, **kwargs: Any) -> Tombstone:
        async with self._lock:
            return await asyncio.to_thread(self._m.forget, **kwargs)

    async def tombstones(self, **kwargs: Any) -> list[Tombstone]:
        return await asyncio.to_thread(self._m.tombstones, **kwargs)

    async def close(self) -> None:
        await asyncio.to_thread(self._m.close)
