from datetime import UTC, datetime

import pytest

from kg_memory.extract.dates import duration, period_end, resolve

T = datetime(2025, 6, 18, 15, 0, tzinfo=UTC)  # a Wednesday


@pytest.mark.parametrize("text,start,end", [
    ("I moved to Austin in March 2025.", datetime(2025, 3, 1, tzinfo=UTC), None),
    ("I went vegan last month.", datetime(2025, 5, 1, tzinfo=UTC), None),
    ("I quit yesterday.", datetime(2025, 6, 17, tzinfo=UTC), None),
    ("We married last Saturday.", datetime(2025, 6, 14, tzinfo=UTC), None),
    ("I went to a poetry reading last Fri.", datetime(2025, 6, 13, tzinfo=UTC), None),
    ("we met up last Thurs", datetime(2025, 6, 12, tzinfo=UTC), None),
    ("last Wed", datetime(2025, 6, 11, tzinfo=UTC), None),  # said on a Wednesday: a week back
    ("adopted a cat last weekend", datetime(2025, 6, 14, tzinfo=UTC), None),
    ("I switched last week", datetime(2025, 6, 11, tzinfo=UTC), None),
    ("from 2015 to 2018", datetime(2015, 1, 1, tzinfo=UTC), datetime(2019, 1, 1, tzinfo=UTC)),
    ("back in 2019", datetime(2019, 1, 1, tzinfo=UTC), None),
    ("3 weeks ago", datetime(2025, 5, 28, tzinfo=UTC), None),
    ("on 4 July 2024", datetime(2024, 7, 4, tzinfo=UTC), None),
    ("on July 4, 2024", datetime(2024, 7, 4, tzinfo=UTC), None),
    ("in September", datetime(2024, 9, 1, tzinfo=UTC), None),  # later in the year: last year's
    ("in May", datetime(2025, 5, 1, tzinfo=UTC), None),
    ("we're moving to Leiden in September", datetime(2025, 9, 1, tzinfo=UTC), None),  # what is ahead: this year's
    ("I'll start at Fenwick in August", datetime(2025, 8, 1, tzinfo=UTC), None),
    ("I'm starting in March", datetime(2025, 3, 1, tzinfo=UTC), None),  # (a month gone: the last one)
    ("we moved to Leiden in September", datetime(2024, 9, 1, tzinfo=UTC), None),
    ("this fall", datetime(2025, 9, 1, tzinfo=UTC), None),  # said in June: the coming fall
    ("last summer", datetime(2024, 6, 1, tzinfo=UTC), None),  # this summer has not ended yet
])
def test_resolve(text: str, start: datetime, end: datetime | None):
    span = resolve(text, T)
    assert span is not None, text
    assert (span.start, span.end) == (start, end)


def test_no_date():
    assert resolve("I like tea", T) is None
    assert resolve("I last sat here with Tom", T) is None  # a lower-case "sat" is the verb, not Saturday


def test_abbreviated_weekdays_are_written_out_for_the_parser():
    from kg_memory.extract.dates import expand_weekdays

    assert expand_weekdays("a poetry reading last Fri!") == "a poetry reading last Friday!"
    assert expand_weekdays("On Thurs we met; since Tue, nothing") == "On Thursday we met; since Tuesday, nothing"
    assert expand_weekdays("we sat in the Sun last sat") == "we sat in the Sun last sat"
    assert expand_weekdays("Sun's out") == "Sun's out"


def test_period_and_duration():
    span = resolve("back in 2019", T)
    assert span is not None and period_end(span) == datetime(2020, 1, 1, tzinfo=UTC)
    assert duration("for a year", datetime(2019, 1, 1, tzinfo=UTC)) == datetime(2020, 1, 1, tzinfo=UTC)
    assert duration("for 3 months", datetime(2019, 1, 1, tzinfo=UTC)) == datetime(2019, 4, 1, tzinfo=UTC)


def test_time_cues_for_recall():
    from kg_memory.extract.dates import asks_for_time, mentions_time, query_periods

    assert asks_for_time("When did Melanie go camping?")
    assert asks_for_time("How long has she been painting?")
    assert asks_for_time("What year did they marry?")
    assert not asks_for_time("Where does Maya live?")
    assert mentions_time("I've known these friends for 4 years")
    assert mentions_time("Seven years now, and I still love it")
    assert mentions_time("I got mentored yesterday")
    assert mentions_time("We went there last summer")
    assert not mentions_time("Sounds great, see you!")
    assert query_periods("When did she go camping in June?") == ({6}, set())
    assert query_periods("What did I say in May 2023?") == ({5}, {2023})
    assert query_periods("May I ask what you ate?") == (set(), set())  # "may" the verb


def test_a_clause_joined_with_its_own_subject_is_dated_by_its_own_words():
    """"I left the band in March and I'm drumming with The Vines now": March is the leaving's, not the new band's."""
    from kg_memory.extract.dates import in_clause

    said = datetime(2025, 10, 20, 12, tzinfo=UTC)
    sentence = "I left the band in March and I'm drumming with The Vines now."
    span = resolve(sentence, said)
    assert in_clause(sentence, sentence.find("band"), said, span).start.month == 3
    assert in_clause(sentence, sentence.find("Vines"), said, span) is None
    joined = "We moved to Hull and Leeds in May."  # (no subject of its own after "and": one clause)
    assert in_clause(joined, joined.find("Leeds"), said, resolve(joined, said)).start.month == 5
