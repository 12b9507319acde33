"""Input formats: jsonl, chat, locomo and longmemeval, with ``auto`` detection.

Parsing is all-or-nothing per call: every problem is collected as
``path:line: what is wrong; what to do`` and raised together as an
:class:`InputError` before anything is written (unless ``on_error='skip'``).

When a record has no time, the file's modification time is used (plus one
microsecond per record, to keep order), so re-ingesting an unchanged file finds
the same episodes and adds nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .errors import InputError
from .models import Episode
from .timeutil import ensure_utc, parse_datetime

FORMATS = ("auto", "jsonl", "chat", "locomo", "longmemeval")
ROLES = ("user", "assistant", "system", "tool")


@dataclass
class Parsed:
    episodes: list[Episode] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def scoped_id(group_id: str, source_id: str) -> str:
    """A stable episode id for an id given in the input, unique across groups."""
    return "ep_" + hashlib.sha256(f"{group_id}\x1f{source_id}".encode()).hexdigest()[:32]


STDIN = Path("<stdin>")


def _mtime(path: Path) -> datetime:
    """The base time of records with no time of their own: the file's mtime (now for stdin)."""
    if path == STDIN:
        return ensure_utc(datetime.now())
    return ensure_utc(datetime.fromtimestamp(os.stat(path).st_mtime))


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def detect_format(path: Path, head: Any | None) -> str:
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return "jsonl"
    obj = head
    first = obj[0] if isinstance(obj, list) and obj else obj
    if isinstance(first, dict):
        if "messages" in first:
            return "chat"
        if "conversation" in first or "speaker_a" in first:
            return "locomo"
        if "haystack_sessions" in first:
            return "longmemeval"
        if "content" in first:
            return "jsonl"
    raise InputError([f"{path}:1: cannot tell the format; pass --format jsonl|chat|locomo|longmemeval"])


def parse_file(path: str | Path, fmt: str = "auto", group: str | None = None, now: datetime | None = None
               ) -> Parsed:
    """Parse one file into episodes (not yet stored). ``group`` overrides the
    file's own groups; ``now`` stamps created_at. ``-`` reads standard input."""
    p = STDIN if str(path) == "-" else Path(path)
    if fmt not in FORMATS:
        raise InputError([f"{p}: unknown format {fmt!r}; use one of {', '.join(FORMATS)}"])
    if p == STDIN:
        raw = sys.stdin.buffer.read()
    elif not p.exists():
        raise InputError([f"{p}: no such file"])
    elif p.is_dir():
        raise InputError([f"{p}: is a directory; pass the files inside it"])
    else:
        raw = p.read_bytes()
    created = now or ensure_utc(datetime.now())
    if fmt == "jsonl" or (fmt == "auto" and p.suffix.lower() in (".jsonl", ".ndjson")):
        return _parse_jsonl(p, raw, group, created)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError([f"{p}:{line}: not valid UTF-8 (byte {exc.start}); re-save the file as UTF-8"]) from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        if fmt == "auto":
            # Maybe JSON lines without the .jsonl suffix.
            first_line = text.lstrip().split("\n", 1)[0]
            try:
                json.loads(first_line)
                return _parse_jsonl(p, raw, group, created)
            except json.JSONDecodeError:
                pass
        raise InputError([f"{p}:{exc.lineno}: invalid JSON ({exc.msg}); fix the file or check --format"]) from None
    if fmt == "auto":
        fmt = detect_format(p, obj)
    if fmt == "jsonl":
        items = obj if isinstance(obj, list) else [obj]
        out = Parsed()
        base = _mtime(p)
        for i, item in enumerate(items):
            _record(p, i + 1, item, group, created, base + timedelta(microseconds=i), out, p.stem)
        return out
    if fmt == "chat":
        return _parse_chat(p, obj, group, created)
    if fmt == "locomo":
        return _parse_locomo(p, text, obj, group, created)
    return _parse_longmemeval(p, obj, group, created)


def _record(p: Path, line: int, item: Any, group: str | None, created: datetime, default_time: datetime,
            out: Parsed, default_session: str | None) -> None:
    where = f"{p}:{line}"
    if not isinstance(item, dict):
        out.problems.append(f"{where}: expected a JSON object, got {type(item).__name__}")
        return
    content = item.get("content")
    if content is None or (isinstance(content, str) and not content.strip()):
        out.problems.append(f"{where}: missing 'content'; every episode needs non-empty text")
        return
    if not isinstance(content, str):
        out.problems.append(f"{where}: 'content' must be a string, got {type(content).__name__}")
        return
    role = item.get("role", "user")
    if role not in ROLES:
        out.problems.append(f"{where}: role {role!r} is not one of {', '.join(ROLES)}")
        return
    when = item.get("occurred_at", item.get("timestamp", item.get("created_at")))
    try:
        occurred = parse_datetime(when) if when is not None else default_time
    except ValueError as exc:
        out.problems.append(f"{where}: {exc}")
        return
    meta = item.get("metadata") or {}
    if not isinstance(meta, dict):
        out.problems.append(f"{where}: 'metadata' must be an object")
        return
    kwargs: dict[str, Any] = {}
    gid = group or str(item.get("group_id") or "default")
    if item.get("id"):
        # The file's id names the episode within its group; ours is derived from both.
        meta = {**meta, "source_id": str(item["id"])}
        kwargs["id"] = scoped_id(gid, str(item["id"]))
    out.episodes.append(Episode(
        group_id=gid, role=role,
        speaker=item.get("speaker") or item.get("name"), content=content, occurred_at=occurred,
        created_at=created, session_id=str(item["session_id"]) if item.get("session_id") else default_session,
        source=str(p), metadata=meta, **kwargs,
    ))


def _parse_jsonl(p: Path, raw: bytes, group: str | None, created: datetime) -> Parsed:
    out = Parsed()
    base = _mtime(p)
    for n, bline in enumerate(raw.split(b"\n"), start=1):
        if not bline.strip():
            continue
        try:
            line = bline.decode("utf-8")
        except UnicodeDecodeError as exc:
            out.problems.append(f"{p}:{n}: not valid UTF-8 (column {exc.start + 1}); re-save the file as UTF-8")
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            out.problems.append(f"{p}:{n}: malformed JSON ({exc.msg} at column {exc.colno}); fix or remove the line")
            continue
        _record(p, n, item, group, created, base + timedelta(microseconds=n), out, None)
    return out


def _parse_chat(p: Path, obj: Any, group: str | None, created: datetime) -> Parsed:
    out = Parsed()
    convs = obj if isinstance(obj, list) else [obj]
    base = _mtime(p)
    for ci, conv in enumerate(convs):
        if not isinstance(conv, dict) or not isinstance(conv.get("messages"), list):
            out.problems.append(f"{p}: conversation {ci}: expected an object with a 'messages' list")
            continue
        start = conv.get("occurred_at") or conv.get("created_at")
        try:
            t0 = parse_datetime(start) if start is not None else base
        except ValueError as exc:
            out.problems.append(f"{p}: conversation {ci}: {exc}")
            continue
        session = str(conv.get("session_id") or conv.get("id") or f"{p.stem}-{ci}")
        for mi, msg in enumerate(conv["messages"]):
            item = dict(msg) if isinstance(msg, dict) else msg
            if isinstance(item, dict):
                item.setdefault("session_id", session)
                if conv.get("group_id"):
                    item.setdefault("group_id", conv["group_id"])
            _record(p, 0, item, group, created, t0 + timedelta(seconds=mi), out, session)
            if out.problems and out.problems[-1].startswith(f"{p}:0:"):
                out.problems[-1] = out.problems[-1].replace(f"{p}:0:", f"{p}: conversation {ci} message {mi}:")
    return out


def iter_locomo_samples(obj: Any) -> Iterator[dict[str, Any]]:
    for s in obj if isinstance(obj, list) else [obj]:
        if isinstance(s, dict):
            yield s


def locomo_group(sample: dict[str, Any], path: Path, index: int) -> str:
    """The group a LoCoMo conversation goes into: its sample_id, else the file's name."""
    return str(sample.get("sample_id") or f"locomo-{path.stem}" + (f"-{index}" if index else ""))


def locomo_sessions(conv: dict[str, Any]) -> list[tuple[int, str, list[dict[str, Any]]]]:
    out = []
    for key, val in conv.items():
        if key.startswith("session_") and key.count("_") == 1 and isinstance(val, list):
            n = int(key.split("_")[1])
            out.append((n, str(conv.get(f"session_{n}_date_time", "")), val))
    return sorted(out)


def _parse_locomo(p: Path, text: str, obj: Any, group: str | None, created: datetime) -> Parsed:
    out = Parsed()
    for si, sample in enumerate(iter_locomo_samples(obj)):
        conv = sample.get("conversation", sample)
        gid = group or locomo_group(sample, p, si)
        a, b = conv.get("speaker_a"), conv.get("speaker_b")
        for n, when, turns in locomo_sessions(conv):
            try:
                t0 = parse_datetime(when)
            except ValueError as exc:
                pos = text.find(f'"session_{n}_date_time"')
                out.problems.append(f"{p}:{_line_of(text, max(pos, 0))}: session_{n}_date_time: {exc}")
                continue
            for ti, turn in enumerate(turns):
                if not isinstance(turn, dict) or not isinstance(turn.get("text"), str):
                    pos = text.find(f'"session_{n}"')
                    out.problems.append(f"{p}:{_line_of(text, max(pos, 0))}: session_{n} turn {ti}: missing 'text'")
                    continue
                meta: dict[str, Any] = {k: turn[k] for k in ("dia_id", "blip_caption", "img_url") if k in turn}
                speaker = turn.get("speaker")
                out.episodes.append(Episode(
                    group_id=gid, role="user" if speaker in (a, b, None) else "user", speaker=speaker,
                    content=turn["text"], occurred_at=t0 + timedelta(seconds=30 * ti), created_at=created,
                    session_id=f"session_{n}", source=str(p), metadata=meta,
                ))
    return out


def _parse_longmemeval(p: Path, obj: Any, group: str | None, created: datetime) -> Parsed:
    out = Parsed()
    items = obj if isinstance(obj, list) else [obj]
    for qi, q in enumerate(items):
        if not isinstance(q, dict) or "haystack_sessions" not in q:
            out.problems.append(f"{p}: item {qi}: expected a LongMemEval question with 'haystack_sessions'")
            continue
        gid = group or str(q.get("question_id") or f"lme-{qi}")
        dates = q.get("haystack_dates") or []
        sids = q.get("haystack_session_ids") or []
        for si, session in enumerate(q["haystack_sessions"]):
            try:
                t0 = parse_datetime(dates[si]) if si < len(dates) else _mtime(p)
            except ValueError as exc:
                out.problems.append(f"{p}: item {qi} session {si}: {exc}")
                continue
            sid = str(sids[si]) if si < len(sids) else f"s{si}"
            for ti, turn in enumerate(session):
                if not isinstance(turn, dict) or not isinstance(turn.get("content"), str):
                    out.problems.append(f"{p}: item {qi} session {si} turn {ti}: missing 'content'")
                    continue
                role = turn.get("role", "user")
                if role not in ROLES:
                    out.problems.append(f"{p}: item {qi} session {si} turn {ti}: bad role {role!r}")
                    continue
                meta = {"turn": ti, "has_answer": bool(turn.get("has_answer", False))}
                out.episodes.append(Episode(
                    group_id=gid, role=role, content=turn["content"], occurred_at=t0 + timedelta(seconds=30 * ti),
                    created_at=created, session_id=sid, source=str(p), metadata=meta,
                ))
    return out
