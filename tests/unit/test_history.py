"""How history reads: valid-time order and the reason each belief closed."""

from datetime import UTC, datetime

from kg_memory.core.models import FactVersion
from kg_memory.recall.history import by_fact, closing, short_id
from kg_memory.recall.timeline import render_svg


def d(y: int, m: int = 1, day: int = 1, h: int = 0) -> datetime:
    return datetime(y, m, day, h, tzinfo=UTC)


def v(obj: str, fact: str, vf: datetime | None, vt: datetime | None = None, created: datetime = d(2026),
      expired: datetime | None = None, by: str | None = None, n: int = 1, vid: str | None = None) -> FactVersion:
    kw = {"id": vid} if vid else {}
    return FactVersion(group_id="g", subject_id="u", subject="User", predicate="lives_in", object_id=obj,
                       object=obj, statement=f"User lives in {obj}", valid_from=vf, valid_to=vt, created_at=created,
                       expired_at=expired, expired_by=by, fact_id=fact, reinforcement_count=n, **kw)


def test_closing_reasons():
    manchester = v("Manchester", "f2", d(2024, 10), created=d(2026), vid="fv_" + "b" * 32)
    salford = v("Salford", "f3", d(2024, 10), created=d(2026, 2), vid="fv_" + "c" * 32)
    leeds_open = v("Leeds", "f1", d(2024), created=d(2026), expired=d(2026), by=manchester.id)
    leeds_cut = v("Leeds", "f1", d(2024), d(2024, 10), created=d(2026), vid="fv_" + "d" * 32)
    corrected = manchester.replace(expired_at=d(2026, 2), expired_by=salford.id)
    again = v("Leeds", "f1", d(2024), d(2024, 10), created=d(2026, 3), n=2)
    restated = leeds_cut.replace(expired_at=d(2026, 3), expired_by=again.id)
    quit_ = v("Leeds", "f1", d(2024), created=d(2026), expired=d(2026), by="ep_" + "e" * 32)
    index = {x.id: x for x in (manchester, salford, leeds_open, leeds_cut, corrected, again, restated)}
    assert closing(salford, index).kind == "current"
    assert closing(leeds_open, index).text == "superseded: Manchester from 2024-10-01"
    assert closing(corrected, index).text == "corrected: Salford instead"
    assert closing(restated, index).text == "restated (evidence +1)"
    ended = v("Leeds", "f1", d(2024), created=d(2026), expired=d(2026, 4), by=leeds_cut.id)
    assert closing(ended, index).text == "ended 2024-10-01"
    assert closing(quit_, index).kind == "ended" and "ep_eeeeeeee" in closing(quit_, index).text
    assert short_id(salford.id) == "fv_cccccccc" and short_id(None) == "-"


def test_history_is_in_valid_time_order():
    late = v("Glasgow", "f0", d(2019), d(2020), created=d(2026, 5))
    cur = v("Leeds", "f1", d(2024), created=d(2026, 1))
    closed = v("Leeds", "f1", d(2024), created=d(2026, 1), expired=d(2026, 1, 1, 5), by=cur.id)
    groups = by_fact([cur, late, closed])
    assert [vs[0].object for _, vs in groups] == ["Glasgow", "Leeds"]  # 2019 first, though believed last
    assert groups[1][1] == [closed, cur]  # at the same instants, the closed belief comes first


def test_timeline_svg_has_a_band_per_version_and_arrows():
    import xml.etree.ElementTree as ET

    manchester = v("Manchester", "f2", d(2024, 10), created=d(2026), vid="fv_" + "b" * 32)
    leeds = v("Leeds", "f1", d(2024), created=d(2026), expired=d(2026, 1, 2), by=manchester.id)
    svg = render_svg("User <&>", [leeds, manchester], now=d(2026, 2))
    root = ET.fromstring(svg)  # well-formed, names escaped
    ns = {"s": "http://www.w3.org/2000/svg"}
    bands = root.findall(".//s:rect[@data-id]", ns)
    assert [b.get("data-object") for b in bands] == ["Leeds", "Manchester"]
    assert all(float(b.get("height", 0)) >= 10 for b in bands)
    (arrow,) = root.findall(".//s:line", ns)
    assert (arrow.get("data-from"), arrow.get("data-to")) == (leeds.id, manchester.id)
    assert "User &lt;&amp;&gt;" in svg
