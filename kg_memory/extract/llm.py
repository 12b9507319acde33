"""The ``llm`` extractor: one call per window of turns (``prompts/restate_window.j2``,
the default) or one combined structured-output call per episode (``prompts/extract.j2``,
``llm_window = 1``), and the ``judge`` slow path (``prompts/judge.j2``) that the
pipeline calls only for ambiguous facts.

In a window the model restates each turn as short third-person sentences ("Ana moved
to Porto last month."), and the offline extractor reads the facts out of them. A small
local model restates well but labels badly: asked for predicates, the 1.5B model listed
the vocabulary with "unknown" values and put facts under the wrong turn
(docs/benchmarks.md, "The fact layer"). So the model never names a predicate; the parse
and the canonicaliser do, as they do for the turn itself.

Calls per episode are bounded: one extraction call (plus at most one repair
call when the output is invalid), plus at most one judge call (plus one repair)
per ambiguous fact. Retries after 429/5xx/timeouts re-send the same call and
are bounded by ``max_retries``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from ..core.idents import tuple_key
from ..core.models import Episode, FactVersion
from ..core.temporal import names_value
from ..core.timeutil import parse_datetime
from ..core.vocab import Vocabulary, load_vocabulary
from ..embed.base import Embedder
from ..settings import Settings, data_dir
from . import dates, parse, worth
from .base import ExtractContext, ExtractedFact, Extraction
from .canonical import Canonicalizer
from .client import LLMClient, ResponseCache, Usage
from .meaning import ontology_tag
from .prompts import (
    ExtractionResponse,
    JudgeResponse,
    RestatedWindow,
    WindowFacts,
    check_prompts_dir,
    load_prompt,
    restated_window,
    window_facts,
)
from .sentence import SENTENCE
from .succession import with_names


class LLMExtractor:
    name = "llm"
    wants_context = True

    def __init__(self, client: LLMClient, vocab: Vocabulary | None = None, concurrency: int = 4,
                 window: int = 1, embedder: Embedder | None = None, predicate_similarity: float = 0.62,
                 window_prompt: str = "facts_window", prompts_dir: str | None = None):
        """``window_prompt``: how a window is read: ``facts_window`` (the model writes facts under the
        group's ontology) or ``restate_window`` (it restates turns, which the offline extractor reads)."""
        self.client = client
        self.vocab = vocab or load_vocabulary()
        self.window = max(1, window)
        self.prompts_dir = prompts_dir
        self.prompt = load_prompt(window_prompt if self.window > 1 else "extract", prompts_dir)
        self.judge_prompt = load_prompt("judge", prompts_dir)
        self.version: str | None = self.prompt.version + ontology_tag(self.vocab)
        self.concurrency = concurrency
        self.embedder, self.predicate_similarity = embedder, predicate_similarity
        self.canonical = Canonicalizer(self.vocab, embedder, predicate_similarity)
        from .rules import RulesExtractor

        # the deterministic floor under a small model's slips: the offline extractor itself (parse included)
        self.rules = RulesExtractor(embedder, predicate_similarity, vocab=self.vocab)
        self.rules.meaning.rivals = True  # (the model chooses among the near slots of the floor's plain facts)

    def with_vocabulary(self, vocab: Vocabulary) -> LLMExtractor:
        """The same client and settings under another ontology (a group's own)."""
        return LLMExtractor(self.client, vocab, self.concurrency, self.window, self.embedder,
                            self.predicate_similarity, self.prompt.name if self.window > 1 else "facts_window",
                            self.prompts_dir)

    @classmethod
    def from_settings(cls, s: Settings, embedder: Embedder | None = None) -> LLMExtractor:
        key = s.llm_api_key.get_secret_value() if s.llm_api_key else None
        base_url, model = s.llm_base_url, s.llm_model
        concurrency, timeout = s.llm_concurrency, s.llm_timeout
        if not base_url and not key:
            # No endpoint configured: serve the installed local model in this process. It decodes one
            # request at a time, so calls are not sent in parallel, and a window may take minutes.
            from ..errors import ModelMissingError
            from .local import MODEL_NAME, model_path, shared_server

            path = s.llm_model_path or str(model_path())
            if not Path(path).exists():
                raise ModelMissingError(
                    "--extractor llm needs a model endpoint or the local LLM: set KGMEM_LLM_BASE_URL (Ollama, "
                    "vLLM, llama.cpp, ...) or KGMEM_LLM_API_KEY with KGMEM_LLM_MODEL, or install the local LLM "
                    "with `kgmem model install --llm`")
            base_url = shared_server(s.llm_threads, s.llm_ctx, path).start()
            model, concurrency, timeout = MODEL_NAME, 1, max(timeout, 900.0)
        cache = ResponseCache(data_dir() / "llm-cache.db")
        client = LLMClient(base_url=base_url, api_key=key, model=model, timeout=timeout,
                           concurrency=concurrency, max_retries=s.llm_max_retries,
                           retry_base=s.llm_retry_base, cache=cache)
        if s.prompts_dir:
            check_prompts_dir(s.prompts_dir)
        return cls(client, concurrency=concurrency, window=s.llm_window, embedder=embedder,
                   predicate_similarity=s.predicate_similarity, window_prompt=s.llm_window_prompt,
                   prompts_dir=s.prompts_dir)

    def _predicates(self) -> list[dict[str, str]]:
        return [{"name": p.name, "cardinality": "single" if p.single_valued else "multi",
                 "statement": p.statement.replace("{s}", "S").replace("{o}", "O").replace("{r}", "relation")}
                for p in self.vocab.predicates.values()]

    def extract(self, episode: Episode, context: ExtractContext | None = None) -> Extraction:
        if episode.role != "user":
            return Extraction()  # the assistant's turns are indexed, not mined for facts about the user
        speaker = episode.speaker or "User"
        previous = [{"when": f"{t.occurred_at:%Y-%m-%d %H:%M}", "who": t.speaker or t.role, "text": t.content}
                    for t in (context.previous if context else ())]
        text = self.prompt.render(said_at=episode.occurred_at.isoformat(), speaker=speaker, role=episode.role,
                                  previous=previous, content=episode.content, predicates=self._predicates())
        key = tuple_key(*[episode.content_sha256, episode.occurred_at.isoformat(), speaker,
                                          *(p["text"] for p in previous)])
        sources = (episode.content_sha256, *(t.content_sha256 for t in (context.previous if context else ())))
        parsed, usage = self.client.structured(self.prompt, text, key, sources)
        assert isinstance(parsed, ExtractionResponse)
        out = Extraction(llm_calls=usage.calls, prompt_tokens=usage.prompt_tokens,
                         completion_tokens=usage.completion_tokens)
        for f in parsed.facts:
            start = _when(f.valid_from) or episode.occurred_at
            end = _when(f.valid_to)
            if end is not None and end <= start:
                end = None
            out.facts.append(ExtractedFact(
                subject=f.subject, predicate=f.predicate, object=f.object, statement=f.statement,
                valid_from=start, valid_to=None if f.ending else end, object_kind=f.object_kind,
                dated=f.valid_from is not None, ending=f.ending,
            ))
            out.mentions.append(f.subject)
            if f.object_kind == "entity" and not f.ending:
                out.mentions.append(f.object)
        out.mentions.extend(e.name for e in parsed.entities if e.kind == "entity")
        return out

    # -- windows of turns --------------------------------------------------------
    def extract_window(self, episodes: Sequence[Episode]) -> dict[str, Extraction]:
        """One call for a window of turns of one session. The model restates each turn as short
        third-person sentences; the offline extractor reads the turn itself (the floor) and then each
        sentence, and a sentence's fact is kept only when its owner and its object are in the turn.
        Returns an Extraction per episode; the call's usage is charged to the first. It reads no earlier
        turns: the model restates each turn from its own words, and they would only lengthen the prompt."""
        if self.prompt.name == "facts_window":
            return self._window_facts(episodes)
        said, usage = self._restate(episodes)
        out = {e.id: Extraction() for e in episodes}
        first = out[episodes[0].id]
        first.llm_calls, first.prompt_tokens, first.completion_tokens = (usage.calls, usage.prompt_tokens,
                                                                         usage.completion_tokens)
        restated = self._restated_facts(episodes, said)
        participants = {_who(e) for e in episodes}
        for e in episodes:
            x = out[e.id]
            x.facts.extend(f for f in self.rules.extract(e).facts if not to_partner(f, participants, self.vocab))
            for fact in restated[e.id]:
                if not _covered(fact, x.facts, self.vocab) and not to_partner(fact, participants, self.vocab):
                    x.facts.append(fact)
                    x.mentions.append(fact.subject)
                    if fact.object_kind == "entity" and not fact.ending:
                        x.mentions.append(fact.object)
        return out

    def _window_facts(self, episodes: Sequence[Episode]) -> dict[str, Extraction]:
        """One call: the model writes each turn's facts under the ontology. Under them lies the floor, the
        offline extractor's facts of each turn; a model fact is kept when its subject is said in its turn
        (and is not the other participant), its object is said there too, its predicate takes that object,
        and the floor has not already read it."""
        turns = [{"n": i + 1, "who": _who(e), "text": e.content} for i, e in enumerate(episodes)]
        model = window_facts(tuple(f"{t['n']} {t['who']}" for t in turns), tuple(self.vocab.predicates))
        prompt = self.prompt.answering(model)
        key = tuple_key(self.vocab.version, *[f"{e.content_sha256}|{e.occurred_at.isoformat()}|{_who(e)}"
                                               for e in episodes])
        parsed, usage = self.client.structured(prompt, prompt.render(turns=turns, predicates=self._described()),
                                               key, tuple(e.content_sha256 for e in episodes))
        assert isinstance(parsed, WindowFacts)
        out = {e.id: Extraction() for e in episodes}
        first = out[episodes[0].id]
        first.llm_calls, first.prompt_tokens, first.completion_tokens = (usage.calls, usage.prompt_tokens,
                                                                         usage.completion_tokens)
        participants = {_who(e) for e in episodes}
        for e, written in zip(episodes, parsed.facts(), strict=True):
            x = out[e.id]
            x.facts.extend(f for f in self.rules.extract(e).facts if not to_partner(f, participants, self.vocab))
            for w in written:
                fact = self._accepted(w, e, participants)
                if fact is None or to_partner(fact, participants, self.vocab):
                    continue
                short = _cut_short(fact, x.facts)
                if short is None and (chosen := _chosen_among(fact, x.facts)) is not None:
                    # (a slot meaning weighed nearly as near as its choice: the model's, said the floor's way round)
                    short, fact = chosen, self._in_slot(x.facts[chosen], fact)
                if short is None:  # (or the floor took the thing for its own value: the model's has the value)
                    short = _thing_as_its_value(fact, x.facts)
                if short is None and (_covered(fact, x.facts, self.vocab) or _only_a_value(fact, x.facts, self.vocab)):
                    continue
                if short is None:
                    x.facts.append(fact)
                else:  # the floor's value cut short ("do" for "do ten pull-ups"), or its slot one of two near ones:
                    x.facts[short] = fact  # the model's takes its place
                x.mentions.append(fact.subject)
                if fact.object_kind == "entity" and not fact.ending:
                    x.mentions.append(fact.object)
        return out

    def _in_slot(self, floor: ExtractedFact, model: ExtractedFact) -> ExtractedFact:
        """The model's fact in the slot it chose; the floor's in that slot when the model said it turned round."""
        if not (same_thing(floor.subject, model.object) and same_thing(floor.object, model.subject)):
            return model
        spec = self.vocab.predicates[model.predicate]
        return replace(floor, predicate=spec.name, statement=spec.render(floor.subject, floor.object), rivals=())

    def _described(self) -> list[dict[str, str]]:
        """The ontology's predicates for the prompt: name, cardinality, description, one example."""
        return [{"name": p.name, "cardinality": "single" if p.single_valued else "multi",
                 "description": p.description, "example": p.examples[0] if p.examples else ""}
                for p in self.vocab.predicates.values()]

    def _tie(self, predicate: str, w: Any) -> str:
        """The model's kinship or role noun ("brother") when the ontology knows it as this predicate's."""
        said = (w.relation or "").strip().lower()
        return said if self.vocab.relations.get(said) == predicate else ""

    def _worth_keeping(self, subject: str, predicate: str, w: Any, sentence: str, e: Episode,
                       participants: set[str]) -> bool:
        """The offline extractor's rules of what is worth keeping (extract/worth.py), on the model's fact: all
        of them for an open relation, those that hold of any fact for a predicate of the ontology."""
        relation = (w.relation or "").strip() or predicate.replace("_", " ")
        doc = parse.parsed(relation) if parse.load_parser() is not None else None
        lemma = " ".join(t.lemma_.lower() for t in doc) if doc is not None else relation.lower()
        past = doc is not None and len(doc) > 0 and doc[0].tag_ in ("VBD", "VBN")
        clause = parse.Clause(subject, lemma, relation, w.object.strip(), f"{subject} {relation} {w.object}", past)
        span = dates.resolve(w.began, e.occurred_at) if w.began else None
        said = worth.Said(clause, sentence, worth.dated(sentence, span) or span is not None,
                          frozenset(participants | {_who(e)}), frozenset(self.vocab.relations))
        rules = worth.ANY_FACT if predicate in self.vocab.predicates else worth.RULES
        return worth.refused(said, rules) is None

    def _accepted(self, w: Any, e: Episode, participants: set[str]) -> ExtractedFact | None:
        """A model-written fact as the pipeline takes it, or None when the turn does not bear it out."""
        speaker = _who(e)
        # ("The Hooli contract" is Hooli's slot, and "the billing service" is billing, as the offline reader says)
        subject = speaker if w.subject.lower() in ("i", "me", "user", "we", "us") \
            else self.rules.meaning.whose(w.subject.strip())
        said = e.content.lower()
        others = {p.lower() for p in participants} - {speaker.lower()}
        owned = subject == speaker or subject.lower().startswith(f"{speaker.lower()}'s ") or (
            subject.lower() not in others and subject.lower() in said)
        if not owned or not Canonicalizer.grounded(w.object, e.content) or same_thing(subject, w.object):
            return None  # (a thing is not its own value: "The Cure favourite_band The Cure")
        sentence = _sentence_with(e.content, w.object)
        if w.predicate != "other" and not self.rules.meaning.plausible(sentence, subject, w.object, w.predicate):
            return None  # said in a question or a wish, or a predicate the sentence does not mean
        if w.predicate == "other":
            match = self.canonical.predicate(w.relation or "", w.object)
            if match.how == "misfit" or not w.relation.strip():
                return None
            predicate = match.name
        elif self.canonical.fits(w.predicate, w.object):
            predicate = w.predicate
        else:
            return None
        spec = self.vocab.predicates.get(predicate)
        if worth.is_question(sentence) or not self._worth_keeping(subject, predicate, w, sentence, e, participants):
            return None
        kind: Literal["entity", "value"] = "entity" if (
            spec.object_kind == "entity" if spec else w.object[:1].isupper()) else "value"
        obj = w.object if kind == "entity" or any(c.isupper() for c in w.object) else w.object.lower()
        span = dates.resolve(w.began, e.occurred_at) if w.began else None
        statement = (spec.render(subject, obj, self._tie(predicate, w)) if spec
                     else f"{subject} {w.relation.strip()} {obj}")
        return with_names(ExtractedFact(subject=subject, predicate=predicate, object=obj, statement=statement,
                                         valid_from=span.start if span else e.occurred_at, dated=span is not None,
                                         started_by=None if w.ended else dates.started_by(span, e.occurred_at),
                                         object_kind=kind, ending=bool(w.ended), confidence=0.8), sentence)

    def _restate(self, episodes: Sequence[Episode]) -> tuple[list[list[str]], Usage]:
        """The model's sentences for each turn of the window, in turn order."""
        turns = [{"n": i + 1, "who": _who(e), "text": e.content} for i, e in enumerate(episodes)]
        prompt = self.prompt.answering(restated_window(tuple(f"{t['n']} {t['who']}" for t in turns)))
        key = tuple_key(*[f"{e.content_sha256}|{e.occurred_at.isoformat()}|{_who(e)}" for e in episodes])
        parsed, usage = self.client.structured(prompt, prompt.render(turns=turns), key,
                                               tuple(e.content_sha256 for e in episodes))
        assert isinstance(parsed, RestatedWindow)
        return parsed.sentences(), usage

    def _restated_facts(self, episodes: Sequence[Episode], said: list[list[str]]) -> dict[str, list[ExtractedFact]]:
        """The offline extractor's facts of the model's sentences, each given to the turn of the window
        that says it: the turn it was written under when that turn names the fact's owner and says its
        object, else the nearest turn that does (a small model often writes a fact one or two turns
        off), else nobody (a sentence that gives the turn to the wrong person, or invents a place,
        adds nothing). A fact is read as said when the turn that says it was said."""
        participants = {_who(e) for e in episodes}
        found: dict[str, list[ExtractedFact]] = {e.id: [] for e in episodes}
        for n, sentences in enumerate(said):
            for sentence in dict.fromkeys(full_names(s, participants) for s in sentences):
                if speech_act(sentence):
                    continue  # "Ben asked Ana about ...", "Ana thanked Ben": a speech act, not a fact
                for f in self._read(episodes[n], sentence, episodes):
                    home = _home(f, episodes, n, participants)
                    if home == n:
                        found[episodes[n].id].append(f)
                    elif home is not None:
                        found[episodes[home].id].extend(
                            g for g in self._read(episodes[home], sentence, episodes)
                            if (g.predicate, g.object, g.subject) == (f.predicate, f.object, f.subject))
        return found

    def _read(self, e: Episode, sentence: str, window: Sequence[Episode]) -> list[ExtractedFact]:
        """The offline extractor's facts of a sentence said as turn ``e`` was, among the window's speakers."""
        return self.rules.extract(e.model_copy(update={"content": sentence}), ExtractContext(tuple(window))).facts

    def judge(self, subject: str, statement: str, predicate: str, obj: str, existing: list[FactVersion],
              said_at: datetime) -> tuple[JudgeResponse, Usage]:
        rows = [{"id": v.id, "statement": v.statement, "predicate": v.predicate,
                 "since": f"{v.valid_from:%Y-%m-%d}" if v.valid_from else "unknown"} for v in existing]
        text = self.judge_prompt.render(subject=subject, existing=rows, said_at=said_at.isoformat(),
                                        new={"statement": statement, "predicate": predicate, "object": obj})
        key = tuple_key(*[statement, predicate, obj, said_at.isoformat(),
                                          *sorted(v.id for v in existing)])
        parsed, usage = self.client.structured(self.judge_prompt, text, key)
        assert isinstance(parsed, JudgeResponse)
        return parsed, usage


def _sentence_with(text: str, value: str) -> str:
    """The sentence of a turn that says ``value`` (the whole turn when none does alone)."""
    low = value.lower()
    return next((s for s in SENTENCE.split(text) if low in s.lower()), text)


def to_partner(f: ExtractedFact, participants: set[str], vocab: Vocabulary) -> bool:
    """An open fact whose object is another participant of the chat tells of the chat itself ("Gina
    encouraged Jon", "Gina is inspiring Jon"), not of either person; a vocabulary relation (has_friend,
    partner) is a fact."""
    return f.predicate not in vocab.predicates and f.object != f.subject and f.object in participants


def _covered(fact: ExtractedFact, found: list[ExtractedFact], vocab: Vocabulary) -> bool:
    """A model fact that the deterministic rules already read from the same turn
    (same predicate and object, or the same single-valued slot) adds nothing and
    may carry a slip (the wrong subject, a missed ending). Nor does a fact of a
    subject and a thing the turn already relates, under any predicate: the floor read
    the clause that says it ("putting together an art show" read as put and as
    put_together; "quit at Acme" when the turn ended works_at Acme; "I drive a Mini"
    read as owns_car and written as drives, which a later change of car leaves standing;
    "a stronglifts program" read as training_plan and written as works_at Stronglifts); nor the floor's
    fact turned round ("Priya account_owner Umbrella" where the floor read Umbrella's owner Priya)."""
    obj = fact.object.lower()
    return any((f.predicate == fact.predicate and (f.object.lower() == obj or f.ending or fact.ending))
               or (f.subject == fact.subject and same_thing(f.object, fact.object))
               or (same_thing(f.subject, fact.object) and same_thing(f.object, fact.subject))  # turned round
               # the old and the new holder of a slot the floor changed ("Mina passed reporting on to Joel" is no
               # tie between Mina and Joel)
               or (bool(f.replaces) and same_thing(f.replaces, fact.subject) and same_thing(f.object, fact.object))
               for f in found)


def _only_a_value(fact: ExtractedFact, found: list[ExtractedFact], vocab: Vocabulary) -> bool:
    """A model fact whose subject the floor read in the same turn only as a value: of a slot that ended there, or of
    one that is no tie to the speaker ("Gareth and I divorced" gives Gareth no status; "Marek set the orange
    problem in the cave" puts Marek in no part of the wall; "Nationwide let me go" gives Nationwide no home)."""
    valued = any(same_thing(f.object, fact.subject) and (f.ending or f.predicate not in vocab.ties) for f in found)
    return valued and not any(same_thing(f.subject, fact.subject) for f in found)


def _chosen_among(fact: ExtractedFact, found: list[ExtractedFact]) -> int | None:
    """The floor's fact of the same subject or value whose slot meaning chose from near ones of which the model's
    is one (``ExtractedFact.rivals``): "Hillside gets its flu vaccines from Seqirus" read nearest as the dispensing
    system and written by the model as the supplier."""
    return next((i for i, f in enumerate(found) if fact.predicate in f.rivals and not (f.ending or fact.ending)
                 and (same_thing(f.subject, fact.subject) or same_thing(f.object, fact.object)
                      or same_thing(f.subject, fact.object) and same_thing(f.object, fact.subject))), None)


def _thing_as_its_value(fact: ExtractedFact, found: list[ExtractedFact]) -> int | None:
    """The floor's fact of the same slot whose value is the model's subject, said with another value: the floor took
    the thing for its own slot's value ("User room_theme Room 2" of "We've rebuilt Room 2 as a space station", which
    the model wrote "Room 2 room_theme space station"); by its index. Not the floor's fact turned round (the model's
    value its subject): ``_covered`` keeps the floor's then."""
    return next((i for i, f in enumerate(found) if f.predicate == fact.predicate and not (f.ending or fact.ending)
                 and same_thing(f.object, fact.subject) and not same_thing(f.subject, fact.subject)
                 and not same_thing(f.subject, fact.object)), None)


def _cut_short(fact: ExtractedFact, found: list[ExtractedFact]) -> int | None:
    """The floor's fact of the same subject and predicate whose value the model's holds and says more
    of ("fitness_goal do" beside "fitness_goal do ten pull-ups"), by its index."""
    words = _naming_words(fact.object)
    return next((i for i, f in enumerate(found) if f.subject == fact.subject and f.predicate == fact.predicate
                 and not f.ending and not fact.ending and (w := _naming_words(f.object)) and w < words), None)


_THING_WORD = re.compile(r"[a-z0-9][a-z0-9'.+-]*")
_NOT_NAMING = frozenset({"a", "an", "the", "my", "our", "his", "her", "their", "its", "your", "of"})


def _naming_words(text: str) -> frozenset[str]:
    return frozenset(_THING_WORD.findall(text.lower())) - _NOT_NAMING


def same_thing(a: str, b: str) -> bool:
    """Two mentions name one thing when the words of one are a run of the other's, as an ending names
    the value it ends (``temporal.names_value``: "Stronglifts" and "a stronglifts program", "The Cure"
    and "Cure"), and each has a naming word ("the" names nothing)."""
    return bool(_naming_words(a) and _naming_words(b)) and names_value(a, b)


# A sentence that reports a speech act of the chat itself gives no fact ("Ben asked Ana about Porto",
# "Ana is showing Ben her painting", "Ben and Lea thanked Ana"): the verb right after the subject.
_SPEECH_VERBS = ("ask", "inquire", "thank", "greet", "say", "said", "tell", "told", "compliment", "congratulate",
                 "praise", "agree", "reply", "replie", "respond", "express", "share", "explain", "mention", "wish",
                 "apologize", "apologise", "encourage", "reassure", "admire", "describe", "show", "recommend",
                 "suggest", "talk", "chat", "chatt", "send", "sent", "invite", "remind", "offer", "hope",
                 "introduce")


def _verb_forms(stem: str) -> str:
    return f"{stem[:-1]}(?:e|es|ed|ing)" if stem.endswith("e") else f"{stem}(?:s|es|ed|ing|n)?"


_NAME = r"[A-Z][\w'’-]*"
_SPEECH_ACT = re.compile(
    rf"^{_NAME}(?:\s+and\s+{_NAME})?(?:(?<=['’]s)\s+[a-z]+)?\s+(?:(?:is|was|were|are)\s+)?"
    rf"(?:{'|'.join(_verb_forms(v) for v in _SPEECH_VERBS)}|look(?:s|ed|ing)?\s+at)\b")


def full_names(sentence: str, participants: set[str]) -> str:
    """The sentence with each participant's short name written in full ("Mel" -> "Melanie", as the
    other speaker calls her), so a fact is filed under the person, and a fact about the other
    participant is seen as one."""
    def full(m: re.Match[str]) -> str:
        word = m.group(0)
        names = [p for p in participants if len(word) >= 3 and p != word and p.startswith(word)]
        return names[0] if len(names) == 1 else word
    return re.sub(r"\b[A-Z][a-z]+\b", full, sentence)


def speech_act(sentence: str) -> bool:
    """Does a restated sentence report something said in the chat, not something done or held?"""
    return _SPEECH_ACT.match(sentence.strip()) is not None


# A question states nothing, whatever a model makes of it ("What type of guitar? Been playing long?").
_QUESTION = re.compile(r"[^.!?]*\?")


def _stated(text: str) -> str:
    """The turn without its questions: what it says, so what a fact's object must be found in."""
    return _QUESTION.sub(" ", text)


def _home(f: ExtractedFact, episodes: Sequence[Episode], n: int, participants: set[str]) -> int | None:
    """The turn of the window, nearest to turn ``n`` first, whose speaker owns the fact and which says its
    object (not only asks about it); None when no turn does."""
    for i in sorted(range(len(episodes)), key=lambda i: (abs(i - n), i)):
        e = episodes[i]
        if Canonicalizer.owned(f.subject, _who(e), participants, e.content) and Canonicalizer.grounded(
                f.object, _stated(e.content)):
            return i
    return None


def _who(e: Episode) -> str:
    return e.speaker or ("User" if e.role == "user" else e.role.title())


def _when(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return parse_datetime(value)
    except ValueError:
        return None
