"""Snapshots of a group's held episode index, as the SQLite store keeps them (``index_snapshots``):
the rows' keys, times, document lengths and int8 codes at a position in the change log, without the
float32 vectors. A process's first recall of a large group restores one and reads only the rows
changed since, instead of every row and vector (docs/benchmarks.md, "The public path, round two")."""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from ..index.vectors import VectorIndex

PART_ROWS = 65_536  # rows per stored part: 27 MB at 384 dimensions, far below SQLite's blob limit
_TIMES = ("occurred", "created", "hasvec", "dl")  # the episode index's columns, in its order


@dataclass(frozen=True)
class Snapshot:
    """What a held episode index restores from: its rows (``keys``, the time columns, the codes and
    their scales) and the two terms of its error bound, as of change-log position ``seq``."""

    seq: int
    keys: np.ndarray
    times: tuple[np.ndarray, ...]
    codes: np.ndarray
    qscale: np.ndarray
    qerr: float
    qnorm: float

    @property
    def rows(self) -> int:
        return len(self.keys)


def taken(idx: VectorIndex, keep: np.ndarray) -> Snapshot:
    """A copy of the rows of ``idx`` that ``keep`` marks, as they are now (the caller holds the store's lock)."""
    n = idx.n
    assert idx.seq is not None and idx.time_cols == _TIMES
    return Snapshot(seq=idx.seq, keys=np.asarray(idx.keys, dtype=np.int64)[keep],
                    times=tuple(idx.times[c][:n][keep] for c in _TIMES), codes=idx.codes[:n][keep],
                    qscale=idx.qscale[:n][keep], qerr=idx.qerr, qnorm=idx.qnorm)


_MAGIC = b"kgsnap01"  # a part's first bytes: the format and its version
_HEAD = struct.Struct("<8sqqdd")  # magic, rows, dimensions, qerr, qnorm


def encode(snap: Snapshot) -> list[bytes]:
    """The snapshot as parts of at most ``PART_ROWS`` rows: a header, then the keys, the time
    columns, the scales and the codes as raw little-endian arrays (read back without a copy)."""
    dim = snap.codes.shape[1]
    out = []
    for s in range(0, max(snap.rows, 1), PART_ROWS):
        part = slice(s, s + PART_ROWS)
        m = len(snap.keys[part])
        arrays = (snap.keys[part].astype("<i8"), *(t[part].astype("<i8") for t in snap.times),
                  snap.qscale[part].astype("<f4"), snap.codes[part].astype(np.int8))
        out.append(_HEAD.pack(_MAGIC, m, dim, snap.qerr, snap.qnorm) + b"".join(a.tobytes() for a in arrays))
    return out


def decode(seq: int, parts: list[bytes], dim: int) -> Snapshot | None:
    """``encode``'s parts read back, in order; None when they are not this index's (another
    format or dimension, a part cut short)."""
    pieces = [_part(body, dim) for body in parts]
    if not pieces or any(p is None for p in pieces):
        return None
    got = [p for p in pieces if p is not None]
    return Snapshot(seq=seq, keys=np.concatenate([p[0] for p in got]),
                    times=tuple(np.concatenate([p[1][i] for p in got]) for i in range(len(_TIMES))),
                    qscale=np.concatenate([p[2] for p in got]), codes=np.concatenate([p[3] for p in got]),
                    qerr=max(p[4] for p in got), qnorm=max(p[5] for p in got))


def _part(body: bytes, dim: int) -> tuple[np.ndarray, list[np.ndarray], np.ndarray, np.ndarray, float, float] | None:
    if len(body) < _HEAD.size:
        return None
    magic, m, d, qerr, qnorm = _HEAD.unpack_from(body)
    if magic != _MAGIC or d != dim or len(body) != _HEAD.size + m * (8 * (1 + len(_TIMES)) + 4 + dim):
        return None
    at = _HEAD.size
    cols = []
    for _ in range(1 + len(_TIMES)):
        cols.append(np.frombuffer(body, dtype="<i8", count=m, offset=at))
        at += 8 * m
    qscale = np.frombuffer(body, dtype="<f4", count=m, offset=at)
    codes = np.frombuffer(body, dtype=np.int8, count=m * dim, offset=at + 4 * m).reshape(m, dim)
    return cols[0], cols[1:], qscale, codes, qerr, qnorm
