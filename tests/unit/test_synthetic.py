"""The scale benchmark's dialogue generator."""

from datetime import UTC, datetime, timedelta

from kg_memory.bench.synthetic import generate


def test_same_seed_same_episodes_and_a_realistic_timeline():
    a, b = list(generate(3000, seed=7)), list(generate(3000, seed=7))
    assert [(e.content, e.occurred_at, e.role) for e in a] == [(e.content, e.occurred_at, e.role) for e in b]
    assert [e.content for e in generate(3000, seed=8)] != [e.content for e in a]
    assert len({e.content for e in a}) == len(a)  # every turn distinct
    assert {e.role for e in a} == {"user", "assistant"}
    times = [e.occurred_at for e in a]
    assert times == sorted(times)
    # Whatever the size, the history spans about three years from 2023 and ends in the past.
    for n in (500, 3000, 30000):
        eps = list(generate(n, seed=1))
        first, last = eps[0].occurred_at, eps[-1].occurred_at
        assert first >= datetime(2023, 1, 1, tzinfo=UTC)
        assert timedelta(days=2 * 365) < last - first < timedelta(days=4 * 365)
    sessions: dict[str, list[datetime]] = {}
    for e in a:
        sessions.setdefault(e.session_id or "", []).append(e.occurred_at)
    spans = sorted((min(t), max(t)) for t in sessions.values())
    assert all(prev[1] < nxt[0] for prev, nxt in zip(spans, spans[1:], strict=False))  # sessions never overlap


def test_groups_split_the_episodes():
    eps = list(generate(1000, seed=3, groups=4))
    assert len(eps) == 1000
    assert len({e.group_id for e in eps}) == 4
