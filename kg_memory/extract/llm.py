"""The ``llm`` extractor: one combined structured-output call per episode
(``prompts/extract.j2``), and the ``judge`` slow path (``prompts/judge.j2``) that
the pipeline calls only for ambiguous facts.

Calls per episode are bounded: one extraction call (plus at most one repair
call when the output is invalid), plus at most one judge call (plus one repair)
per ambiguous fact. Retries after 429/5xx/timeouts re-send the same call and
are bounded by ``max_retries``."""

from __future__ import annotations

import hashlib
from datetime import datetime

from ..errors import ConfigError
from ..llm import LLMClient, ResponseCache, Usage
from ..models import Episode, FactVersion
from ..prompts import ExtractionResponse, JudgeResponse, load_prompt
from ..settings import Settings, data_dir
from ..timeutil import parse_datetime
from ..vocab import Vocabulary, load_vocabulary
from .base import ExtractContext, ExtractedFact, Extraction


class LLMExtractor:
    name = "llm"
    wants_context = True

    def __init__(self, client: LLMClient, vocab: Vocabulary | None = None, concurrency: int = 4):
        self.client = client
        self.vocab = vocab or load_vocabulary()
        self.prompt = load_prompt("extract")
        self.judge_prompt = load_prompt("judge")
        self.version: str | None = self.prompt.version
        self.concurrency = concurrency

    @classmethod
    def from_settings(cls, s: Settings) -> LLMExtractor:
        key = s.llm_api_key.get_secret_value() if s.llm_api_key else None
        if not s.llm_base_url and not key:
            raise ConfigError(
                "--extractor llm needs a model endpoint: set KGMEM_LLM_BASE_URL (Ollama, vLLM, llama.cpp, ...) "
                "and/or KGMEM_LLM_API_KEY (or OPENAI_API_KEY for OpenAI), and KGMEM_LLM_MODEL"
            )
        cache = ResponseCache(data_dir() / "llm-cache.db")
        client = LLMClient(base_url=s.llm_base_url, api_key=key, model=s.llm_model, timeout=s.llm_timeout,
                           concurrency=s.llm_concurrency, max_retries=s.llm_max_retries,
                           retry_base=s.llm_retry_base, cache=cache)
        return cls(client, concurrency=s.llm_concurrency)

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
        key = hashlib.sha256("\x1f".join([episode.content_sha256, episode.occurred_at.isoformat(), speaker,
                                          *(p["text"] for p in previous)]).encode()).hexdigest()
        parsed, usage = self.client.structured(self.prompt, text, key)
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

    def judge(self, subject: str, statement: str, predicate: str, obj: str, existing: list[FactVersion],
              said_at: datetime) -> tuple[JudgeResponse, Usage]:
        rows = [{"id": v.id, "statement": v.statement, "predicate": v.predicate,
                 "since": f"{v.valid_from:%Y-%m-%d}" if v.valid_from else "unknown"} for v in existing]
        text = self.judge_prompt.render(subject=subject, existing=rows, said_at=said_at.isoformat(),
                                        new={"statement": statement, "predicate": predicate, "object": obj})
        key = hashlib.sha256("\x1f".join([statement, predicate, obj, said_at.isoformat(),
                                          *sorted(v.id for v in existing)]).encode()).hexdigest()
        parsed, usage = self.client.structured(self.judge_prompt, text, key)
        assert isinstance(parsed, JudgeResponse)
        return parsed, usage


def _when(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return parse_datetime(value)
    except ValueError:
        return None
