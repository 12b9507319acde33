"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError, KgMemError

if TYPE_CHECKING:
    from ..settings import Settings


class OpenAIEmbedder:
    name = "openai"

    def __init__(self, model: str, base_url: str | None, api_key: str | None, dimensions: int | None,
                 timeout: float = 60.0, batch_size: int = 128):
        import openai

        if not base_url and not api_key:
            raise ConfigError(
                "the openai embedder needs KGMEM_EMBED_BASE_URL (or KGMEM_LLM_API_KEY/OPENAI_API_KEY for OpenAI)"
            )
        self.model = model
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout)
        self.dim = dimensions or len(self._call(["dimension probe"])[0])
        self.name = f"openai:{model}"

    @classmethod
    def from_settings(cls, s: Settings) -> OpenAIEmbedder:
        key = s.llm_api_key.get_secret_value() if s.llm_api_key else None
        return cls(s.embed_model, s.embed_base_url or s.llm_base_url, key, s.embed_dimensions, s.llm_timeout)

    def _call(self, texts: list[str]) -> list[list[float]]:
        import openai

        kwargs = {"dimensions": self.dimensions} if self.dimensions else {}
        try:
            resp = self.client.embeddings.create(model=self.model, input=texts, **kwargs)  # type: ignore[arg-type]
        except openai.OpenAIError as exc:
            raise KgMemError(f"embedding request failed: {type(exc).__name__}: {exc}") from None
        return [d.embedding for d in sorted(resp.data, key=lambda d: d.index)]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows: list[list[float]] = []
        for i in range(0, len(texts), self.batch_size):
            chunk = [t if t else " " for t in texts[i : i + self.batch_size]]
            rows.extend(self._call(chunk))
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        m = np.asarray(rows, dtype=np.float32)
        return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
