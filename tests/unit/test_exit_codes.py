"""Exit codes are one table, one meaning each: the README shows exactly ``errors.EXIT_CODES``, and every
error class and every explicit exit in the CLI uses a code of that table."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from kg_memory import errors
from kg_memory.maintenance import archive
from kg_memory.maintenance import runner as jobs

ROOT = Path(__file__).resolve().parents[2]


def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


def test_the_readme_table_is_the_code_table():
    text = (ROOT / "README.md").read_text()
    rows = re.findall(r"^\| (\d+) \| (.+) \|$", text[text.index("| code | meaning |"):], re.M)
    shown = {}
    for code, meaning in rows:
        if int(code) in shown:
            break
        shown[int(code)] = meaning
    assert shown == errors.EXIT_CODES


def test_no_code_means_two_things():
    assert archive.ArchiveError.exit_code == errors.EXIT_ARCHIVE != errors.EXIT_STORE
    assert jobs.JobBusy.exit_code == errors.EXIT_BUSY != errors.EXIT_EPISODES_FAILED
    for cls in [errors.KgMemError, *_subclasses(errors.KgMemError)]:
        assert cls.exit_code in errors.EXIT_CODES and cls.exit_code != 0, cls


def test_the_cli_exits_only_with_named_codes():
    for path in (ROOT / "kg_memory" / "cli").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "Exit" and node.args:
                arg = node.args[0]
                assert not isinstance(arg, ast.Constant), f"{path.name}:{node.lineno}: a bare exit code"
