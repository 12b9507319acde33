"""What a clause says of a thing made over, taken on or kept somewhere (rules-28): "rebuilt X as Y" makes Y X's
value; "has taken on X from Y" hands X over; a name said to be kept at a place is there (not the place's value);
"Mum ..." is the speaker's mum; "a lovely guy called Ravi" is Ravi. Sentences of their own, none of the update
sets'."""

from __future__ import annotations

from .said import facts_said as _facts


def test_a_thing_remade_as_another_has_that_value_now(under):
    said = _facts(under("escaperooms"), "We've refitted the Vault as a haunted library.")
    assert ("vault", "room_theme", "haunted library", False) in said
    turned = _facts(under("escaperooms"), "We turned the attic room into a jungle temple.")
    assert ("attic", "room_theme", "jungle temple", False) in turned  # (a room of the group's said by its name)


def test_ones_own_thing_made_into_another_is_no_slots_value(rules):
    said = _facts(rules, "I'm hoping to turn my baking hobby into a business.")
    assert not any(f[1] in ("works_at", "likes", "has_hobby") and f[2] == "business" for f in said), said


def test_a_role_taken_on_from_someone_is_handed_over(under):
    said = {f[1:] for f in _facts(under("rescue"), "Alun has taken on callout coordination from Sian.")}
    assert ("callout_coordinator", "Alun", False) in said  # (whose slot it is, the one who holds it settles:
    assert ("callout_coordinator", "Sian", True) in said  # tests/contract/test_holders_by_name.py)


def test_a_name_kept_at_a_place_is_there_not_the_places_value(under):
    said = _facts(under("rescue"), "The new Defender is kept at the Braithwaite base.")
    assert ("defender", "based_at", "Braithwaite base", False) in said
    assert not any(f[0] == "braithwaite" for f in said), said


def test_an_elder_said_as_a_name_is_the_speakers(rules):
    said = _facts(rules, "Mum has moved to Whitby.")
    assert ("user's mum", "lives_in", "Whitby", False) in said
    assert not any(f[0] == "mum" for f in said), said
    # a name that only starts like one is nobody's elder
    assert not any(f[0].startswith("user's") for f in _facts(rules, "Nana Mouskouri lives in Geneva."))


def test_someone_said_with_a_word_of_praise_before_their_name_is_the_name(rules):
    assert ("user", "partner", "Idris", False) in _facts(rules, "I'm with a really sweet guy called Idris.")
