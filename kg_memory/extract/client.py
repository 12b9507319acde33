"""An OpenAI-compatible chat client for structured output, built for ingest:

* JSON-schema structured output where the server supports it, JSON mode plus
  validation where it does not, plain text plus validation as a last resort;
* ``<think>`` blocks and code fences stripped; one repair retry that shows the
  model its validation error;
* retries with exponential backoff and jitter on 429, 5xx, timeouts and
  connection errors, honouring ``Retry-After``;
* one concurrency limit shared by every call of the process;
* token accounting, and a persistent cache keyed on (prompt version, model,
  input hash), so re-running an ingest costs nothing.

Works with OpenAI, Azure OpenAI (its OpenAI-compatible ``/openai/v1`` endpoint),
Ollama, vLLM and the llama.cpp server. Secrets are never logged."""

from __future__ import annotations

import email.utils
import hashlib
import json
import logging
import random
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import ExtractionError
from .prompts import Prompt

log = logging.getLogger(__name__)
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.I)
_SEMAPHORES: dict[int, threading.BoundedSemaphore] = {}
_SEM_LOCK = threading.Lock()


def shared_semaphore(limit: int) -> threading.BoundedSemaphore:
    """The process-wide limit on calls in flight (one per limit value)."""
    with _SEM_LOCK:
        if limit not in _SEMAPHORES:
            _SEMAPHORES[limit] = threading.BoundedSemaphore(limit)
        return _SEMAPHORES[limit]


def clean_json_text(text: str) -> str:
    """Drop <think> blocks and code fences; keep the outermost JSON object."""
    s = _THINK.sub("", text or "")
    s = _FENCE.sub("", s.strip())
    start, end = s.find("{"), s.rfind("}")
    return s[start : end + 1] if start != -1 and end > start else s.strip()


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens


class ResponseCache:
    """Responses on disk: re-running an ingest with the same prompt, model and input is free."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, body TEXT NOT NULL, "
                          "created_at TEXT NOT NULL DEFAULT (datetime('now')))")
        # which turns (by content sha256) each response was made from, so erasure can remove it
        self.conn.execute("CREATE TABLE IF NOT EXISTS response_sources (source TEXT NOT NULL, key TEXT NOT NULL, "
                          "PRIMARY KEY (source, key)) WITHOUT ROWID")

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self.conn.execute("SELECT body FROM responses WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def put(self, key: str, body: str, sources: tuple[str, ...] = ()) -> None:
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.execute("INSERT OR REPLACE INTO responses (key, body) VALUES (?, ?)", (key, body))
                self.conn.executemany("INSERT OR IGNORE INTO response_sources (source, key) VALUES (?, ?)",
                                      [(src, key) for src in sources])
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def forget(self, sources: list[str]) -> int:
        """Remove every response made from any of these turns (content sha256), for good."""
        with self._lock:
            self.conn.execute("PRAGMA secure_delete = ON")
            self.conn.execute("BEGIN IMMEDIATE")
            removed = 0
            for src in dict.fromkeys(sources):
                keys = [r[0] for r in self.conn.execute("SELECT key FROM response_sources WHERE source = ?", (src,))]
                for key in keys:
                    removed += self.conn.execute("DELETE FROM responses WHERE key = ?", (key,)).rowcount
                    self.conn.execute("DELETE FROM response_sources WHERE key = ?", (key,))
            self.conn.execute("COMMIT")
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return removed

    def close(self) -> None:
        with self._lock:
            self.conn.close()


class LLMClient:
    def __init__(self, *, base_url: str | None, api_key: str | None, model: str, timeout: float = 60.0,
                 concurrency: int = 4, max_retries: int = 5, retry_base: float = 1.0, retry_cap: float = 60.0,
                 cache: ResponseCache | None = None, sleep: Callable[[float], None] = time.sleep,
                 max_tokens: int = 1024):
        import openai

        self.model = model
        self.max_tokens = max_tokens  # bounds a runaway answer (a small model can list every predicate)
        self.max_retries = max_retries
        self.retry_base = retry_base
        self.retry_cap = retry_cap
        self.cache = cache
        self.sleep = sleep
        self.semaphore = shared_semaphore(max(1, concurrency))
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout,
                                    max_retries=0)
        self.mode = "json_schema"  # downgraded once if the server refuses it
        self._mode_lock = threading.Lock()

    # -- public ------------------------------------------------------------
    def structured(self, prompt: Prompt, text: str, cache_key: str, sources: tuple[str, ...] = ()
                   ) -> tuple[BaseModel, Usage]:
        """Ask for JSON matching the prompt's response model; validate; repair once.
        ``sources``: the content sha256 of the turns in the prompt (so erasure finds the cached answer)."""
        usage = Usage()
        key = hashlib.sha256(f"{prompt.version}\x1f{self.model}\x1f{cache_key}".encode()).hexdigest()
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                try:
                    return prompt.response_model.model_validate_json(hit), usage
                except ValidationError:
                    pass  # a stale entry: ask again
        messages: list[dict[str, str]] = [{"role": "user", "content": text}]
        content = self._chat(messages, prompt, usage)
        try:
            parsed = self._parse(prompt, content)
        except (ValidationError, ValueError) as exc:
            error = _short_error(exc)
            messages += [{"role": "assistant", "content": content},
                         {"role": "user", "content": f"That answer was not valid: {error}\n"
                          "Answer again with JSON only, matching the schema exactly."}]
            content = self._chat(messages, prompt, usage)
            try:
                parsed = self._parse(prompt, content)
            except (ValidationError, ValueError) as exc2:
                raise ExtractionError(f"model output still invalid after one repair: {_short_error(exc2)}") from None
        if self.cache is not None:
            # by alias: a window's answer is keyed "1 Ana", as the model wrote it and as it is read back
            self.cache.put(key, parsed.model_dump_json(by_alias=True), sources)
        return parsed, usage

    # -- internals ---------------------------------------------------------
    @staticmethod
    def _parse(prompt: Prompt, content: str) -> BaseModel:
        cleaned = clean_json_text(content)
        json.loads(cleaned)  # a JSON error reads better than a pydantic one
        return prompt.response_model.model_validate_json(cleaned)

    def _response_format(self, prompt: Prompt) -> dict[str, Any] | None:
        if self.mode == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": prompt.name, "schema": prompt.json_schema()}}
        if self.mode == "json_object":
            return {"type": "json_object"}
        return None

    def _chat(self, messages: list[dict[str, str]], prompt: Prompt, usage: Usage) -> str:
        import openai

        attempt = 0
        while True:
            fmt = self._response_format(prompt)
            kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0,
                                      "max_tokens": self.max_tokens}
            if fmt is not None:
                kwargs["response_format"] = fmt
            try:
                with self.semaphore:
                    resp = self.client.chat.completions.create(**kwargs)
            except openai.BadRequestError as exc:
                if fmt is not None and "response_format" in str(exc).lower() + str(getattr(exc, "body", "")).lower():
                    self._downgrade()
                    continue
                raise ExtractionError(f"the model endpoint refused the request: {_status(exc)}") from None
            except (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError,
                    openai.APIConnectionError) as exc:
                attempt += 1
                if attempt > self.max_retries:
                    raise ExtractionError(f"model unreachable after {attempt} tries: {_status(exc)}") from None
                delay = _retry_after(exc)
                if delay is None:
                    delay = min(self.retry_cap, self.retry_base * 2 ** (attempt - 1))
                    delay = delay * (0.5 + random.random() / 2)  # jitter
                log.warning("model call failed (%s); retry %d/%d in %.2fs", _status(exc), attempt,
                            self.max_retries, delay)
                self.sleep(min(delay, self.retry_cap))
                continue
            except openai.APIStatusError as exc:
                raise ExtractionError(f"the model endpoint answered {_status(exc)}") from None
            usage.calls += 1
            if resp.usage is not None:
                usage.prompt_tokens += resp.usage.prompt_tokens or 0
                usage.completion_tokens += resp.usage.completion_tokens or 0
            if not resp.choices:
                raise ExtractionError("the model returned no choices")
            return resp.choices[0].message.content or ""

    def _downgrade(self) -> None:
        with self._mode_lock:
            self.mode = {"json_schema": "json_object", "json_object": "none"}.get(self.mode, "none")
            log.info("endpoint refused the response format; falling back to %s", self.mode)


def _status(exc: Exception) -> str:
    code = getattr(exc, "status_code", None)
    return f"HTTP {code}" if code else type(exc).__name__


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    if response is None:
        return None
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time()) if when else None


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5]]
        return "; ".join(parts)
    return str(exc)[:300]
