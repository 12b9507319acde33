"""Canonicalisation of proposed facts, and windows of turns for the LLM."""

from datetime import UTC, datetime, timedelta

import pytest

from kg_memory.core.models import Episode
from kg_memory.core.vocab import load_vocabulary
from kg_memory.extract.canonical import Canonicalizer, snake
from kg_memory.ingest.pipeline import windows

T = datetime(2025, 6, 1, 12, tzinfo=UTC)


@pytest.fixture(scope="module")
def canon(embedder) -> Canonicalizer:
    return Canonicalizer(load_vocabulary(), embedder)


def test_predicates_by_name_phrase_and_meaning(canon: Canonicalizer):
    assert canon.predicate("lives_in").how == "name"
    m = canon.predicate("moved to", "Seattle")
    assert (m.name, m.how) == ("lives_in", "phrase")
    m = canon.predicate("took a job with", "Bosch")  # not a listed phrase: by meaning
    assert m.name == "works_at" and m.how == "embedding" and m.similarity >= canon.threshold
    assert canon.predicate("settled down in", "Austin").name == "lives_in"
    assert canon.predicate("report to", "Dana").name == "has_manager"


def test_a_relation_that_names_a_source_is_not_matched_by_meaning(canon: Canonicalizer):
    """"moved from Sweden" sits near "lives in" but says the opposite: it stays an open predicate."""
    for relation in ("moved from", "move from", "graduate from"):
        m = canon.predicate(relation, "Sweden")
        assert not m.known and m.how == "open", (relation, m)
    assert canon.predicate("moved to", "Sweden").name == "lives_in"  # the listed phrase still maps


def test_a_bare_generic_verb_is_not_matched_by_meaning(canon: Canonicalizer):
    """"I'm having an LGBTQ art show" sat near has_friend by meaning (0.69): a bare have/get/make says
    nothing of which predicate it is, so it stays open. "go vegan" still reaches diet."""
    for verb in ("have", "having", "get", "make", "take"):
        m = canon.predicate(verb, "LGBTQ Art Show")
        assert not m.known and m.how == "open", (verb, m)
    assert canon.predicate("go", "vegan").name == "diet"


def test_the_object_must_fit_the_predicate(canon: Canonicalizer):
    # "went to" is near "went vegan" (diet), but a beach is not a diet: the predicate stays open
    m = canon.predicate("went to", "the beach")
    assert not m.known and m.name == "went_to"
    # a vocabulary name with the wrong kind of object is a misfit, which callers drop
    assert canon.predicate("diet", "the beach").how == "misfit"
    assert canon.predicate("diet", "fully vegan").known
    assert canon.predicate("lives_in", "downtown").how == "misfit"  # an entity predicate takes a name
    # ambiguous meanings (learning: a language or an instrument?) do not map
    assert not canon.predicate("learning").known


def test_unknown_predicates_stay_open_and_multi_valued(canon: Canonicalizer):
    m = canon.predicate("attended", "a pottery workshop")
    assert not m.known and m.name == "attended"
    assert not load_vocabulary().is_single(m.name)
    assert canon.predicate("!!!").name == "related_to"
    assert snake("Signed Up For") == "signed_up_for" and snake("2 cats") == "p_2_cats"


def test_a_restated_fact_belongs_to_the_speaker_a_relative_or_a_named_third_person():
    text = "My sister Maya moved to Porto; Ben, I stayed."
    owned = Canonicalizer.owned
    assert owned("Ana", "Ana", {"Ana", "Ben"}, text) and owned("Ana's sister", "Ana", {"Ana", "Ben"}, text)
    assert owned("Maya", "Ana", {"Ana", "Ben"}, text)          # a third person the turn names
    assert not owned("Ben", "Ana", {"Ana", "Ben"}, text)       # the other participant says his own facts
    assert not owned("Lisbon", "Ana", {"Ana"}, text)           # a name the turn never says
    assert not owned("May", "Ana", {"Ana"}, text)              # a word of the turn, not a name in it
    assert not owned("she", "Ana", {"Ana"}, "she moved")


def test_objects_must_be_said_in_the_turn(canon: Canonicalizer):
    text = "We went to a new pottery class in Porto; my cats love it."
    assert canon.grounded("Porto", text) and canon.grounded("pottery class", text) and canon.grounded("cat", text)
    assert not canon.grounded("New York", text)  # "new" is said, "york" is not: an invented city
    assert not canon.grounded("unknown", text)


def ep(i: int, session: str | None) -> Episode:
    return Episode(group_id="g", content=f"turn {i}", occurred_at=T + timedelta(minutes=i), session_id=session,
                   created_at=T)


def test_windows_keep_sessions_apart_and_time_order():
    eps = [ep(i, "s1") for i in range(5)] + [ep(i, "s2") for i in range(5, 8)] + [ep(9, None)]
    got = windows(list(reversed(eps)), 2)
    assert sorted(len(w) for w in got) == [1, 1, 1, 2, 2, 2]
    for w in got:
        assert len({e.session_id for e in w}) == 1
        assert [e.occurred_at for e in w] == sorted(e.occurred_at for e in w)
    assert sum(len(w) for w in got) == len(eps)
    assert len(windows(eps, 8)) == 3  # one window per session here: 5, 3 and 1 turns


def test_a_restated_speech_act_is_told_from_an_event():
    """The model narrates the chat ("Ben asked Ana ..."): such sentences give no fact. The verb must follow
    the subject, so an event whose object is a speech noun ("gave a talk") or a name ("Chatham") stays."""
    from kg_memory.extract.llm import speech_act

    for said in ("Ben asked Ana about Porto.", "Melanie is showing Caroline her painting.", "Ben and Lea thanked Ana.",
                 "Caroline's sister told her about Rome.", "Caroline described the pride parade.",
                 "Caroline is looking at the bowl.", "Melanie chatted about work."):
        assert speech_act(said), said
    for done in ("Caroline gave a talk at a school.", "Ben moved to Chatham.", "Caroline went to a talk.",
                 "Ana started a new show.", "Showtime hired Ana.", "Caroline is researching adoption agencies."):
        assert not speech_act(done), done


def test_a_model_fact_the_turn_already_relates_adds_nothing():
    """A model fact is dropped when the floor already read it: the same predicate and object, or the same
    subject and thing under another relation (put / put_together; owns_car / drives)."""
    from kg_memory.extract.base import ExtractedFact
    from kg_memory.extract.llm import _covered

    t = datetime(2025, 1, 1, tzinfo=UTC)
    vocab = load_vocabulary()

    def fact(pred: str, obj: str, subj: str = "Ana") -> ExtractedFact:
        return ExtractedFact(subject=subj, predicate=pred, object=obj, statement=f"{subj} {pred} {obj}",
                             valid_from=t)

    floor = [fact("put", "LGBTQ art show"), fact("lives_in", "Porto")]
    assert _covered(fact("put_together", "LGBTQ art show"), floor, vocab)
    assert _covered(fact("lives_in", "porto"), floor, vocab)
    assert not _covered(fact("put_together", "LGBTQ art show", subj="Ben"), floor, vocab)  # another person
    # the floor read the clause that names Porto: a model's other predicate for it is a slip
    assert _covered(fact("has_pet", "Porto"), floor, vocab)
    assert not _covered(fact("has_pet", "Miso"), floor, vocab)  # a thing the floor did not relate
    car = [fact("owns_car", "Mini Cooper", subj="User")]
    assert _covered(fact("drives", "Mini Cooper", subj="User"), car, vocab)
    plan = [fact("training_plan", "stronglifts program", subj="User")]
    assert _covered(fact("works_at", "Stronglifts", subj="User"), plan, vocab)  # one names the other
    assert not _covered(fact("works_at", "Stronglifts", subj="Ben"), plan, vocab)
    owner = [fact("account_owner", "Priya", subj="Umbrella")]
    assert _covered(fact("account_owner", "Umbrella", subj="Priya"), owner, vocab)  # the floor's, turned round
    ended = [ExtractedFact(subject="Ana", predicate="works_at", object="Acme", statement="Ana no longer works_at",
                           valid_from=t, ending=True)]
    assert _covered(fact("quit_at", "Acme"), ended, vocab)  # the turn ended it: no open fact keeps it alive


def test_an_open_fact_about_the_chat_partner_is_about_the_chat():
    from kg_memory.extract.base import ExtractedFact
    from kg_memory.extract.llm import to_partner

    t = datetime(2025, 1, 1, tzinfo=UTC)
    vocab = load_vocabulary()
    people = {"Gina", "Jon"}

    def fact(pred: str, obj: str) -> ExtractedFact:
        return ExtractedFact(subject="Gina", predicate=pred, object=obj, statement=f"Gina {pred} {obj}",
                             valid_from=t)

    assert to_partner(fact("encourage", "Jon"), people, vocab)
    assert not to_partner(fact("has_friend", "Jon"), people, vocab)   # a relation is a fact
    assert not to_partner(fact("visit", "Paris"), people, vocab)      # not a participant


def test_a_participants_short_name_is_written_in_full():
    """The model writes "Mel" as the other speaker calls her; the fact is Melanie's, and so is seen as the
    other participant's under Caroline's turn."""
    from kg_memory.extract.llm import full_names

    people = {"Melanie", "Caroline"}
    assert full_names("Mel and Caroline enjoy hiking. Mel's kids.", people) == \
        "Melanie and Caroline enjoy hiking. Melanie's kids."
    assert full_names("Me and Ca went out.", people) == "Me and Ca went out."  # too short to be a name
    assert full_names("Mel met Mark.", {"Melanie", "Melissa"}) == "Mel met Mark."  # two people: no guess


def test_two_mentions_name_one_thing_when_one_holds_the_others_naming_words():
    from kg_memory.extract.llm import same_thing

    assert same_thing("The Cure", "Cure")
    assert same_thing("Stronglifts", "a stronglifts program")
    assert same_thing("Fly.io", "fly.io")
    assert not same_thing("Mini Cooper", "Volvo XC40")
    assert not same_thing("the", "a")  # no naming word: nothing is named
    assert not same_thing("Porto", "Portland")


def test_a_model_value_that_says_more_of_the_floors_replaces_it():
    """The floor read "fitness_goal do" from "My aim is to do ten pull-ups"; the model's "do ten pull-ups"
    holds it and says more, so it takes its place. A value of another slot, or an end, does not."""
    from kg_memory.extract.base import ExtractedFact
    from kg_memory.extract.llm import _cut_short

    t = datetime(2025, 1, 1, tzinfo=UTC)

    def fact(pred: str, obj: str, ending: bool = False) -> ExtractedFact:
        return ExtractedFact(subject="User", predicate=pred, object=obj, statement=f"User {pred} {obj}",
                             valid_from=t, ending=ending)

    floor = [fact("training_plan", "PPL"), fact("fitness_goal", "do")]
    assert _cut_short(fact("fitness_goal", "do ten pull-ups"), floor) == 1
    assert _cut_short(fact("fitness_goal", "do"), floor) is None  # the same value says no more
    assert _cut_short(fact("has_hobby", "do ten pull-ups"), floor) is None  # another slot
    assert _cut_short(fact("fitness_goal", "do ten pull-ups", ending=True), floor) is None


def test_a_model_tie_between_a_slots_old_and_new_holder_adds_nothing():
    """"Mina passed reporting on to Joel": the floor changed reporting's owner from Mina to Joel; the
    model's "Mina has_manager Joel" relates the two holders, which the turn does not say."""
    from kg_memory.extract.base import ExtractedFact
    from kg_memory.extract.llm import _covered

    t = datetime(2025, 1, 1, tzinfo=UTC)
    floor = [ExtractedFact(subject="reporting", predicate="owned_by", object="Joel",
                           statement="reporting owned_by Joel", valid_from=t, replaces="Mina")]
    tie = ExtractedFact(subject="Mina", predicate="has_manager", object="Joel", statement="Mina has_manager Joel",
                        valid_from=t)
    assert _covered(tie, floor, load_vocabulary())
    other = ExtractedFact(subject="Ana", predicate="has_manager", object="Joel", statement="Ana has_manager Joel",
                          valid_from=t)
    assert not _covered(other, floor, load_vocabulary())


def test_a_model_fact_of_one_the_floor_read_only_as_a_value_is_a_slip():
    """"Imran set the blue problem in the cave": the floor read Imran as the problem's setter; the model's "Imran
    wall_section cave" gives a value to one the turn names only as a value. So too one whose slot the turn ended
    ("Halfords let me go"); one's people may hold slots of their own ("My sister Maya lives in Leeds")."""
    from kg_memory.extract.base import ExtractedFact
    from kg_memory.extract.llm import _only_a_value

    t = datetime(2025, 1, 1, tzinfo=UTC)
    vocab = load_vocabulary()

    def fact(subj: str, pred: str, obj: str, ending: bool = False) -> ExtractedFact:
        return ExtractedFact(subject=subj, predicate=pred, object=obj, statement=f"{subj} {pred} {obj}",
                             valid_from=t, ending=ending)

    set_by = [fact("blue problem", "route_setter", "Imran")]
    assert _only_a_value(fact("Imran", "wall_section", "cave"), set_by, vocab)
    assert not _only_a_value(fact("blue problem", "wall_section", "cave"), set_by, vocab)
    let_go = [fact("User", "works_at", "Halfords", ending=True)]
    assert _only_a_value(fact("Halfords", "lives_in", "Leeds"), let_go, vocab)
    sister = [fact("User", "has_sibling", "Maya")]
    assert not _only_a_value(fact("Maya", "lives_in", "Leeds"), sister, vocab)
    both = [*set_by, fact("Imran", "works_at", "Boulder Barn")]  # (the floor read Imran as a subject too)
    assert not _only_a_value(fact("Imran", "wall_section", "cave"), both, vocab)


def test_each_vocabulary_keeps_its_own_exemplars_with_one_embedder(embedder):
    """A group's ontology and the default share the process's embedder; each canonicalizer compares with its own
    predicates (the cache once kept the first vocabulary's, and the default's then named "owned_by")."""
    from pathlib import Path

    from kg_memory.core.ontology import load_ontology_file

    project = load_ontology_file(Path(__file__).resolve().parents[2] / "examples" / "ontologies" / "project.toml")
    own = Canonicalizer(project.vocab, embedder)
    default = Canonicalizer(load_vocabulary(), embedder)
    assert "owned_by" in own._exemplars()[1]
    assert set(default._exemplars()[1]) <= set(load_vocabulary().predicates)
    assert own._exemplars()[0].shape[0] == len(own._exemplars()[1])
