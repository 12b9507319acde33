"""What an extractor reads of one user turn, as the extraction tests compare it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from kg_memory.core.models import Episode

T = datetime(2026, 4, 10, 10, tzinfo=UTC)


def facts_said(extractor, text, at=T):
    """(subject in lower case, predicate, object, ending) of each fact the turn ``text`` gives."""
    ep = Episode(group_id="g", role="user", content=text, occurred_at=at, created_at=at)
    return {(f.subject.lower(), f.predicate, f.object, f.ending) for f in extractor.extract(ep).facts}


ONTOLOGIES = Path(__file__).resolve().parents[1] / "fixtures" / "ontologies"


def under(embedder, name):
    """The rules extractor reading the example ontology ``tests/fixtures/ontologies/<name>.toml``."""
    from kg_memory.core.ontology import load_ontology_file
    from kg_memory.extract.rules import RulesExtractor

    return RulesExtractor(embedder).with_vocabulary(load_ontology_file(ONTOLOGIES / f"{name}.toml").vocab)
