"""`kgmem jobs archive` and `kgmem jobs restore`: episode bodies out of the store and back.

An episode older than the group's retention window has its body written to the archive
(a local directory by default, or any fsspec URL such as ``s3://bucket/kgmem``), read
back and checked against the episode's ``content_sha256``, and only then removed from
the store, which keeps the episode's id, vector, facts, hash and a pointer
(``archive_ref``). Recall over vectors and facts still finds it and says it is archived.

Both jobs are idempotent and resumable: a page of episodes is committed at once, an
archived episode is never archived again, and a body written before a crash is simply
written again (same bytes, same place). Only extracted episodes are archived: a pending
one still needs its body.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..core.models import Episode
from ..errors import EXIT_ARCHIVE, ConfigError, StoreError
from ..progress import NoProgress, Progress
from ..store.base import Store, episode_pages

PAGE = 500  # episodes per store transaction


class ArchiveError(StoreError):
    """The archive could not be written or read, or a body did not match its hash."""

    exit_code = EXIT_ARCHIVE


def group_dir(group_id: str) -> str:
    """The archive folder of a group: a digest, so that any group id is a safe path."""
    return "g" + hashlib.sha256(group_id.encode("utf-8")).hexdigest()[:24]


@dataclass
class ArchiveReport:
    job: str
    group_id: str
    dry_run: bool
    episodes: int = 0
    bytes: int = 0
    cutoff: str | None = None
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def counts(self) -> dict[str, int]:
        return {"episodes": self.episodes, "bytes": self.bytes, "errors": len(self.errors)}

    def to_json(self) -> dict[str, Any]:
        return {"job": self.job, "group_id": self.group_id, "dry_run": self.dry_run, "cutoff": self.cutoff,
                **self.counts(), "error_messages": self.errors, "seconds": round(self.seconds, 3)}


class Archive:
    def __init__(self, store: Store, base_url: str):
        self.store = store
        self.base_url = base_url.rstrip("/")

    # -- the bytes -----------------------------------------------------------------
    def _fs(self, url: str) -> tuple[Any, str]:
        try:
            import fsspec
        except ImportError:  # pragma: no cover - a declared dependency
            raise ConfigError("archiving needs fsspec (pip install fsspec)") from None
        try:
            return fsspec.core.url_to_fs(url)
        except (ImportError, ValueError) as exc:
            raise ConfigError(f"archive URL {url!r}: {exc}; use a local directory or an fsspec URL whose "
                              "filesystem package is installed (s3fs for s3://)") from None

    def ref_for(self, e: Episode) -> str:
        return f"{self.base_url}/{group_dir(e.group_id)}/{e.id}.txt"

    def put(self, e: Episode) -> str:
        """Write the body, read it back and check its hash; return the pointer."""
        ref = self.ref_for(e)
        fs, path = self._fs(ref)
        data = e.content.encode("utf-8")
        try:
            fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
            with fs.open(path, "wb") as fh:
                fh.write(data)
            back = fs.cat_file(path)
        except OSError as exc:
            raise ArchiveError(f"cannot write {ref}: {exc}") from None
        if hashlib.sha256(back).hexdigest() != e.content_sha256:
            raise ArchiveError(f"{ref}: what was written does not read back as the episode's body; kept in the store")
        return ref

    def get(self, e: Episode) -> str:
        """The archived body of ``e``, checked against its hash."""
        assert e.archive_ref is not None
        fs, path = self._fs(e.archive_ref)
        try:
            data = fs.cat_file(path)
        except (OSError, FileNotFoundError) as exc:
            raise ArchiveError(f"episode {e.id}: cannot read its body at {e.archive_ref}: {exc}") from None
        if hashlib.sha256(data).hexdigest() != e.content_sha256:
            raise ArchiveError(f"episode {e.id}: the body at {e.archive_ref} does not match the episode's sha256; "
                               "it was changed or damaged, so it is not restored")
        return data.decode("utf-8")

    def discard(self, refs: list[str]) -> int:
        """Delete archived bodies (erasure); a body already gone is fine."""
        n = 0
        for ref in refs:
            fs, path = self._fs(ref)
            try:
                fs.rm_file(path)
                n += 1
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise ArchiveError(f"cannot delete {ref}: {exc}") from None
        return n

    # -- the jobs ------------------------------------------------------------------
    def archive(self, group: str, older_than: timedelta, now: datetime, dry_run: bool = False,
                progress: Progress | None = None) -> ArchiveReport:
        """Move the bodies of the group's extracted episodes that occurred before
        ``now - older_than`` to the archive, a page per transaction."""
        progress = progress or NoProgress()
        started = time.perf_counter()
        cutoff = now - older_than
        report = ArchiveReport("archive", group, dry_run, cutoff=cutoff.isoformat())
        progress.phase("archive")
        for page in episode_pages(self.store, group, PAGE, before=cutoff, archived=False):
            ready = [e for e in page if e.status == "done"]
            report.episodes += len(ready)
            report.bytes += sum(len(e.content.encode("utf-8")) for e in ready)
            if not dry_run and ready:
                bodies = [(e.id, "", self.put(e)) for e in ready]
                self.store.set_bodies(group, bodies)
            progress.advance(len(ready))
        report.seconds = time.perf_counter() - started
        return report

    def restore(self, group: str, episode_ids: list[str] | None = None, dry_run: bool = False,
                progress: Progress | None = None) -> ArchiveReport:
        """Bring archived bodies back into the store (every archived episode of the group,
        or those named), each checked against its hash; then delete the archived copy."""
        progress = progress or NoProgress()
        started = time.perf_counter()
        report = ArchiveReport("restore", group, dry_run)
        progress.phase("restore")
        for page in self._archived_pages(group, episode_ids):
            bodies = []
            for e in page:
                try:
                    bodies.append((e.id, self.get(e), None))
                except ArchiveError as exc:
                    report.errors.append(str(exc))
            report.episodes += len(bodies)
            report.bytes += sum(len(b[1].encode("utf-8")) for b in bodies)
            if not dry_run and bodies:
                self.store.set_bodies(group, bodies)
                self.discard([e.archive_ref for e in page if e.archive_ref and e.id in {b[0] for b in bodies}])
            progress.advance(len(bodies))
        report.seconds = time.perf_counter() - started
        return report

    def _archived_pages(self, group: str, episode_ids: list[str] | None) -> Any:
        if episode_ids is not None:
            found = [e for e in self.store.get_episodes(group, episode_ids) if e.archived]
            for i in range(0, len(found), PAGE):
                yield found[i:i + PAGE]
            return
        yield from episode_pages(self.store, group, PAGE, archived=True)

    def archived_refs(self, group: str) -> list[str]:
        """Every archive pointer of the group (for erasure of the whole group)."""
        return [e.archive_ref for page in self._archived_pages(group, None) for e in page if e.archive_ref]


def default_archive_url() -> str:
    from ..settings import data_dir

    return str(Path(data_dir()) / "archive")
