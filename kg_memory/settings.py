"""Configuration: one ``Settings`` object built from the environment plus an
optional TOML file. Nothing here runs at import time."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_serializer

from .core.redact import redact_url
from .errors import ConfigError


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where kgmem keeps its default store and model cache.

    ``KGMEM_HOME`` wins; otherwise ``$XDG_DATA_HOME/kgmem``; otherwise
    ``~/.local/share/kgmem``. Tests point ``KGMEM_HOME`` at a temp dir."""
    env = os.environ if env is None else env
    if env.get("KGMEM_HOME"):
        return Path(env["KGMEM_HOME"]).expanduser()
    xdg = env.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "kgmem"


class RecallWeights(BaseModel):
    """Blend weights for recall; see README 'How recall ranks'."""

    model_config = ConfigDict(extra="forbid")  # a typo in [weights] is an error, not a silent default

    episode_vector: float = 0.4
    episode_bm25: float = 0.4
    episode_overlap: float = 0.2
    neighbour: float = 0.6  # a turn next to a top hit scores this x the hit (question -> reply)
    neighbour_support: float = 0.3  # a candidate that is also next to a top hit gains this x that credit
    episode_time: float = 0.1  # "when"/"how long" questions: turns that state a time (x the best score)
    episode_period: float = 0.1  # questions naming a month or year: turns from that period
    fact_direct: float = 0.5
    # a fact's direct score: its statement's cosine to the query, blended with its BM25 (the vector carries
    # paraphrase, BM25 the exact names; docs/benchmarks.md, "The fact layer")
    fact_direct_vector: float = 0.6
    fact_direct_text: float = 0.4
    fact_graph: float = 0.3
    fact_entity: float = 0.35
    # a fact whose predicate the question names ("where do I live": lives_in), and one sharing its words
    fact_predicate: float = 0.4
    fact_overlap: float = 0.2
    # x the score of the best turn a fact was said in, relative to the best turn: the question's words are
    # often in the turn, not the statement (docs/benchmarks.md, "The fact layer", round seven)
    fact_source: float = 0.6
    # Half-life in days of the decay of superseded evidence (turns whose facts a later turn changed),
    # age counted back from as_of; 0 turns it off (docs/benchmarks.md, "Recency decay").
    half_life_days: float = Field(default=90.0, ge=0.0)
    normalise: str = "minmax"  # how episode scores are put on one scale: minmax | max
    provenance: float = 0.3  # boost for the episodes a top fact came from
    # x provenance for facts of an open predicate (not in the vocabulary): many and less specific, they
    # would otherwise push answer turns down (docs/benchmarks-notes.md, "The fact layer")
    provenance_open: float = 0.5
    candidates: int = 100  # episodes taken from each retriever before blending (at least 3 x k)
    # facts scored below this share of the best fact are left out of the answer: context far below it ("Luis works
    # as a chef" under "Who is my partner?", once Aaron is); 0 keeps every fact up to k
    fact_floor: float = Field(default=0.5, ge=0.0, le=1.0)


class ServeSettings(BaseModel):
    """``kgmem serve http``: limits per key and per request."""

    model_config = ConfigDict(extra="forbid")
    # a key's average requests a second, and the burst it may spend at once (token bucket): an agent makes
    # a recall and an add per turn, so 20/s with bursts of 40 never slows one, and stops a runaway loop
    rate_per_second: float = Field(default=20.0, gt=0)
    burst: int = Field(default=40, ge=1)
    # the largest request body: 1 MiB holds a batch of long turns (one episode is at most max_content_bytes)
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    # episodes in one POST: a larger batch is one long transaction and one long wait
    max_batch: int = Field(default=500, ge=1)
    # on shutdown, how long to wait for episodes accepted with 202 to be extracted (they stay pending after it,
    # and the next start extracts them)
    drain_seconds: float = Field(default=60.0, ge=0)
    # at start, extract every group's episodes still pending (what a crash after a 202 left); off for a server
    # that must not touch groups other processes are still filling
    drain_on_start: bool = True


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a typo in config.toml is an error, not a silent default

    store: str | None = None
    # a file holding the Neo4j password (its first line), so that it is in no URL, environment or `ps` listing
    store_password_file: str | None = None
    group: str = "default"
    embedder: str = "minilm"  # minilm | openai | none
    extractor: str = "rules"  # rules | llm
    embed_model: str = "text-embedding-3-small"
    embed_base_url: str | None = None
    embed_dimensions: int | None = None
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    llm_model: str = "gpt-4o-mini"
    llm_timeout: float = 60.0
    llm_concurrency: int = 4
    llm_max_retries: int = 5
    llm_retry_base: float = 1.0
    # Turns per extraction call. 8 keeps calls per episode at 0.125 and a window's prompt near 1.5k tokens,
    # which the local model reads in about 5 s on 2 cores (docs/benchmarks.md, "Local LLM").
    llm_window: int = Field(default=8, ge=1, le=64)
    # How a window is read: the model writes facts under the group's ontology (facts_window), or restates
    # each turn for the offline extractor to read (restate_window, the reader before ontologies).
    llm_window_prompt: Literal["facts_window", "restate_window"] = "facts_window"
    # A directory of your own prompt templates (facts_window.j2, extract.j2, judge.j2, ...): each overrides the
    # packaged one of its name (custom extraction instructions); checked when the LLM extractor starts.
    prompts_dir: str | None = None
    llm_model_path: str | None = None  # the local LLM's GGUF (default: <data dir>/models/, where install puts it)
    llm_threads: int = Field(default=2, ge=1, le=256)  # threads of the local LLM server (this machine: 2 cores)
    llm_ctx: int = Field(default=8192, ge=1024)  # context of the local LLM server: a window plus the static prompt
    # Cosine at which a relation phrase maps onto a vocabulary predicate; below it the predicate stays open
    # (tests/unit/test_canonical.py holds the phrases that fixed it).
    predicate_similarity: float = Field(default=0.62, ge=0.0, le=1.0)
    # doctor fails when an episode has waited longer than this for extraction (a stuck or dead ingest)
    pending_alert_minutes: float = Field(default=30.0, gt=0)
    # groups whose in-memory search index a store keeps (SQLite: about 1.6 KB per episode; Neo4j: the
    # episode and fact vectors, 2.1 KB per row, measured: docs/benchmarks.md, #11, round thirteen); the
    # least recently used group's is dropped first and read again on its next search
    # BLAS threads for kgmem's matrix work, process-wide, set when a Memory opens (0: leave them as they are): a
    # turn's products gain little from more, and idle BLAS threads spin, taking the core a local Neo4j commits on
    # (kg_memory/embed/threads.py)
    blas_threads: int = Field(default=1, ge=0)
    cache_groups: int = Field(default=64, ge=1)
    # episodes that add(wait=False) lets wait for the background extractor before add blocks (back-pressure);
    # each one is already committed, so this bounds latency and memory, never what is kept
    worker_max_waiting: int = Field(default=1000, ge=1)
    # RELATED_TO links written with each new fact: to at most related_k facts of the group whose statement
    # cosine is at least related_min_cosine (the seed paper's values; 0 links turns them off)
    related_k: int = Field(default=5, ge=0, le=50)
    related_min_cosine: float = Field(default=0.75, ge=-1.0, le=1.0)
    # the largest episode content accepted, in UTF-8 bytes: extraction time grows linearly with it (the offline
    # extractor with its parser: about 82 ms per KB, docs/benchmarks.md), and a turn of chat is a few KB
    max_content_bytes: int = Field(default=256 * 1024, ge=1)
    # Entity resolution (`kgmem jobs resolve-entities`): a pair scoring at least resolve_merge_at is merged,
    # one at least resolve_review_at waits for a person. Tuned on tests/fixtures/alias-pairs.json, where
    # auto-merges keep precision 1.0 (docs/benchmarks.md, "Entity resolution").
    resolve_merge_at: float = Field(default=0.9, ge=0.0, le=1.0)
    resolve_review_at: float = Field(default=0.72, ge=0.0, le=1.0)
    # Archiving (`kgmem jobs archive`): where bodies go (a directory or an fsspec URL; default
    # <data dir>/archive) and after how many days, for every group or per group.
    archive_url: str | None = None
    archive_after_days: float = Field(default=365.0, gt=0)
    archive_after_days_by_group: dict[str, float] = Field(default_factory=dict)
    batch_size: int = 256
    recall_k: int = 10
    weights: RecallWeights = Field(default_factory=RecallWeights)
    serve: ServeSettings = Field(default_factory=ServeSettings)

    # Secrets never leave through str(), repr() or a dump: URLs are redacted (kg_memory/core/redact.py) and the
    # API key is a SecretStr. The code reads the fields themselves, which keep the real values.
    @field_serializer("store", "llm_base_url", "embed_base_url", "archive_url")
    def _redacted(self, url: str | None) -> str | None:
        return redact_url(url) if url else url

    def __repr__(self) -> str:
        return f"Settings(store={self.store_display()!r}, group={self.group!r})"

    def __str__(self) -> str:
        return " ".join(f"{k}={v!r}" for k, v in self.model_dump().items())

    def store_password(self) -> str | None:
        """The password from ``store_password_file`` (None when no file is set)."""
        if not self.store_password_file:
            return None
        from .errors import ConfigError

        try:
            text = Path(self.store_password_file).expanduser().read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"store_password_file {self.store_password_file}: cannot read it "
                              f"({exc.__class__.__name__}); check the path and its permissions") from None
        lines = text.splitlines()
        if not lines or not lines[0].strip():
            raise ConfigError(f"store_password_file {self.store_password_file}: the file is empty")
        return lines[0].strip()

    def store_display(self) -> str | None:
        return redact_url(self.store) if self.store else None


_ENV_MAP = {
    "KGMEM_STORE": "store",
    "KGMEM_GROUP": "group",
    "KGMEM_EMBEDDER": "embedder",
    "KGMEM_EXTRACTOR": "extractor",
    "KGMEM_EMBED_MODEL": "embed_model",
    "KGMEM_EMBED_BASE_URL": "embed_base_url",
    "KGMEM_EMBED_DIMENSIONS": "embed_dimensions",
    "KGMEM_LLM_BASE_URL": "llm_base_url",
    "KGMEM_LLM_MODEL": "llm_model",
    "KGMEM_LLM_TIMEOUT": "llm_timeout",
    "KGMEM_LLM_CONCURRENCY": "llm_concurrency",
    "KGMEM_LLM_MAX_RETRIES": "llm_max_retries",
    "KGMEM_LLM_RETRY_BASE": "llm_retry_base",
    "KGMEM_LLM_WINDOW": "llm_window",
    "KGMEM_PROMPTS_DIR": "prompts_dir",
    "KGMEM_LLM_THREADS": "llm_threads",
    "KGMEM_LLM_MODEL_PATH": "llm_model_path",
    "KGMEM_STORE_PASSWORD_FILE": "store_password_file",
}


def load_settings(
    env: Mapping[str, str] | None = None, config_file: str | Path | None = None, **overrides: Any
) -> Settings:
    """Build Settings: TOML file (``KGMEM_CONFIG`` or ``<data_dir>/config.toml``),
    then environment, then explicit overrides (CLI options)."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    path = Path(config_file) if config_file else (
        Path(env["KGMEM_CONFIG"]) if env.get("KGMEM_CONFIG") else data_dir(env) / "config.toml"
    )
    if config_file and not path.exists():
        raise ConfigError(f"{path}: config file not found")
    if path.exists():
        try:
            values.update(tomllib.loads(path.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc}); fix or remove the file") from None
    for var, field in _ENV_MAP.items():
        if env.get(var):
            values[field] = env[var]
    key = env.get("KGMEM_LLM_API_KEY") or env.get("OPENAI_API_KEY")
    if key:
        values["llm_api_key"] = key
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return Settings.model_validate(values)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        if first["type"] == "extra_forbidden":
            raise ConfigError(f"{path if path.exists() else 'configuration'}: unknown setting {loc!r}; "
                              "check its spelling against the README's settings") from None
        raise ConfigError(f"setting {loc!r}: {first['msg']}") from None


def default_store_url(env: Mapping[str, str] | None = None) -> str:
    return f"sqlite:///{data_dir(env) / 'kgmem.db'}"
