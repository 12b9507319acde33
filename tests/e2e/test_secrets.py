"""No command prints a store password or an API key: not in output, errors, logs or --json."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import quote, urlsplit

from ..conftest import SAMPLE, neo4j_url


def _run(home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "KGMEM_HOME": str(home), **(env or {})}
    full.pop("KGMEM_STORE", None) if "KGMEM_STORE" not in (env or {}) else None
    return subprocess.run([sys.executable, "-m", "kg_memory", "--log-level", "debug", *args], capture_output=True,
                          text=True, env=full, timeout=300)


def test_no_command_shows_a_password_or_key(tmp_path: Path):
    home = tmp_path / "home"
    real = neo4j_url()
    password = urlsplit(real).password or ""
    assert len(password) >= 8
    wrong = "s3cr@t-with@signs"
    parts = urlsplit(real)
    # a user that does not exist: failed logins lock out the user they name, and "neo4j" serves the suite
    bad_url = f"{parts.scheme}://nobody-{uuid.uuid4().hex[:6]}:{quote(wrong, safe='@')}@{parts.hostname}:{parts.port}"
    group = f"secrets-{uuid.uuid4().hex[:8]}"
    key_env = {"KGMEM_LLM_API_KEY": "sk-never-show-4242", "KGMEM_LLM_BASE_URL": "http://127.0.0.1:9/v1",
               "KGMEM_LLM_MAX_RETRIES": "0"}
    runs = [
        _run(home, "ingest", str(SAMPLE), "--group", group, "--store", real, "--json"),
        _run(home, "doctor", "--json", "--store", real),
        _run(home, "doctor", "--store", real),
        _run(home, "groups", "--store", real),
        _run(home, "recall", "Where do I live?", "--group", group, "--store", real, "--json", "--explain"),
        _run(home, "facts", "--group", group, "--store", real, "--json"),
        _run(home, "history", "User", "--group", group, "--store", real),
        _run(home, "forget", "--group", group, "--yes", "--store", real),
        _run(home, "ingest", str(SAMPLE), "--group", f"{group}-llm", "--extractor", "llm", "--json", env=key_env),
        _run(home, "doctor", "--store", bad_url),
        _run(home, "recall", "x", "--group", group, "--store", bad_url),
        _run(home, "ingest", str(SAMPLE), "--group", group, "--store", bad_url),
        _run(home, "doctor", "--json", env={**key_env, "KGMEM_STORE": bad_url}),
    ]
    assert runs[0].returncode == 0 and runs[7].returncode == 0, runs[0].stderr + runs[7].stderr
    assert [r.returncode for r in runs[9:12]] == [1, 4, 4]  # wrong password: doctor's check fails; exit 4
    for r in runs:
        shown = r.stdout + r.stderr
        assert "Traceback" not in shown, shown[-2000:]
        for secret in (password, wrong, "s3cr", "t-with@signs", "sk-never-show-4242"):
            assert secret not in shown, (r.args, secret)


def test_the_password_can_live_in_a_file(tmp_path: Path):
    real = urlsplit(neo4j_url())
    secret_file = tmp_path / "neo4j-password"
    secret_file.write_text((real.password or "") + "\n")
    bare = f"{real.scheme}://{real.username}@{real.hostname}:{real.port}"
    env = {"KGMEM_STORE": bare, "KGMEM_STORE_PASSWORD_FILE": str(secret_file)}
    ok = _run(tmp_path / "home", "doctor", "--json", "--group", "password-file-only", env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert (real.password or "") not in ok.stdout + ok.stderr
    missing = _run(tmp_path / "home", "doctor", env={**env, "KGMEM_STORE_PASSWORD_FILE": str(tmp_path / "nope")})
    assert missing.returncode == 1 and "store_password_file" in missing.stdout + missing.stderr
