"""The ``llm`` extractor: one combined structured-output call per episode
(``prompts/extract.j2``), and the ``judge`` slow path (``prompts/judge.j2``) that
the pipeline calls only for ambiguous facts.

Calls per episode are bounded: one extraction call (plus at most one repair
call when the output is invalid), plus at most one judge call (plus one repair)
per ambiguous fact. Retries after 429/5xx/timeouts re-send the same call and
are bounded by ``max_retries``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from ..embed.base import Embedder
from ..idents import tuple_key
from ..llm import LLMClient, ResponseCache, Usage
from ..models import Episode, FactVersion
from ..prompts import ExtractionResponse, JudgeResponse, WindowExtractionResponse, WindowFactModel, load_prompt
from ..settings import Settings, data_dir
from ..timeutil import parse_datetime
from ..vocab import Vocabulary, load_vocabulary
from .base import ExtractContext, ExtractedFact, Extraction
from .canonical import Canonicalizer


class LLMExtractor:
    name = "llm"
    wants_context = True

    def __init__(self, client: LLMClient, vocab: Vocabulary | None = None, concurrency: int = 4,
                 window: int = 1, embedder: Embedder | None = None, predicate_similarity: float = 0.62):
        self.client = client
        self.vocab = vocab or load_vocabulary()
        self.window = max(1, window)
        self.prompt = load_prompt("extract_window" if self.window > 1 else "extract")
        self.judge_prompt = load_prompt("judge")
        self.version: str | None = self.prompt.version
        self.concurrency = concurrency
        self.canonical = Canonicalizer(self.vocab, embedder, predicate_similarity)
        from .rules import RulesExtractor

        # the deterministic floor under a small model's slips: the offline extractor itself (parse included)
        self.rules = RulesExtractor(embedder, predicate_similarity)

    @classmethod
    def from_settings(cls, s: Settings, embedder: Embedder | None = None) -> LLMExtractor:
        key = s.llm_api_key.get_secret_value() if s.llm_api_key else None
        base_url, model = s.llm_base_url, s.llm_model
        concurrency, timeout = s.llm_concurrency, s.llm_timeout
        if not base_url and not key:
            # No endpoint configured: serve the installed local model in this process. It decodes one
            # request at a time, so calls are not sent in parallel, and a window may take minutes.
            from ..errors import ModelMissingError
            from ..localllm import MODEL_NAME, model_path, shared_server

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
        return cls(client, concurrency=concurrency, window=s.llm_window, embedder=embedder,
                   predicate_similarity=s.predicate_similarity)

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
    def extract_window(self, episodes: Sequence[Episode], context: ExtractContext | None = None
                       ) -> dict[str, Extraction]:
        """One call for a window of turns of one session; facts cite their turn.
        Returns an Extraction per episode; the call's usage is charged to the first."""
        turns = [{"n": i + 1, "when": f"{e.occurred_at:%Y-%m-%d}", "who": _who(e), "text": e.content}
                 for i, e in enumerate(episodes)]
        previous = [{"when": f"{t.occurred_at:%Y-%m-%d}", "who": _who(t), "text": t.content}
                    for t in (context.previous if context else ())]
        speakers = sorted({_who(e) for e in episodes})
        text = self.prompt.render(predicates=self._vocab_rows(), speakers=speakers, previous=previous, turns=turns)
        key = tuple_key(*[*(f"{e.content_sha256}|{e.occurred_at.isoformat()}|{_who(e)}"
                                             for e in episodes), *(p["text"] for p in previous)])
        sources = tuple(e.content_sha256 for e in [*episodes, *(context.previous if context else ())])
        parsed, usage = self.client.structured(self.prompt, text, key, sources)
        assert isinstance(parsed, WindowExtractionResponse)
        out = {e.id: Extraction() for e in episodes}
        first = out[episodes[0].id]
        first.llm_calls, first.prompt_tokens, first.completion_tokens = (usage.calls, usage.prompt_tokens,
                                                                         usage.completion_tokens)
        participants = set(speakers)
        for e in episodes:
            out[e.id].facts.extend(self.rules.extract(e).facts)
        for f in parsed.facts:
            if f.turn > len(episodes):
                continue
            e = episodes[f.turn - 1]
            fact = self._canonical_fact(f, e, participants)
            if fact is not None and not _covered(fact, out[e.id].facts):
                x = out[e.id]
                x.facts.append(fact)
                x.mentions.append(fact.subject)
                if fact.object_kind == "entity" and not fact.ending:
                    x.mentions.append(fact.object)
        return out

    def _vocab_rows(self) -> list[dict[str, str]]:
        return [{"name": p.name, "cardinality": "single" if p.single_valued else "multi",
                 "description": p.description or p.statement} for p in self.vocab.predicates.values()]

    def _canonical_fact(self, f: WindowFactModel, e: Episode, participants: set[str]) -> ExtractedFact | None:
        """A model's fact made canonical, or None when it cannot be trusted."""
        subject = self.canonical.subject(f.subject, _who(e), participants, e.content)
        if subject is None or (e.role == "assistant" and subject == _who(e)):
            return None
        if not self.canonical.object_ok(f.object) or not self.canonical.grounded(f.object, e.content):
            return None
        match = self.canonical.predicate(f.predicate, f.object)
        if match.how == "misfit":
            return None
        obj = f.object.strip()
        spec = self.vocab.predicates.get(match.name)
        kind = (spec.object_kind if spec else ("entity" if obj[:1].isupper() else "value"))
        if kind == "value":
            obj = obj.lower()
        start, dated = self.canonical.when(f.when, e.occurred_at)
        start = start or e.occurred_at
        if spec:
            statement = spec.statement.format(s=subject, o=obj, r="")
        else:
            statement = f"{subject} {match.name.replace('_', ' ')} {obj}"
        if f.ending:
            statement = f"{subject} no longer {match.name.replace('_', ' ')} {obj}"
        return ExtractedFact(subject=subject, predicate=match.name, object=obj, statement=statement,
                             valid_from=start, object_kind="entity" if kind == "entity" else "value",
                             dated=dated, ending=f.ending)

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


def _covered(fact: ExtractedFact, found: list[ExtractedFact]) -> bool:
    """A model fact that the deterministic rules already read from the same turn
    (same predicate and object, or the same single-valued slot) adds nothing and
    may carry a slip (the wrong subject, a missed ending)."""
    obj = fact.object.lower()
    return any(f.predicate == fact.predicate and (f.object.lower() == obj or f.ending or fact.ending)
               for f in found)


def _who(e: Episode) -> str:
    return e.speaker or ("User" if e.role == "user" else e.role.title())


def _when(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return parse_datetime(value)
    except ValueError:
        return None
