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


def _gelu_whole_array(x: np.ndarray) -> np.ndarray:
    """The definition, with a temporary per term: what the chunked form must equal to the bit."""
    z = x * np.float32(1.0 / np.sqrt(2.0))
    a = np.abs(z)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = np.sign(z) * (1.0 - poly * np.exp(-a * a))
    return (0.5 * x * (1.0 + erf)).astype(np.float32)


@pytest.mark.parametrize("chunk", [1000, 4096, 262_144])
def test_chunked_gelu_is_the_whole_array_definition_to_the_bit(monkeypatch, chunk: int):
    from kg_memory.embed import minilm

    monkeypatch.setattr(minilm, "GELU_CHUNK", chunk)
    # 300,600 elements: several chunks and a short last one at every size (1,000, 4,096 and the default)
    x = (np.random.default_rng(5).standard_normal((600, 501)) * 4).astype(np.float32)
    x[0, :6] = [0.0, -0.0, 1e-30, -1e-30, -9.0, 12.0]
    want = _gelu_whole_array(x)
    got = minilm._gelu(x.copy())
    assert got.dtype == np.float32 and np.array_equal(got, want)
    strided = minilm._gelu(x.T)  # a transposed view is not one block: the result is still right
    assert np.array_equal(strided, want.T)
