"""Exit codes a CI can trust (issue 32): inputs not read fail the run, error entries fail by
default, and a failing report says what failed on its first line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.paths import EXAMPLES

import guard
from guard.audit import DEFAULT_FAIL_ON, parse_fail_on, render
from guard.cli import main

CLEAN = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]}


def write_clean(path: Path) -> Path:
    path.write_text(json.dumps(CLEAN) + "\n", encoding="utf-8")
    return path


def test_a_missing_path_beside_a_clean_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = write_clean(tmp_path / "clean.jsonl")
    missing = tmp_path / "missing.jsonl"
    assert main(["audit", str(clean)]) == 0
    assert not capsys.readouterr().out.startswith("FAILED")
    assert main(["audit", str(clean), str(missing)]) == 2
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == f"FAILED (exit 2): 1 input could not be read: {missing}"
    assert f"1 input could not be read: {missing}" in err
    # --fail-on none lets findings and error entries pass, never an input not read
    assert main(["audit", "--fail-on", "none", str(clean), str(missing)]) == 2


def test_an_unreadable_file_exits_2(tmp_path: Path) -> None:
    clean = write_clean(tmp_path / "clean.jsonl")
    locked = write_clean(tmp_path / "locked.jsonl")
    locked.chmod(0)
    try:
        if locked.open("rb"):  # root reads anything: the case cannot be made here
            pytest.skip("this user can read a file without permissions")
    except PermissionError:
        pass
    try:
        assert main(["audit", "--summary", str(clean), str(locked)]) == 2
    finally:
        locked.chmod(0o600)


def test_a_forced_format_that_reads_no_record_exits_2(tmp_path: Path) -> None:
    clean = write_clean(tmp_path / "clean.jsonl")
    answer = tmp_path / "answer.txt"
    answer.write_text("just some text\n", encoding="utf-8")
    report = guard.audit([clean, answer], format="openai")
    assert report.summary.transcripts == 1
    assert report.unread_inputs() == [str(answer)]
    assert report.failure("none") == (2, f"1 input could not be read: {answer}")
    assert main(["audit", "--format", "openai", str(clean), str(answer)]) == 2
    # sniffed files are another matter: the same text is skipped as not a transcript
    assert main(["audit", str(clean), str(answer)]) == 0


def test_error_entries_fail_by_default_and_leak_alone_opts_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text(json.dumps(CLEAN) + "\n{not json\n", encoding="utf-8")
    report = guard.audit(path)
    assert report.summary.transcripts == 1 and len(report.errors) == 1
    assert report.exit_code() == 1 and report.exit_code(DEFAULT_FAIL_ON) == 1
    assert report.exit_code("leak") == 0 and report.exit_code("none") == 0
    assert report.exit_code("injection,error") == 1
    assert main(["audit", str(path)]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "FAILED (exit 1, --fail-on leak,error): 1 error entry (input not read)"
    assert main(["audit", "--fail-on", "leak", str(path)]) == 0
    assert not capsys.readouterr().out.startswith("FAILED")


def test_the_first_line_names_the_findings_that_fail() -> None:
    report = guard.audit(EXAMPLES / "openai.jsonl")
    first = render(report, fail_on="injection").splitlines()[0]
    assert first == "FAILED (exit 1, --fail-on injection): 14 leaks, 6 injections"
    assert not render(report, fail_on="none").startswith("FAILED")
    assert not render(report).startswith("FAILED")  # the library's render, unasked


def test_the_examples_still_pass_with_fail_on_none() -> None:
    """.ci/run's first command: the shipped examples are all read."""
    report = guard.audit(EXAMPLES)
    assert report.errors == [] and report.unread_inputs() == []
    assert report.exit_code("none") == 0


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("leak", {"leak"}),
        ("leak,error", {"leak", "error"}),
        (" injection , error ", {"injection", "error"}),
        ("none", set()),
        (("leak", "error"), {"leak", "error"}),
    ],
)
def test_fail_on_values(value: str, expected: set[str]) -> None:
    assert parse_fail_on(value) == expected


@pytest.mark.parametrize("value", ["", "leak,", "sometimes", "none,leak", ["leak", 3]])
def test_bad_fail_on_values_are_refused(value: object) -> None:
    with pytest.raises(ValueError, match="fail_on"):
        parse_fail_on(value)  # type: ignore[arg-type]


def test_bad_fail_on_on_the_command_line_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exc:
        main(["audit", "--fail-on", "leak,sometimes", "-"])
    assert exc.value.code == 2
