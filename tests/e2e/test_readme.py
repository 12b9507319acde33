"""The README as a user reads it (as sqlite-utils tests its docs): every CLI command and option is
named in it, and its Python examples run, on the embedded store, as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import click
import typer.main

from kg_memory.cli import app

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def _commands(cmd: click.Command, path: list[str]) -> list[tuple[str, click.Command]]:
    if hasattr(cmd, "commands"):  # a group (typer's own Group class is not click's)
        return [c for name, sub in cmd.commands.items() for c in _commands(sub, [*path, name])]
    return [(" ".join(path), cmd)]


def test_every_command_and_option_is_in_the_readme():
    missing = []
    for name, cmd in _commands(typer.main.get_command(app), []):
        if name and f"kgmem {name}" not in README:
            missing.append(f"kgmem {name}")
        missing += [f"kgmem {name} {opt}" for p in cmd.params for opt in p.opts
                    if opt.startswith("--") and opt not in README]
    assert missing == []


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README, re.S)


def test_the_readme_python_examples_run(tmp_path: Path):
    first, agent = _python_blocks()[:2]
    # the agent block goes on from the first one's memory: open it again, as a program would
    script = f"{first}\nmem = Memory.open('sqlite:///memory.db')\n{agent}\nmem.close()\nprint('ran')\n"
    env = {**os.environ, "KGMEM_HOME": str(tmp_path / "home")}
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith("ran"), proc.stderr[-2000:]
    assert "Lisbon" in proc.stdout


def _docstring_examples() -> list[str]:
    """The modules of kg_memory whose docstrings hold ``>>>`` examples."""
    pkg = ROOT / "kg_memory"
    return sorted(".".join(p.relative_to(ROOT).with_suffix("").parts) for p in pkg.rglob("*.py")
                  if ">>> " in p.read_text())


def test_the_docstring_examples_run(tmp_path: Path):
    """Every ``>>>`` example in the library's docstrings runs and prints what it shows (doctest),
    each module in a fresh process on the embedded store; ``tmp`` is a scratch folder."""
    modules = _docstring_examples()
    assert "kg_memory.memory" in modules and "kg_memory.agent.tools" in modules
    for name in modules:
        script = ("import doctest, importlib, sys\n"
                  f"m = importlib.import_module({name!r})\n"
                  f"r = doctest.testmod(m, extraglobs={{'tmp': {str(tmp_path)!r}}})\n"
                  "print(r.attempted, r.failed)\nsys.exit(1 if r.failed or not r.attempted else 0)\n")
        env = {**os.environ, "KGMEM_HOME": str(tmp_path / "home")}
        proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                              env=env, timeout=300)
        assert proc.returncode == 0, f"{name}:\n{proc.stdout[-3000:]}{proc.stderr[-1000:]}"
