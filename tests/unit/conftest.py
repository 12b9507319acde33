"""Fixtures the unit tests share."""

import functools

import pytest

from kg_memory.extract.rules import RulesExtractor


@pytest.fixture(scope="module")
def rules(embedder) -> RulesExtractor:
    """The offline extractor with its parser (part of `make install`: it must be present in the tests)."""
    ex = RulesExtractor(embedder)
    assert ex.parser, "the dependency parser is part of `make install`; it must be present in the tests"
    return ex


@pytest.fixture(scope="module")
def under(embedder):
    """The rules extractor under an example ontology (``tests/fixtures/ontologies/<name>.toml``), built once per name
    for the module."""
    from .said import under as _under

    return functools.cache(lambda name: _under(embedder, name))
