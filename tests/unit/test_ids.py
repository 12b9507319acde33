"""Ids are namespaced without separator collisions."""

from kg_memory.core.idents import tuple_key
from kg_memory.ingest.formats import scoped_id


def test_crafted_ids_never_collide_across_groups():
    assert scoped_id("a\x1fb", "c") != scoped_id("a", "b\x1fc")
    assert scoped_id("a|b", "c") != scoped_id("a", "b|c")
    assert scoped_id("g", "1") == scoped_id("g", "1")
    assert tuple_key("a", "bc") != tuple_key("ab", "c") != tuple_key("abc")
