"""Time helpers. Inside kgmem every timestamp is a timezone-aware UTC datetime."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta


def utcnow() -> datetime:
    return datetime.now(UTC)


def ensure_utc(value: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted to UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


_LOCOMO_RE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I
)
MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ["january", "february", "march", "april", "may", "june", "july", "august",
         "september", "october", "november", "december"]
    )
}
MONTHS.update({k[:3]: v for k, v in list(MONTHS.items())})
MONTHS["sept"] = 9


def parse_datetime(text: str | datetime | date | int | float) -> datetime:
    """Parse ISO 8601 (``Z`` or offset; naive means UTC), a date, epoch seconds,
    or LoCoMo's ``1:56 pm on 8 May, 2023``. Raises ``ValueError`` with a clear message."""
    if isinstance(text, datetime):
        return ensure_utc(text)
    if isinstance(text, date):
        return datetime(text.year, text.month, text.day, tzinfo=UTC)
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return datetime.fromtimestamp(float(text), UTC)
    if not isinstance(text, str):
        raise ValueError(f"expected a date string, got {type(text).__name__}")
    s = text.strip()
    if not s:
        raise ValueError("empty date")
    m = _LOCOMO_RE.match(s)
    if m:
        hour, minute, ampm, day, month_name, year = m.groups()
        month = MONTHS.get(month_name.lower())
        if month is None:
            raise ValueError(f"unknown month {month_name!r} in {text!r}")
        h = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
        return datetime(int(year), month, int(day), h, int(minute), tzinfo=UTC)
    iso = s[:-1] + "+00:00" if s.endswith(("Z", "z")) else s
    # LongMemEval style: "2023/05/20 (Sat) 02:21"
    lme = re.match(r"^(\d{4})/(\d{2})/(\d{2})(?:\s*\([A-Za-z]+\))?(?:\s+(\d{1,2}):(\d{2}))?$", s)
    if lme:
        y, mo, d, hh, mm = lme.groups()
        return datetime(int(y), int(mo), int(d), int(hh or 0), int(mm or 0), tzinfo=UTC)
    try:
        return ensure_utc(datetime.fromisoformat(iso))
    except ValueError:
        raise ValueError(
            f"unparseable date {text!r}: use ISO 8601 such as 2025-03-04T12:00:00Z"
        ) from None


def to_iso(value: datetime | None) -> str | None:
    """Fixed-width UTC text that sorts in time order (used as the SQLite column format)."""
    if value is None:
        return None
    v = ensure_utc(value)
    return f"{v.year:04d}-{v:%m-%dT%H:%M:%S.%f}Z"  # %Y does not pad years below 1000


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)


def micros(value: datetime) -> int:
    """Exact microseconds since 1970 (a float timestamp loses microseconds near year 9999)."""
    return (ensure_utc(value) - _EPOCH) // _MICRO


def from_iso(value: str | None) -> datetime | None:
    """Inverse of :func:`to_iso` (fromisoformat is far faster than strptime)."""
    if value is None:
        return None
    return datetime.fromisoformat(value)


def days_between(later: datetime, earlier: datetime) -> float:
    return (later - earlier).total_seconds() / 86400.0


class Clock:
    """Transaction-time source. ``SystemClock`` in production; ``FixedClock`` replays
    recorded histories (the contradiction bench, tests)."""

    def now(self) -> datetime:  # pragma: no cover - interface
        raise NotImplementedError


class SystemClock(Clock):
    def now(self) -> datetime:
        return utcnow()


class FixedClock(Clock):
    def __init__(self, at: datetime):
        self.at = ensure_utc(at)

    def set(self, at: datetime) -> None:
        self.at = ensure_utc(at)

    def advance(self, delta: timedelta) -> None:
        self.at = self.at + delta

    def now(self) -> datetime:
        return self.at

