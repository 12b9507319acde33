"""`kgmem jobs reextract`: replay a group's episodes through another extractor (the local
LLM, a new prompt) into a shadow group, and report what would change.

The live group is never touched while the shadow is built. The report compares the facts
true now in both groups, by (subject, predicate, object) names: added, removed, and
changed (a single-valued predicate whose value differs), per predicate, with examples.

``promote`` exchanges the two groups in one store transaction (``Store.swap_groups``),
so the old live group becomes the shadow and ``rollback`` exchanges them back. A shadow
of part of the group (``--since``/``--until``), or one built before the live group
changed, cannot be promoted: it would lose episodes.
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..core.erasure import ErasePlan, new_tombstone
from ..core.models import Episode, FactVersion, new_id, normalize_name
from ..core.vocab import Vocabulary, load_vocabulary
from ..errors import ConfigError, NotFoundError
from ..progress import NoProgress, Progress
from ..store.base import JobRecord, Store, TimeFilter, WriteBatch, episode_pages
from .archive import Archive

SUFFIX = "~shadow"
PAGE = 500
EXAMPLES = 3  # per predicate and kind in the report


def shadow_of(group: str) -> str:
    return f"{group}{SUFFIX}"


Key = tuple[str, str, str]  # (subject key, predicate, object key)


@dataclass
class Diff:
    added: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    removed: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    changed: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def counts(self) -> dict[str, dict[str, int]]:
        preds = sorted({*self.added, *self.removed, *self.changed})
        return {p: {"added": len(self.added.get(p, [])), "removed": len(self.removed.get(p, [])),
                    "changed": len(self.changed.get(p, []))} for p in preds}

    def totals(self) -> dict[str, int]:
        return {kind: sum(len(v) for v in getattr(self, kind).values()) for kind in ("added", "removed", "changed")}

    def to_json(self) -> dict[str, Any]:
        return {"totals": self.totals(), "by_predicate": self.counts(),
                "examples": {kind: {p: v[:EXAMPLES] for p, v in sorted(getattr(self, kind).items())}
                             for kind in ("added", "removed", "changed")}}


def diff_facts(live: list[FactVersion], shadow: list[FactVersion], single_valued: Callable[[str], bool]) -> Diff:
    """What the shadow's beliefs would change, as statements."""
    def keyed(vs: list[FactVersion]) -> dict[Key, FactVersion]:
        return {(normalize_name(v.subject), v.predicate, normalize_name(v.object)): v for v in vs}

    a, b = keyed(live), keyed(shadow)
    out = Diff()
    changed_pairs = set()
    for k in sorted(set(a) ^ set(b)):
        subj, pred, _ = k
        if single_valued(pred) and any(x[:2] == (subj, pred) for x in a) and any(x[:2] == (subj, pred) for x in b):
            if (subj, pred) not in changed_pairs:
                changed_pairs.add((subj, pred))
                old = sorted(v.object for x, v in a.items() if x[:2] == (subj, pred))
                new = sorted(v.object for x, v in b.items() if x[:2] == (subj, pred))
                out.changed[pred].append(f"{subj} {pred}: {', '.join(old)} -> {', '.join(new)}")
        elif k in b:
            out.added[pred].append(b[k].statement)
        else:
            out.removed[pred].append(a[k].statement)
    return out


@dataclass
class ShadowReport:
    group_id: str
    shadow: str
    action: str
    extractor: str = ""
    episodes: int = 0
    facts_live: int = 0
    facts_shadow: int = 0
    diff: Diff | None = None
    noop: bool = False
    seconds: float = 0.0

    def counts(self) -> dict[str, int]:
        return {"episodes": self.episodes, "facts_live": self.facts_live, "facts_shadow": self.facts_shadow,
                **(self.diff.totals() if self.diff else {})}

    def to_json(self) -> dict[str, Any]:
        return {"job": "reextract", "action": self.action, "group_id": self.group_id, "shadow": self.shadow,
                "extractor": self.extractor, "noop": self.noop, **self.counts(),
                "diff": self.diff.to_json() if self.diff else None, "seconds": round(self.seconds, 3)}


class Shadow:
    def __init__(self, store: Store, extract: Callable[[str], object], extractor_name: str,
                 archive: Archive | None = None, vocab: Vocabulary | None = None,
                 clock: Callable[[], datetime] | None = None):
        """``clock``: the time to compare at once the shadow is built (its facts are believed from
        when they were extracted, after the build began)."""
        self.clock = clock
        self.store = store
        self.extract = extract  # runs the chosen extractor over a group's pending episodes
        self.extractor_name = extractor_name
        self.archive = archive
        self.vocab = vocab or load_vocabulary()

    def _record(self, group: str) -> JobRecord | None:
        found = [r for r in self.store.job_records(group, "shadow") if r.id == shadow_of(group)]
        return found[0] if found else None

    def build(self, group: str, now: datetime, since: datetime | None = None, until: datetime | None = None,
              rebuild: bool = False, progress: Progress | None = None) -> ShadowReport:
        """Copy the group's episodes (those in [since, until) when given) into the shadow
        group and extract them there with this extractor. A shadow already built from the
        same episodes with the same extractor is kept (a second run is a no-op)."""
        progress = progress or NoProgress()
        started = time.perf_counter()
        shadow = shadow_of(group)
        report = ShadowReport(group, shadow, "build", self.extractor_name)
        params = {"extractor": self.extractor_name, "since": since.isoformat() if since else None,
                  "until": until.isoformat() if until else None, "live_hashes": self._fingerprint(group)}
        record = self._record(group)
        if record is not None and record.body.get("status") == "promoted" and not rebuild:
            raise ConfigError(f"{shadow!r} holds the group as it was before the last promotion; roll back "
                              "(`kgmem jobs reextract --rollback`) or pass --rebuild to discard it")
        if record is not None and not rebuild and record.body.get("status") == "built" \
                and all(record.body.get(k) == v for k, v in params.items()):
            report.noop = True
        else:
            self._clear(shadow, now)
            progress.phase("copy")
            report.episodes = self._copy(group, shadow, since, until, now, progress)
            progress.phase("extract", report.episodes)
            self.extract(shadow)
            body = {**params, "status": "built", "built_at": now.isoformat(), "partial": bool(since or until)}
            self.store.write(WriteBatch(records=[JobRecord(group, "shadow", shadow, now, body)]))
        self._compare(group, shadow, report, max(now, self.clock()) if self.clock else now)
        report.seconds = time.perf_counter() - started
        return report

    def _fingerprint(self, group: str) -> str:
        return hashlib.sha256("\n".join(self.store.episode_hashes(group)).encode()).hexdigest()

    def _clear(self, shadow: str, now: datetime) -> None:
        held = self.store.counts(shadow)
        if held.get("episodes", 0) or held.get("entities", 0) or held.get("facts", 0):
            plan = ErasePlan(shadow, whole_group=True)
            self.store.erase(plan, new_tombstone(shadow, "group", now, "shadow rebuilt", plan, 0))

    def pages(self, group: str, since: datetime | None, until: datetime | None) -> Iterator[list[Episode]]:
        """The group's episodes in [since, until), a page at a time, by (occurred_at, id)."""
        after = (since, "") if since is not None else None  # every id sorts after ""
        yield from episode_pages(self.store, group, PAGE, after=after, before=until)

    def _copy(self, group: str, shadow: str, since: datetime | None, until: datetime | None, now: datetime,
              progress: Progress) -> int:
        n = 0
        for page in self.pages(group, since, until):
            copies = [self._copy_of(e, shadow) for e in page]
            self.store.add_episodes(copies)
            n += len(copies)
            progress.advance(len(copies))
        return n

    def _copy_of(self, e: Episode, shadow: str) -> Episode:
        content = e.content
        if e.archived:
            if self.archive is None:
                raise ConfigError(f"episode {e.id} is archived; restore it or configure the archive to re-extract it")
            content = self.archive.get(e)
        return e.model_copy(update={"id": new_id("ep"), "group_id": shadow, "content": content, "status": "pending",
                                    "status_reason": None, "archive_ref": None})

    def _compare(self, group: str, shadow: str, report: ShadowReport, now: datetime) -> None:
        """Compare what each group holds true now (believed now, valid now)."""
        tf = TimeFilter(as_of=now, known_at=now)
        live = self.store.list_facts(group, tf, limit=10_000_000)
        other = self.store.list_facts(shadow, tf, limit=10_000_000)
        report.facts_live, report.facts_shadow = len(live), len(other)
        report.diff = diff_facts(live, other, self.vocab.is_single)

    # -- promotion -------------------------------------------------------------------
    def promote(self, group: str, now: datetime) -> ShadowReport:
        record = self._record(group)
        if record is None or record.body.get("status") != "built":
            state = record.body.get("status") if record else "not built"
            raise NotFoundError(f"group {group!r} has no shadow ready to promote ({state}); "
                                "run `kgmem jobs reextract` first")
        if record.body.get("partial"):
            raise ConfigError("this shadow holds part of the group (--since/--until); promoting it would lose "
                              "episodes. Rebuild it without a range")
        if record.body.get("live_hashes") != self._fingerprint(group):
            raise ConfigError("the live group changed after the shadow was built; rebuild it "
                              "(`kgmem jobs reextract --rebuild`) and promote again")
        return self._swap(group, record, "promoted", now)

    def rollback(self, group: str, now: datetime) -> ShadowReport:
        record = self._record(group)
        if record is None or record.body.get("status") != "promoted":
            raise ConfigError(f"group {group!r} has no promoted shadow to roll back")
        return self._swap(group, record, "built", now, rolled_back=True)

    def _swap(self, group: str, record: JobRecord, status: str, now: datetime, rolled_back: bool = False
              ) -> ShadowReport:
        shadow = shadow_of(group)
        self.store.swap_groups(group, shadow)
        # the job records moved with their groups: the shadow record is the live group's again
        body = {**record.body, "status": status, f"{'rolled_back' if rolled_back else 'promoted'}_at": now.isoformat(),
                "live_hashes": self._fingerprint(group)}
        self.store.write(WriteBatch(records=[JobRecord(group, "shadow", shadow, record.at, body)]))
        report = ShadowReport(group, shadow, "rollback" if rolled_back else "promote", record.body.get("extractor", ""))
        self._compare(group, shadow, report, now)
        return report
