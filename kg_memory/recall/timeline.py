"""A picture of a fact history: for each predicate of an entity, valid time on
the x axis and belief (transaction) time on the y axis, one band per version.

A band spans ``[valid_from, valid_to)`` across and ``[created_at, expired_at)``
down, so a correction shows as a band that stops and another that starts below
it, and superseding as an arrow from the closed version to the one that closed
it. The output is one self-contained SVG (no scripts, no external fonts), or an
HTML page holding it and a table of the same versions."""

from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..core.models import FactVersion
from .history import by_fact, closing, day, instant, short_id

WIDTH = 960
LEFT, RIGHT = 150, 30
PANEL_H = 190
TOP, BOTTOM = 34, 36
MIN_BAND = 10  # px: versions believed for an instant (one ingest) still show
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac")


@dataclass(frozen=True)
class Axis:
    start: datetime
    end: datetime
    lo: float
    hi: float

    def __call__(self, t: datetime) -> float:
        span = (self.end - self.start).total_seconds() or 1.0
        return self.lo + (t - self.start).total_seconds() / span * (self.hi - self.lo)


def _valid_axis(versions: list[FactVersion], now: datetime) -> tuple[datetime, datetime]:
    ends = [t for v in versions for t in (v.valid_from, v.valid_to) if t is not None] or [now]
    start, end = min(ends), max([*ends, min(now, max(ends) + timedelta(days=365))])
    pad = max((end - start) * 0.06, timedelta(days=1))
    return start - pad, end + pad


def _belief_axis(versions: list[FactVersion], now: datetime) -> tuple[datetime, datetime]:
    times = [t for v in versions for t in (v.created_at, v.expired_at) if t is not None]
    start, end = min(times), max([*times, now])
    pad = max((end - start) * 0.08, timedelta(seconds=1))
    return start - pad, end + pad


def _ticks(start: datetime, end: datetime, n: int = 6) -> list[datetime]:
    step = (end - start) / n
    return [start + step * (i + 0.5) for i in range(n)]


def _label(t: datetime, span: timedelta) -> str:
    if span > timedelta(days=3 * 365):
        return f"{t:%Y}"
    if span > timedelta(days=60):
        return f"{t:%Y-%m}"
    if span > timedelta(days=2):
        return f"{t:%Y-%m-%d}"
    return f"{t:%m-%d %H:%M:%S}"


def _panel(pred: str, versions: list[FactVersion], index: dict[str, FactVersion], y0: int,
           now: datetime, colours: dict[str, str]) -> list[str]:
    vx0, vx1 = _valid_axis(versions, now)
    by0, by1 = _belief_axis(versions, now)
    x = Axis(vx0, vx1, LEFT, WIDTH - RIGHT)
    y = Axis(by0, by1, y0 + TOP, y0 + PANEL_H - BOTTOM)
    out = [f'<g class="panel" data-predicate="{html.escape(pred)}">',
           f'<text x="12" y="{y0 + 20}" class="title">{html.escape(versions[0].subject)} · {html.escape(pred)}</text>',
           f'<rect x="{LEFT}" y="{y0 + TOP}" width="{WIDTH - RIGHT - LEFT}" height="{PANEL_H - TOP - BOTTOM}" '
           'class="frame"/>']
    for t in _ticks(vx0, vx1):
        out.append(f'<text x="{x(t):.1f}" y="{y0 + PANEL_H - BOTTOM + 16}" class="tick" text-anchor="middle">'
                   f'{_label(t, vx1 - vx0)}</text>')
    for t in _ticks(by0, by1, 3):
        out.append(f'<text x="{LEFT - 6}" y="{y(t):.1f}" class="tick" text-anchor="end">{_label(t, by1 - by0)}</text>')
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{y0 + PANEL_H - 4}" class="axis" '
               'text-anchor="middle">valid time (when it was true) →</text>')
    out.append(f'<text x="14" y="{y0 + TOP + 12}" class="axis">belief time ↓</text>')
    centres: dict[str, tuple[float, float]] = {}
    for v in versions:
        left = x(v.valid_from) if v.valid_from else LEFT
        right = x(v.valid_to) if v.valid_to else WIDTH - RIGHT
        top = y(v.created_at)
        bottom = max(y(v.expired_at) if v.expired_at else y0 + PANEL_H - BOTTOM, top + MIN_BAND)
        why = closing(v, index)
        state = "current" if v.expired_at is None else "closed"
        tip = (f"{v.subject} {v.predicate} {v.object}; valid {v.valid_from or 'always'} to {v.valid_to or 'open'}; "
               f"believed {v.created_at} to {v.expired_at or 'now'}; {why.text}")
        out.append(f'<rect class="version {state}" data-id="{v.id}" data-object="{html.escape(v.object)}" '
                   f'data-closing="{why.kind}" x="{left:.1f}" y="{top:.1f}" width="{max(right - left, 2):.1f}" '
                   f'height="{bottom - top:.1f}" fill="{colours[v.fact_id]}"><title>{html.escape(tip)}</title></rect>')
        out.append(f'<text class="band" x="{left + 4:.1f}" y="{top + 9:.1f}">{html.escape(v.object)}'
                   f'{"" if v.expired_at is None else " ✕"}</text>')
        centres[v.id] = ((left + right) / 2, top)
    for v in versions:
        why = closing(v, index)
        if why.by in centres and why.kind in ("superseded", "corrected", "ended"):
            (x1, y1), (x2, y2) = centres[v.id], centres[why.by]
            out.append(f'<line class="supersede" data-from="{v.id}" data-to="{why.by}" x1="{x1:.1f}" '
                       f'y1="{y1 + MIN_BAND:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" marker-end="url(#arrow)"/>')
    out.append("</g>")
    return out


_STYLE = """
.title{font:600 14px sans-serif}.tick{font:10px sans-serif;fill:#555}.axis{font:11px sans-serif;fill:#333}
.frame{fill:#fafafa;stroke:#ccc}.version{fill-opacity:.55;stroke:#222;stroke-width:.6}
.version.closed{fill-opacity:.25;stroke-dasharray:4 2}.band{font:11px sans-serif;fill:#111}
.supersede{stroke:#c0392b;stroke-width:1.4}
"""


def render_svg(entity: str, versions: list[FactVersion], now: datetime) -> str:
    """The picture as one SVG document."""
    groups = by_fact(versions)
    colours = {fid: PALETTE[i % len(PALETTE)] for i, (fid, _) in enumerate(groups)}
    index = {v.id: v for v in versions}
    panels: dict[str, list[FactVersion]] = {}
    for _, vs in groups:
        panels.setdefault(vs[0].predicate, []).extend(vs)
    body: list[str] = []
    for i, (pred, vs) in enumerate(panels.items()):
        body.extend(_panel(pred, vs, index, 30 + i * PANEL_H, now, colours))
    height = 40 + len(panels) * PANEL_H
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="fact timeline of {html.escape(entity)}">'
            f'<style>{_STYLE}</style><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" '
            'markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" '
            'fill="#c0392b"/></marker></defs>'
            f'<text x="12" y="20" class="title">Fact timeline: {html.escape(entity)} '
            f'({len(versions)} versions, {len(groups)} facts)</text>')
    return head + "".join(body) + "</svg>"


def render_html(entity: str, versions: list[FactVersion], now: datetime) -> str:
    """A page with the picture and, below it, the same versions as a table."""
    index = {v.id: v for v in versions}
    rows = []
    for _, vs in by_fact(versions):
        for v in vs:
            valid = f"{day(v.valid_from, 'always')} → {day(v.valid_to)}"
            cells = (short_id(v.id), v.predicate, v.object, valid,
                     f"{instant(v.created_at)} → {instant(v.expired_at) if v.expired_at else 'now'}",
                     v.reinforcement_count, closing(v, index).text)
            rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    return ("<!doctype html><html><head><meta charset='utf-8'>"
            f"<title>kgmem timeline: {html.escape(entity)}</title>"
            "<style>body{font:13px sans-serif;margin:20px}table{border-collapse:collapse;margin-top:16px}"
            "td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}</style></head><body>"
            f"<h1>{html.escape(entity)}</h1>"
            "<p>Across: valid time, when each fact was true. Down: belief time, when kgmem held it. "
            "Dashed bands are versions no longer believed; red arrows point to the version that closed them.</p>"
            + render_svg(entity, versions, now)
            + "<table><thead><tr><th>version</th><th>predicate</th><th>value</th><th>valid</th><th>believed</th>"
              "<th>evidence</th><th>closing</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
            "</body></html>")
