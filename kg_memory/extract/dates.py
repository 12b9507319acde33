"""Resolve dates written in text against the time an episode was said.

Pure functions. ``resolve(text, said_at)`` returns a :class:`DateSpan` for the
first date expression found, or ``None``. Conventions (closed-open):

* "in March 2025" / "since 2020" / "last month": a start, open end;
* "from 2015 to 2018": ``[2015-01-01, 2019-01-01)`` (the end year is included);
* "back in 2019", "in 2019" with a past-tense verb, "for a year": the caller
  bounds the span with :func:`period_end` / ``duration``.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..core.timeutil import MONTHS

_MONTH = (r"(january|february|march|april|may|june|july|august|september|october|november|december|"
          r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?")
_NUM_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
              "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3, "several": 3}
_NUM = r"(\d+|a couple of|a few|several|an|a|one|two|three|four|five|six|seven|eight|nine|ten)"
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
# A weekday as chat writes it ("last Fri", "on Thurs"): capitalised only, since "sat", "sun" and "wed" are words.
_SHORT_WEEKDAYS = r"(?-i:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)"
_WEEKDAY = rf"({'|'.join(_WEEKDAYS)}|{_SHORT_WEEKDAYS})"
_SHORT_WEEKDAY = re.compile(rf"\b((?i:last|on|this|next|since))\s+({_SHORT_WEEKDAYS})\b(?!')")
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


@dataclass(frozen=True)
class DateSpan:
    start: datetime
    end: datetime | None = None
    granularity: str = "day"  # day | month | year
    phrase: str = ""


def _day(dt: datetime) -> datetime:
    return datetime(dt.year, dt.month, dt.day, tzinfo=UTC)


def _month_start(y: int, m: int) -> datetime:
    return datetime(y, m, 1, tzinfo=UTC)


def add_months(dt: datetime, n: int) -> datetime:
    y, m = divmod(dt.month - 1 + n, 12)
    year, month = dt.year + y, m + 1
    day = min(dt.day, calendar.monthrange(year, month)[1])
    return dt.replace(year=year, month=month, day=day)


def period_end(span: DateSpan) -> datetime:
    """The exclusive end of the period a span names (its year, month or day)."""
    if span.granularity == "year":
        return datetime(span.start.year + 1, 1, 1, tzinfo=UTC)
    if span.granularity == "month":
        return add_months(_month_start(span.start.year, span.start.month), 1)
    return span.start + timedelta(days=1)


def began(span: DateSpan | None, date_value: str = "") -> DateSpan | None:
    """The date a fact began, if the sentence says one: not a date slot's own value, ``date_value`` ("the
    wedding is on 14 June")."""
    if span is None or (date_value and span.phrase and span.phrase.lower() in date_value.lower()):
        return None
    return span


def started_by(span: DateSpan | None, said_at: datetime) -> datetime | None:
    """For a start said as a month or a year, the latest it may have begun: the period's end, or when it was
    said if sooner; None for a day."""
    if span is None or span.granularity == "day":
        return None
    return min(period_end(span), said_at)


def _num(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _NUM_WORDS.get(word, 1)


def shift(dt: datetime, n: int, unit: str) -> datetime:
    unit = unit.lower().rstrip("s")
    if unit == "day":
        return dt + timedelta(days=n)
    if unit == "week":
        return dt + timedelta(weeks=n)
    if unit == "month":
        return add_months(dt, n)
    if unit == "year":
        return add_months(dt, 12 * n)
    raise ValueError(unit)


def duration(text: str, start: datetime) -> datetime | None:
    """'for a year', 'for 3 months' -> start + that long."""
    m = re.search(rf"\bfor\s+{_NUM}\s+(day|week|month|year)s?\b", text, re.I)
    if not m:
        return None
    return shift(start, _num(m.group(1)), m.group(2))


_PATTERNS: list[tuple[str, str]] = [
    ("range_years", r"\bfrom\s+(\d{4})\s+(?:to|until|till|through)\s+(\d{4})\b"),
    ("range_months", rf"\bfrom\s+{_MONTH}\s+(\d{{4}})\s+(?:to|until|till|through)\s+{_MONTH}\s+(\d{{4}})\b"),
    ("iso", r"\b(\d{4})-(\d{2})-(\d{2})\b"),
    ("day_month_year", rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})\b"),
    ("month_day_year", rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b"),
    ("month_year", rf"\b{_MONTH}\s+(?:of\s+)?(\d{{4}})\b"),
    ("ago", rf"\b{_NUM}\s+(day|week|month|year)s?\s+ago\b"),
    ("yesterday", r"\byesterday\b"),
    ("day_before_yesterday", r"\bthe day before yesterday\b"),
    ("last_weekday", rf"\blast\s+{_WEEKDAY}\b"),
    ("last_weekend", r"\blast\s+weekend\b"),
    ("last_unit", r"\blast\s+(week|month|year)\b"),
    ("next_unit", r"\bnext\s+(week|month|year)\b"),
    ("this_season", r"\b(?:this|last)\s+(spring|summer|fall|autumn|winter)\b"),
    ("in_month", rf"\b(?:in|since)\s+{_MONTH}(?!\s+\d)\b"),
    ("year", r"\b(?:in|since|back in|during|around)\s+((?:19|20)\d{2})\b"),
    ("today", r"\b(?:today|this morning|tonight|this evening|earlier today)\b"),
]
_COMPILED = [(name, re.compile(rx, re.I)) for name, rx in _PATTERNS]
# a clause said of what is ahead, before its month ("we're moving ... in July", "I'll start in July"): the month to
# come, when it is later in the year than the day it is said (else the last one, as "in March" said in June)
_AHEAD = re.compile(r"\b(?:will|shall|going\s+to|gonna|about\s+to|due\s+to|plan(?:ning)?\s+to)\b|['’]ll\b"
                    r"|\b(?:(?:I\s+am|I['’]m|we\s+are|we['’]re|they\s+are|they['’]re)\s+(?:\w+\s+)?\w+ing)\b", re.I)


CLAUSE_BREAK = re.compile(r"\s*[;:]\s+|\s+[—–-]\s+")  # where one clause of a sentence ends and the next begins


# and where a clause joined with its own subject and verb begins ("Finished my last term in June and I'm tutoring now")
_DATED_APART = re.compile(rf"{CLAUSE_BREAK.pattern}|,?\s+and\s+(?=(?:I|we)(?:['’](?:m|ve|re)|\s+(?:am|are|have))\b)")
# (not a subject joined to another: "Ola and I split up in April")


def in_clause(sentence: str, at: int, said_at: datetime, span: DateSpan | None) -> DateSpan | None:
    """The date said in the clause of ``sentence`` holding position ``at``, else the sentence's ``span``: "Jonah
    and I called it a day in April; I've been with Theo since August" dates each clause by its own."""
    bounds = [0, *(i for m in _DATED_APART.finditer(sentence) for i in (m.start(), m.end())), len(sentence)]
    if len(bounds) == 2:
        return span  # (one clause: the sentence's date)
    clause = next(sentence[a:b] for a, b in zip(bounds[::2], bounds[1::2], strict=True) if at <= b)
    return resolve(clause, said_at) or (span if span is not None and span.phrase and span.phrase in clause else None)


def resolve(text: str, said_at: datetime) -> DateSpan | None:
    """The first date expression in ``text``, resolved against ``said_at``."""
    best: tuple[int, DateSpan] | None = None
    for name, rx in _COMPILED:
        m = rx.search(text)
        if not m:
            continue
        span = _build(name, m, said_at)
        if span is not None and (best is None or m.start() < best[0]):
            best = (m.start(), span)
    return best[1] if best else None


def _weekday(word: str) -> int:
    """Monday = 0, from the name or its abbreviation ("Fri", "Thurs")."""
    return [d[:3] for d in _WEEKDAYS].index(word[:3].lower())


def expand_weekdays(text: str) -> str:
    """"last Fri" as "last Friday": the parser tags an abbreviated weekday as a noun of the object
    ("a poetry reading last Fri" -> "poetry"), and the date patterns read the full name."""
    return _SHORT_WEEKDAY.sub(lambda m: f"{m.group(1)} {_WEEKDAYS[_weekday(m.group(2))].title()}", text)


def _month(word: str) -> int:
    return MONTHS[word.lower().rstrip(".")]


def _build(name: str, m: re.Match[str], t: datetime) -> DateSpan | None:
    g = m.groups()
    phrase = m.group(0)
    today = _day(t)
    try:
        if name == "range_years":
            a, b = int(g[0]), int(g[1])
            return DateSpan(datetime(a, 1, 1, tzinfo=UTC), datetime(b + 1, 1, 1, tzinfo=UTC), "year", phrase)
        if name == "range_months":
            start = _month_start(int(g[1]), _month(g[0]))
            end = add_months(_month_start(int(g[3]), _month(g[2])), 1)
            return DateSpan(start, end, "month", phrase)
        if name == "iso":
            return DateSpan(datetime(int(g[0]), int(g[1]), int(g[2]), tzinfo=UTC), None, "day", phrase)
        if name == "day_month_year":
            return DateSpan(datetime(int(g[2]), _month(g[1]), int(g[0]), tzinfo=UTC), None, "day", phrase)
        if name == "month_day_year":
            return DateSpan(datetime(int(g[2]), _month(g[0]), int(g[1]), tzinfo=UTC), None, "day", phrase)
        if name == "month_year":
            return DateSpan(_month_start(int(g[1]), _month(g[0])), None, "month", phrase)
        if name == "ago":
            return DateSpan(_day(shift(t, -_num(g[0]), g[1])), None, "day", phrase)
        if name == "yesterday":
            return DateSpan(today - timedelta(days=1), None, "day", phrase)
        if name == "day_before_yesterday":
            return DateSpan(today - timedelta(days=2), None, "day", phrase)
        if name == "last_weekday":
            target = _weekday(g[0])
            back = (today.weekday() - target) % 7 or 7
            return DateSpan(today - timedelta(days=back), None, "day", phrase)
        if name == "last_weekend":
            back = (today.weekday() - 5) % 7 or 7
            return DateSpan(today - timedelta(days=back), None, "day", phrase)
        if name == "last_unit":
            unit = g[0].lower()
            if unit == "week":
                return DateSpan(today - timedelta(days=7), None, "day", phrase)
            if unit == "month":
                prev = add_months(_month_start(t.year, t.month), -1)
                return DateSpan(prev, None, "month", phrase)
            return DateSpan(datetime(t.year - 1, 1, 1, tzinfo=UTC), None, "year", phrase)
        if name == "next_unit":
            unit = g[0].lower()
            if unit == "week":
                return DateSpan(today + timedelta(days=7), None, "day", phrase)
            if unit == "month":
                return DateSpan(add_months(_month_start(t.year, t.month), 1), None, "month", phrase)
            return DateSpan(datetime(t.year + 1, 1, 1, tzinfo=UTC), None, "year", phrase)
        if name == "this_season":
            month = _SEASONS[g[0].lower()]
            if phrase.lower().startswith("last"):
                # the latest season of that name that has already ended
                year = t.year if add_months(_month_start(t.year, month), 3) <= t else t.year - 1
            else:
                # this season: the one of the current year (winter straddles the new year)
                year = t.year - 1 if month == 12 and t.month < 3 else t.year
            return DateSpan(_month_start(year, month), None, "month", phrase)
        if name == "in_month":
            month = _month(g[0])
            year = t.year if month <= t.month else t.year - 1
            if _AHEAD.search(m.string[:m.start()]) and month > t.month:
                year = t.year  # "we're moving to Delft in July", said in May: the coming July
            return DateSpan(_month_start(year, month), None, "month", phrase)
        if name == "year":
            return DateSpan(datetime(int(g[0]), 1, 1, tzinfo=UTC), None, "year", phrase)
        if name == "today":
            return DateSpan(t, None, "day", phrase)
    except (ValueError, KeyError):
        return None
    return None


# -- time cues for recall ------------------------------------------------------
_ASKS_TIME = re.compile(
    r"\b(when|how long|how many (?:years|months|weeks|days)|what (?:year|month|day|date|time)|since when)\b", re.I)
_DURATION = re.compile(rf"\b(?:{_NUM}\s+(?:day|week|month|year|decade)s?|since|ago|recently|lately|"
                       r"last night|this (?:week|weekend|month|year)|tomorrow|(?:19|20)\d{2})\b", re.I)
_FULL_MONTHS = ("january|february|march|april|june|july|august|september|october|november|december")
_QUERY_MONTH = re.compile(rf"\b(?:in|during|of|last|this|early|late|mid)[\s-]+({_FULL_MONTHS}|may)\b"
                          rf"|\b({_FULL_MONTHS})\b", re.I)
_QUERY_YEAR = re.compile(r"\b((?:19|20)\d{2})\b")


def asks_for_time(question: str) -> bool:
    """Whether a question asks when, or for how long, something happened."""
    return bool(_ASKS_TIME.search(question))


_ANY_TIME = re.compile("|".join([_DURATION.pattern, *(f"(?:{rx})" for _, rx in _PATTERNS)]), re.I)


_TIME_WORDS = frozenset(
    "yesterday today tonight tomorrow ago since recently lately morning evening night weekend week weeks month "
    "months year years day days decade decades spring summer fall autumn winter mon tue tues wed thu thur thurs "
    "fri sat sun".split()
) | frozenset(MONTHS) | frozenset(_WEEKDAYS)  # every pattern above needs one of these words, or a digit
_WORD = re.compile(r"[a-z]+|\d")


_A_WEEKDAY = re.compile(r"\b(?i:mon|tues|wednes|thurs|fri|satur|sun)days?\b(?!\s+[A-Z])")  # (not "Sunday League")


def names_a_weekday(text: str) -> bool:
    """Does the text name a day of the week ("Fridays", "the first Monday of the month"; not a name that
    begins with one, "Sunday League")?"""
    return _A_WEEKDAY.search(text) is not None


def is_time_word(word: str) -> bool:
    """Is the word one that says when ("Monday", "March", "today")?"""
    return word.lower() in _TIME_WORDS


def mentions_time(text: str) -> bool:
    """Whether text says when or for how long (a date, "yesterday", "for 4
    years", "since 2016", "last week"...): the turns that can answer a "when"."""
    words = set(_WORD.findall(text.lower()))
    if not any(w in _TIME_WORDS or w.isdigit() for w in words):  # cheap test first: most turns have none
        return False
    return bool(_ANY_TIME.search(text))


def query_periods(question: str) -> tuple[set[int], set[int]]:
    """Months (1-12) and years a question names: "camping in June" -> ({6}, set()).
    "may" counts only after "in"/"during"/..., since it is usually a verb."""
    months = {MONTHS[(m.group(1) or m.group(2)).lower()] for m in _QUERY_MONTH.finditer(question)}
    years = {int(y) for y in _QUERY_YEAR.findall(question)}
    return months, years
