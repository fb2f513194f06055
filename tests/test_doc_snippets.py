"""Every ```python block in README.md and docs/*.md runs as written, each in a fresh interpreter
in an empty working directory: a snippet that uses a name it does not define, or promises a
result the code does not give (the ``assert`` lines in them), fails here.

A block that needs what a test run has not got (a provider, a server, a framework's network
client, the caller's own data) says so on its first line with ``# doc: not run (REASON)``; the
reason is required, and those blocks are still compiled, so they cannot rot into invalid
Python."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
_NOT_RUN = re.compile(r"#\s*doc:\s*not run\s*\((?P<reason>[^)]+)\)")


def _blocks() -> list[tuple[str, str]]:
    found = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{document.relative_to(ROOT)}:{line}", match.group(1)))
    return found


BLOCKS = _blocks()


def test_the_documents_have_python_blocks() -> None:
    assert len(BLOCKS) >= 5
    assert any(where.startswith("README.md") for where, _ in BLOCKS)


@pytest.mark.parametrize(("where", "code"), BLOCKS, ids=[w for w, _ in BLOCKS])
def test_python_block_runs(where: str, code: str, tmp_path: Path) -> None:
    compile(code, where, "exec")  # every block is valid Python, run or not
    first = code.split("\n", 1)[0]
    marked = _NOT_RUN.search(first)
    if marked:
        pytest.skip(f"{where}: not run ({marked['reason']})")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{where} failed:\n{done.stderr[-3000:]}"
