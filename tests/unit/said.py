"""What an extractor reads of one user turn, as the extraction tests compare it."""

from __future__ import annotations

from datetime import UTC, datetime

from kg_memory.core.models import Episode

T = datetime(2026, 4, 10, 10, tzinfo=UTC)


def facts_said(extractor, text, at=T):
    """(subject in lower case, predicate, object, ending) of each fact the turn ``text`` gives."""
    ep = Episode(group_id="g", role="user", content=text, occurred_at=at, created_at=at)
    return {(f.subject.lower(), f.predicate, f.object, f.ending) for f in extractor.extract(ep).facts}
