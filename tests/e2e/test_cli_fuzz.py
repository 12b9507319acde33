"""A hypothesis fuzz of the CLI's arguments (in process, through Typer's runner, on an
embedded store): every run ends in success or a clean exit code with an `Error:` line
or a usage message, never an uncaught exception. KGMEM_CLI_FUZZ_EXAMPLES sets the count."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kg_memory.cli import app
from kg_memory.errors import EXIT_CODES

from ..conftest import SAMPLE

EXAMPLES = int(os.environ.get("KGMEM_CLI_FUZZ_EXAMPLES", "40"))
COMMANDS = [["recall"], ["facts"], ["history"], ["timeline"], ["correct"], ["change"], ["retire"], ["forget"],
            ["groups"], ["ingest"]]
OPTIONS = ["--group", "-g", "--as-of", "--known-at", "-k", "--k", "--half-life", "--json", "--explain", "--entity",
           "--predicate", "-p", "--all-versions", "--limit", "--at", "--reason", "--episode", "--yes", "--format",
           "--on-error", "-o", "--output", "--all-groups", "--retry-failed", "--quiet"]
VALUES = st.one_of(st.sampled_from(["User", "demo", "0", "-1", "201", "1e20", "2024-01-01", "9999-12-31T23:00:00-05:00",
                                    "not a date", "", " ", "lives_in", "LIVES IN", "fv_x", "skip", "chat", "-",
                                    "../../etc/passwd", "a" * 3000, "out.pdf", "x.svg", "\u0000"]),
                   st.text(max_size=20).filter(lambda t: "\x00" not in t))
ARGS = st.tuples(st.sampled_from(COMMANDS),
                 st.lists(st.one_of(st.sampled_from(OPTIONS), VALUES), max_size=6))


@pytest.fixture(scope="module")
def fuzz_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("cli-fuzz")
    result = CliRunner().invoke(app, ["ingest", str(SAMPLE), "--group", "demo", "--quiet"],
                                env={"KGMEM_HOME": str(home)})
    assert result.exit_code == 0, result.output
    return home


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow])
@given(args=ARGS)
def test_cli_arguments_never_crash(fuzz_home: Path, args, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    command, rest = args
    monkeypatch.chdir(tmp_path)  # files a command writes (a timeline) land here
    if command == ["forget"] and "--yes" in rest:
        rest = [a for a in rest if a != "--yes"]  # keep the shared fixture store
    result = CliRunner().invoke(app, [*command, *rest], env={"KGMEM_HOME": str(fuzz_home), "KGMEM_STORE": ""},
                                input="")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"kgmem {command + rest} raised {result.exception!r}") from result.exception
    assert result.exit_code in EXIT_CODES, (command + rest, result.exit_code, result.output)
    assert "Traceback" not in result.output
    if result.exit_code != 0:  # a failure says why: an `Error:` line, or the usage of a bad command line
        assert "Error:" in result.output or "Usage:" in result.output, (command + rest, result.output)
