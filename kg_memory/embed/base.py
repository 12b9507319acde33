"""The embedder interface and a content-hash cache shared by all embedders."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..settings import Settings


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 matrix of shape (len(texts), dim)."""
        ...


class CachedEmbedder:
    """Wraps an embedder with an LRU cache keyed on the text's SHA-256, so
    unchanged content is never embedded twice in a process."""

    def __init__(self, inner: Embedder, max_items: int = 50_000):
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.max_items = max_items
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        todo: dict[str, list[int]] = {}
        for i, k in enumerate(keys):
            vec = self._cache.get(k)
            if vec is not None:
                self._cache.move_to_end(k)
                out[i] = vec
                self.hits += 1
            else:
                todo.setdefault(k, []).append(i)
        if todo:
            firsts = [idxs[0] for idxs in todo.values()]
            vecs = self.inner.embed([texts[i] for i in firsts])
            for (k, idxs), vec in zip(todo.items(), vecs, strict=True):
                self.misses += 1
                self._cache[k] = vec
                for i in idxs:
                    out[i] = vec
            while len(self._cache) > self.max_items:
                self._cache.popitem(last=False)
        return out


def make_embedder(settings: Settings) -> Embedder | None:
    kind = settings.embedder.lower()
    if kind == "none":
        return None
    if kind == "minilm":
        from .minilm import MiniLMEmbedder

        return CachedEmbedder(MiniLMEmbedder.load())
    if kind == "openai":
        from .openai_embedder import OpenAIEmbedder

        return CachedEmbedder(OpenAIEmbedder.from_settings(settings))
    raise ConfigError(f"unknown embedder {settings.embedder!r}: use minilm, openai or none")
