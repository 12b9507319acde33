"""An ontology's own examples read back by the offline extractor (`kgmem ontology check --examples`)."""

from __future__ import annotations

from kg_memory.core.ontology import example_line, ontology_from_mapping
from kg_memory.extract.readback import read_examples

RAW = {"extends": "default", "predicates": {"room": {
    "cardinality": "single", "object": "value", "description": "the room in the care home a resident lives in",
    "examples": ["Mrs Patel is in the Primrose room.", "Which room is Mrs Patel in?"]}}}


def test_only_the_files_own_predicates_are_read_and_each_says_what_it_gave(embedder):
    reads = read_examples(ontology_from_mapping(RAW), embedder)
    assert [r.example for r in reads] == RAW["predicates"]["room"]["examples"]
    first, second = reads
    assert first.read and ("Mrs Patel", "room", "Primrose room") in first.read_as
    assert not second.read and second.said() == "nothing"  # (a question states nothing)


def test_an_examples_line_is_the_line_that_says_it():
    text = '[predicates.room]\nexamples = [\n  "A.",\n  "Mrs Patel is in the Primrose room.",\n]\n'
    assert example_line("f.toml", text, "room", "Mrs Patel is in the Primrose room.") == "f.toml:4"
    assert example_line("f.toml", text, "room", "not there") == "f.toml:2"
