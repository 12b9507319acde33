import json
from pathlib import Path

import numpy as np
import pytest

from kg_memory.embed.base import CachedEmbedder
from kg_memory.embed.minilm import MiniLMEmbedder

# Reference vectors made with sentence-transformers (figures, copied into the project's fixtures).
REF = Path(__file__).resolve().parents[1] / "fixtures" / "minilm-reference-embeddings.json"


@pytest.fixture(scope="module")
def model() -> MiniLMEmbedder:
    return MiniLMEmbedder.load()


def test_reproduces_sentence_transformers_reference(model: MiniLMEmbedder):
    data = json.loads(REF.read_text())
    texts = [it["text"] for it in data["items"]]
    assert "" in texts and any(len(t) > 1000 for t in texts)  # empty and past-256-token inputs are covered
    ref = np.asarray([it["embedding"] for it in data["items"]], dtype=np.float32)
    got = model.embed(texts)
    cos = (got * ref).sum(1) / np.linalg.norm(ref, axis=1) / np.linalg.norm(got, axis=1)
    for text, c in zip(texts, cos, strict=True):
        assert c >= 0.999, f"cosine {c:.6f} for {text[:40]!r}"


def test_batching_does_not_change_vectors(model: MiniLMEmbedder):
    texts = ["short", "a somewhat longer sentence about cellos and violins", "x " * 300]
    together = model.embed(texts)
    alone = np.vstack([model.embed([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-5)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def test_cache_embeds_unchanged_content_once(model: MiniLMEmbedder):
    cached = CachedEmbedder(model)
    a = cached.embed(["same text", "other", "same text"])
    b = cached.embed(["same text"])
    assert cached.misses == 2 and cached.hits == 1  # the in-call duplicate is embedded once too
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[0], a[2])
