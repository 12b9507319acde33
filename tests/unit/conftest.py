"""Fixtures the unit tests share."""

import pytest

from kg_memory.extract.rules import RulesExtractor


@pytest.fixture(scope="module")
def rules(embedder) -> RulesExtractor:
    """The offline extractor with its parser (part of `make install`: it must be present in the tests)."""
    ex = RulesExtractor(embedder)
    assert ex.parser, "the dependency parser is part of `make install`; it must be present in the tests"
    return ex
