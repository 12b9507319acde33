"""A thing lost to another is handed over to it ("lost the flour contract to Shipton Mill"), and "it" in a clause said
after another is the thing that clause named last ("Becky's off the early swim now; Callum leads it") (rules-29).
Sentences of their own, none of the update sets'."""

from __future__ import annotations

from .said import facts_said as _facts


def test_a_thing_lost_to_a_name_is_handed_over_to_it(under):
    said = _facts(under("bakery"), "Heygates lost the flour contract to Shipton Mill.")
    assert any(f[1] == "ingredient_supplier" and f[2] == "Shipton Mill" and not f[3] for f in said), said
    assert any(f[1] == "ingredient_supplier" and f[2] == "Heygates" and f[3] for f in said), said


def test_it_after_another_clause_is_the_thing_that_clause_named(under):
    said = _facts(under("leisure"), "Priya is off the lunchtime swim now; Dan leads it.")
    assert ("lunchtime swim", "lead_lifeguard", "Dan", False) in said
    assert not any(f[0] == "priya" for f in said), said
