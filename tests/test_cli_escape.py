"""`guard escape` / `guard unescape` on the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard import escape
from guard.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "corpora" / "examples" / "tool_result.txt"


def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "guard", *args], input=stdin, capture_output=True, check=False
    )


def test_escape_example_file_round_trips_through_the_cli() -> None:
    escaped = run("escape", str(EXAMPLE))
    assert escaped.returncode == 0, escaped.stderr
    assert b"<|" not in escaped.stdout.replace(b"<| x |>", b"")
    back = run("unescape", stdin=escaped.stdout)
    assert back.returncode == 0
    assert back.stdout == EXAMPLE.read_bytes()


def test_escape_stdin_is_lossless_on_crlf_and_unicode() -> None:
    data = "a\r\nb <|start|> 猫 \u200b\n\n".encode()
    out = run("escape", "-", stdin=data)
    assert out.stdout.decode() == escape(data.decode())


def test_invalid_utf8_is_a_clear_error_with_exit_code_2() -> None:
    out = run("escape", stdin=b"ok \xff\xfe bad")
    assert out.returncode == 2
    assert b"expected UTF-8" in out.stderr and b"offset 3" in out.stderr
    assert out.stdout == b""


def test_missing_file_exit_code_2(tmp_path: Path) -> None:
    out = run("escape", str(tmp_path / "nope.txt"))
    assert out.returncode == 2 and b"cannot read" in out.stderr


def test_json_mode_keeps_valid_json_and_rejects_invalid() -> None:
    out = run("escape", "--json", stdin=b'{"a": ["<|call|>"]}')
    assert out.returncode == 0
    assert json.loads(out.stdout) == {"a": ["<\\|call\\|>"]}
    bad = run("escape", "--json", stdin=b'{"a": ')
    assert bad.returncode == 2 and b"line 1 column" in bad.stderr


def test_unknown_dialect_exit_code_2() -> None:
    out = run("escape", "--dialect", "nope", stdin=b"x")
    assert out.returncode == 2 and b"expected one of" in out.stderr


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_cli_escape_equals_library_escape(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    path = tmp_path_factory.mktemp("cli") / "in.txt"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        return  # not encodable as UTF-8 text; covered by the invalid UTF-8 test
    import io

    out = io.BytesIO()

    class _Out:
        buffer = out

    saved = sys.stdout
    sys.stdout = _Out()  # type: ignore[assignment]
    try:
        assert main(["escape", str(path)]) == 0
    finally:
        sys.stdout = saved
    assert out.getvalue().decode() == escape(text)
