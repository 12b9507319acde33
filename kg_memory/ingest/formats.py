"""Input formats: jsonl, chat, locomo and longmemeval, with ``auto`` detection.

Parsing is all-or-nothing per call: every problem is collected as
``path:line: what is wrong; what to do`` and raised together as an
:class:`InputError` before anything is written (unless ``on_error='skip'``).

When a record has no time, the file's modification time is used (plus one
microsecond per record, to keep order), so re-ingesting an unchanged file finds
the same episodes and adds nothing.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..core.idents import tuple_key
from ..core.models import Episode
from ..core.timeutil import ensure_utc, parse_datetime
from ..errors import InputError

FORMATS = ("auto", "jsonl", "chat", "locomo", "longmemeval")
ROLES = ("user", "assistant", "system", "tool")


@dataclass
class Parsed:
    episodes: list[Episode] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    where: list[str] = field(default_factory=list)  # each episode's "path:line" (for later problems)


def scoped_id(group_id: str, source_id: str) -> str:
    """A stable episode id for an id given in the input, unique across groups."""
    return "ep_" + tuple_key(group_id, source_id)[:32]


STDIN = Path("<stdin>")
MAX_CONTENT_BYTES = 256 * 1024  # the default of Settings.max_content_bytes
MAX_DEPTH = 64  # JSON nesting kgmem reads; deeper input is refused, never a RecursionError

# What a malformed record can raise while it is read; each becomes that record's problem.
RECORD_FAULTS = (ValueError, TypeError, AttributeError, KeyError, IndexError, OverflowError, OSError,
                 RecursionError, UnicodeError)


def _fault(where: str, exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return f"{where}: nested more than {MAX_DEPTH} levels deep; flatten the record"
    if isinstance(exc, OverflowError):
        return f"{where}: a time or number is out of range ({exc}); use a date between years 1 and 9999 UTC"
    return f"{where}: cannot read this record ({type(exc).__name__}: {exc}); fix or remove it"


def _too_deep(value: Any) -> bool:
    try:
        _unicode_ok(value)
    except RecursionError:
        return True
    return False


def _unicode_ok(value: Any, depth: int = 0) -> bool:
    """Every string in ``value`` encodes as UTF-8 (no lone surrogates), within MAX_DEPTH."""
    if depth > MAX_DEPTH:
        raise RecursionError
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(_unicode_ok(k, depth + 1) and _unicode_ok(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_unicode_ok(v, depth + 1) for v in value)
    return True


def _text(value: Any, what: str) -> str | None:
    """An optional text field: a string, a number (as text), or missing."""
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"'{what}' must be text, got {type(value).__name__}")
    return str(value)


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


def parse_file(path: str | Path, fmt: str = "auto", group: str | None = None, now: datetime | None = None,
               max_content_bytes: int = MAX_CONTENT_BYTES) -> Parsed:
    """Parse one file into episodes (not yet stored). ``group`` overrides the
    file's own groups; ``now`` stamps created_at. ``-`` reads standard input.
    Every problem is ``path:line: what; what to do``; nothing else is raised."""
    p = STDIN if str(path) == "-" else Path(path)
    try:
        parsed = _parse_file(p, fmt, group, now)
    except InputError:
        raise
    except RecursionError:
        raise InputError([f"{p}:1: JSON nested more than {MAX_DEPTH} levels deep; flatten the file"]) from None
    except RECORD_FAULTS as exc:
        raise InputError([_fault(f"{p}:1", exc)]) from None
    return _checked(parsed, max_content_bytes)


def _checked(parsed: Parsed, max_content_bytes: int) -> Parsed:
    """Refuse episodes over the size limit, or with text that is not valid Unicode."""
    out = Parsed(problems=list(parsed.problems))
    for e, where in zip(parsed.episodes, parsed.where, strict=True):
        size = len(e.content.encode("utf-8", "surrogatepass"))
        if size > max_content_bytes:
            out.problems.append(f"{where}: content is {size:,} bytes, over the limit of {max_content_bytes:,} "
                                "(max_content_bytes); split it into several episodes")
        elif _too_deep(e.metadata):
            out.problems.append(f"{where}: metadata nested more than {MAX_DEPTH} levels deep; flatten it")
        elif not _unicode_ok([e.content, e.speaker, e.group_id, e.session_id, e.metadata]):
            out.problems.append(f"{where}: text is not valid Unicode (a lone surrogate); fix the encoding")
        else:
            out.episodes.append(e)
            out.where.append(where)
    return out


def _parse_file(p: Path, fmt: str, group: str | None, now: datetime | None) -> Parsed:
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
            _record(p, f"{p}:1: record {i + 1}", item, group, created, base + timedelta(microseconds=i), out,
                    p.stem)
        return out
    if fmt == "chat":
        return _parse_chat(p, obj, group, created)
    if fmt == "locomo":
        return _parse_locomo(p, text, obj, group, created)
    return _parse_longmemeval(p, obj, group, created)


def _record(p: Path, where: str, item: Any, group: str | None, created: datetime, default_time: datetime,
            out: Parsed, default_session: str | None) -> None:
    try:
        _record_unguarded(p, where, item, group, created, default_time, out, default_session)
    except RECORD_FAULTS as exc:
        out.problems.append(_fault(where, exc))


def _record_unguarded(p: Path, where: str, item: Any, group: str | None, created: datetime,
                      default_time: datetime, out: Parsed, default_session: str | None) -> None:
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
    except (ValueError, TypeError, OverflowError, OSError) as exc:
        out.problems.append(f"{where}: occurred_at {when!r}: {exc}; use ISO 8601 (2024-05-01T10:00:00Z)")
        return
    meta = item.get("metadata") or {}
    if not isinstance(meta, dict):
        out.problems.append(f"{where}: 'metadata' must be an object")
        return
    kwargs: dict[str, Any] = {}
    gid = group or _text(item.get("group_id"), "group_id") or "default"
    source_id = _text(item.get("id"), "id")
    if source_id:
        # The file's id names the episode within its group; ours is derived from both.
        meta = {**meta, "source_id": source_id}
        kwargs["id"] = scoped_id(gid, source_id)
    json.dumps(meta)  # metadata must be JSON (a RecursionError or TypeError is this record's problem)
    out.episodes.append(Episode(
        group_id=gid, role=role,
        speaker=_text(item.get("speaker") or item.get("name"), "speaker"), content=content, occurred_at=occurred,
        created_at=created, session_id=_text(item.get("session_id"), "session_id") or default_session,
        source=str(p), metadata=meta, **kwargs,
    ))
    out.where.append(where)


def _parse_jsonl(p: Path, raw: bytes, group: str | None, created: datetime) -> Parsed:
    out = Parsed()
    base = _mtime(p)
    for n, bline in enumerate(raw.split(b"\n"), start=1):
        _jsonl_line(p, n, bline, group, created, base, out)
    return out


def _jsonl_line(p: Path, n: int, bline: bytes, group: str | None, created: datetime, base: datetime,
                out: Parsed) -> None:
    if not bline.strip():
        return
    try:
        line = bline.decode("utf-8")
    except UnicodeDecodeError as exc:
        out.problems.append(f"{p}:{n}: not valid UTF-8 (column {exc.start + 1}); re-save the file as UTF-8")
        return
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        out.problems.append(f"{p}:{n}: malformed JSON ({exc.msg} at column {exc.colno}); fix or remove the line")
        return
    except RecursionError:
        out.problems.append(f"{p}:{n}: JSON nested more than {MAX_DEPTH} levels deep; flatten the record")
        return
    _record(p, f"{p}:{n}", item, group, created, base + timedelta(microseconds=n), out, None)


CHUNK = 1000  # records per chunk when a file is read as a stream


def iter_chunks(path: str | Path, fmt: str = "auto", group: str | None = None, now: datetime | None = None,
                max_content_bytes: int = MAX_CONTENT_BYTES) -> Iterator[Parsed]:
    """A file's episodes and problems, a chunk at a time. JSON lines are read as a stream,
    so memory does not grow with the file; the other formats are whole JSON documents
    (and standard input), read at once."""
    p = STDIN if str(path) == "-" else Path(path)
    jsonl = fmt == "jsonl" or (fmt == "auto" and p.suffix.lower() in (".jsonl", ".ndjson"))
    if p == STDIN or not jsonl or not p.is_file():
        yield parse_file(path, fmt, group, now, max_content_bytes)
        return
    created = now or ensure_utc(datetime.now())
    base = _mtime(p)
    out = Parsed()
    try:
        with p.open("rb") as f:
            for n, bline in enumerate(f, start=1):
                _jsonl_line(p, n, bline, group, created, base, out)
                if len(out.episodes) + len(out.problems) >= CHUNK:
                    yield _checked(out, max_content_bytes)
                    out = Parsed()
    except OSError as exc:
        raise InputError([f"{p}:1: cannot read the file ({exc.strerror}); check it and its permissions"]) from None
    yield _checked(out, max_content_bytes)


def _parse_chat(p: Path, obj: Any, group: str | None, created: datetime) -> Parsed:
    out = Parsed()
    convs = obj if isinstance(obj, list) else [obj]
    base = _mtime(p)
    for ci, conv in enumerate(convs):
        where = f"{p}:1: conversation {ci}"
        if not isinstance(conv, dict) or not isinstance(conv.get("messages"), list):
            out.problems.append(f"{where}: expected an object with a 'messages' list; check --format")
            continue
        start = conv.get("occurred_at") or conv.get("created_at")
        try:
            t0 = parse_datetime(start) if start is not None else base
            session = _text(conv.get("session_id") or conv.get("id"), "session_id") or f"{p.stem}-{ci}"
        except RECORD_FAULTS as exc:
            out.problems.append(_fault(where, exc))
            continue
        for mi, msg in enumerate(conv["messages"]):
            item = dict(msg) if isinstance(msg, dict) else msg
            if isinstance(item, dict):
                item.setdefault("session_id", session)
                if conv.get("group_id"):
                    item.setdefault("group_id", conv["group_id"])
            _record(p, f"{where} message {mi}", item, group, created, t0 + timedelta(seconds=mi), out, session)
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
        try:
            _locomo_sample(p, text, si, sample, group, created, out)
        except RECORD_FAULTS as exc:
            out.problems.append(_fault(f"{p}:1: conversation {si}", exc))
    return out


def _locomo_sample(p: Path, text: str, si: int, sample: dict[str, Any], group: str | None, created: datetime,
                   out: Parsed) -> None:
    conv = sample.get("conversation", sample)
    if not isinstance(conv, dict):
        out.problems.append(f"{p}:1: conversation {si}: 'conversation' must be an object; check --format")
        return
    gid = group or _text(sample.get("sample_id"), "sample_id") or locomo_group(sample, p, si)
    for n, when, turns in locomo_sessions(conv):
        try:
            t0 = parse_datetime(when)
        except (ValueError, OverflowError) as exc:
            pos = text.find(f'"session_{n}_date_time"')
            out.problems.append(f"{p}:{_line_of(text, max(pos, 0))}: session_{n}_date_time: {exc}; "
                                "use a date such as '1:56 pm on 8 May, 2023'")
            continue
        line = _line_of(text, max(text.find(f'"session_{n}"'), 0))
        for ti, turn in enumerate(turns):
            where = f"{p}:{line}: session_{n} turn {ti}"
            if not isinstance(turn, dict) or not isinstance(turn.get("text"), str):
                out.problems.append(f"{where}: missing 'text'; every turn needs its text")
                continue
            try:
                meta: dict[str, Any] = {k: turn[k] for k in ("dia_id", "blip_caption", "img_url") if k in turn}
                json.dumps(meta)
                out.episodes.append(Episode(
                    group_id=gid, role="user", speaker=_text(turn.get("speaker"), "speaker"),
                    content=turn["text"], occurred_at=t0 + timedelta(seconds=30 * ti), created_at=created,
                    session_id=f"session_{n}", source=str(p), metadata=meta,
                ))
                out.where.append(where)
            except RECORD_FAULTS as exc:
                out.problems.append(_fault(where, exc))


def _parse_longmemeval(p: Path, obj: Any, group: str | None, created: datetime) -> Parsed:
    out = Parsed()
    items = obj if isinstance(obj, list) else [obj]
    for qi, q in enumerate(items):
        try:
            _longmemeval_item(p, qi, q, group, created, out)
        except RECORD_FAULTS as exc:
            out.problems.append(_fault(f"{p}:1: item {qi}", exc))
    return out


def _longmemeval_item(p: Path, qi: int, q: Any, group: str | None, created: datetime, out: Parsed) -> None:
    if not isinstance(q, dict) or not isinstance(q.get("haystack_sessions"), list):
        out.problems.append(f"{p}:1: item {qi}: expected a LongMemEval question with a 'haystack_sessions' "
                            "list; check --format")
        return
    gid = group or _text(q.get("question_id"), "question_id") or f"lme-{qi}"
    dates = q.get("haystack_dates") or []
    sids = q.get("haystack_session_ids") or []
    if not isinstance(dates, list) or not isinstance(sids, list):
        out.problems.append(f"{p}:1: item {qi}: 'haystack_dates' and 'haystack_session_ids' must be lists")
        return
    for si, session in enumerate(q["haystack_sessions"]):
        where = f"{p}:1: item {qi} session {si}"
        try:
            t0 = parse_datetime(dates[si]) if si < len(dates) else _mtime(p)
            sid = _text(sids[si], "haystack_session_ids") if si < len(sids) else None
        except RECORD_FAULTS as exc:
            out.problems.append(_fault(where, exc))
            continue
        if not isinstance(session, list):
            out.problems.append(f"{where}: a session must be a list of turns")
            continue
        for ti, turn in enumerate(session):
            if not isinstance(turn, dict) or not isinstance(turn.get("content"), str):
                out.problems.append(f"{where} turn {ti}: missing 'content'; every turn needs its text")
                continue
            role = turn.get("role", "user")
            if role not in ROLES:
                out.problems.append(f"{where} turn {ti}: role {role!r} is not one of {', '.join(ROLES)}")
                continue
            meta = {"turn": ti, "has_answer": bool(turn.get("has_answer", False))}
            out.episodes.append(Episode(
                group_id=gid, role=role, content=turn["content"], occurred_at=t0 + timedelta(seconds=30 * ti),
                created_at=created, session_id=sid or f"s{si}", source=str(p), metadata=meta,
            ))
            out.where.append(f"{where} turn {ti}")
