"""Pure helpers behind the Neo4j store's index keys (no server needed)."""

from datetime import UTC, datetime

from kg_memory.core.models import FactVersion
from kg_memory.core.temporal import visible
from kg_memory.store.base import TimeFilter
from kg_memory.store.neo4j.keys import (
    OPEN_END,
    OPEN_START,
    TIME_KEY_MAX,
    group_key,
    interval_keys,
    lucene_query,
    time_key,
)


def t(y: int, m: int = 1, d: int = 1) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def test_time_keys_sort_like_time():
    assert time_key(datetime(2025, 3, 31, 7, 5, 9, 42, tzinfo=UTC), TIME_KEY_MAX) == "20250331070509000042"
    assert time_key(None, TIME_KEY_MAX) == TIME_KEY_MAX and len(TIME_KEY_MAX) == 20
    assert time_key(t(987, 11), "") == "09871101000000000000"
    moments = [t(999, 12), t(2024, 9), datetime(2024, 9, 1, 0, 0, 0, 1, tzinfo=UTC), t(2024, 10), t(2025, 1)]
    keys = [time_key(x, "") for x in moments]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert keys[-1] < TIME_KEY_MAX


def test_interval_keys_stand_in_for_open_ends():
    f = FactVersion(group_id="g", subject_id="s", subject="s", predicate="p", object_id="o", object="o",
                    statement="s p o", valid_from=None, valid_to=t(2024), created_at=t(2023), expired_at=None)
    assert interval_keys(f) == {"tx_end": OPEN_END, "valid_end": t(2024), "valid_start": OPEN_START}
    closed = f.replace(valid_from=t(2022), expired_at=t(2025))
    assert interval_keys(closed) == {"tx_end": t(2025), "valid_end": t(2024), "valid_start": t(2022)}


def test_lucene_query_restricts_group_and_time():
    q = lucene_query("g1", "search_text", "Where does Maya live?", TimeFilter(t(2024, 5, 9), t(2026, 1, 2)))
    assert q is not None
    assert q.startswith(f"group_key:{group_key('g1')} AND ")
    a, k = "20240509000000000000", "20260102000000000000"
    assert f" AND vend:[{a} TO {TIME_KEY_MAX}] AND tend:[{k} TO {TIME_KEY_MAX}] AND " in q
    assert q.endswith("search_text:(maya OR live)")
    assert lucene_query("g1", "index_text", "what is it?") is None  # nothing but stopwords
    injected = lucene_query("g1", "index_text", 'key:value OR group_key:* ) "x')
    assert injected is not None and injected.endswith("index_text:(key OR value OR group_key OR x)")


def test_time_key_ranges_never_drop_a_visible_version():
    """Any version visible at (as_of, known_at) passes the Lucene ranges."""
    cases = [(None, None, t(2020), None), (t(2024, 5, 9), t(2024, 5, 20), t(2024, 5, 9), None),
             (t(2023), t(2024, 5, 10), t(2023), t(2024, 5, 9, ))]
    tf = TimeFilter(as_of=t(2024, 5, 9), known_at=t(2024, 5, 9))
    for vf, vt, created, expired in cases:
        f = FactVersion(group_id="g", subject_id="s", subject="s", predicate="p", object_id="o", object="o",
                        statement="s p o", valid_from=vf, valid_to=vt, created_at=created, expired_at=expired)
        if not visible(f, tf.as_of, tf.known_at):
            continue
        a, k = time_key(tf.as_of, ""), time_key(tf.known_at, "")
        assert a <= time_key(vt, TIME_KEY_MAX) and k <= time_key(expired, TIME_KEY_MAX)
