"""`guard eval`: the shipped corpora pass; a disagreeing case fails the run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from guard.evaluation import CORPUS_DIR, evaluate_cases, load_cases


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guard", "eval", *args], capture_output=True, text=True, check=False
    )


def test_shipped_corpora_have_at_least_150_cases_and_every_signal() -> None:
    cases, errors = load_cases([CORPUS_DIR])
    assert not errors and len(cases) >= 150
    expected = {code for _, c in cases for code in c.signals}
    assert set("HKMCGSBRT") <= expected
    labels = {c.label for _, c in cases}
    assert labels == {"leak", "benign", "injection"}


def test_shipped_corpora_agree_with_their_labels() -> None:
    report = evaluate_cases(load_cases([CORPUS_DIR])[0])
    assert report.ok, [m.model_dump() for m in report.misses]
    assert all(s.fp == 0 for s in report.by_surface.values())


def test_eval_cli_exit_codes(tmp_path: Path) -> None:
    ok = run()
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "misses: 0" in ok.stdout and "| text |" in ok.stdout
    wrong = tmp_path / "wrong.jsonl"
    case = {
        "id": "mislabelled",
        "text": "plain prose",
        "surface": "text",
        "label": "leak",
        "source": "written",
        "note": "deliberately wrong",
    }
    wrong.write_text(json.dumps(case) + "\n{not json\n")
    bad = run(str(wrong))
    assert bad.returncode == 1
    assert "mislabelled" in bad.stdout and "missed leak" in bad.stdout
    assert "wrong.jsonl:2: invalid case" in bad.stdout
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert run(str(empty)).returncode == 2
    assert run(str(tmp_path / "missing.jsonl")).returncode == 2


def test_eval_json_report() -> None:
    out = run("--json")
    report = json.loads(out.stdout)
    assert report["cases"] >= 150 and report["misses"] == []


def test_invalid_cases_name_file_line_and_field(tmp_path: Path) -> None:
    wrong = tmp_path / "w.jsonl"
    case = {"id": "a", "text": 5, "surface": "text", "label": "maybe", "source": "x", "more": 1}
    wrong.write_text(json.dumps(case) + "\n{not json\n", encoding="utf-8")
    out = run(str(wrong)).stdout
    first = next(line for line in out.splitlines() if "w.jsonl:1:" in line)
    assert "validation error" not in out  # pydantic's own summary line is not the message
    assert "field 'text': input should be a valid string, got 5" in first
    assert "field 'label': input should be 'leak', 'benign' or 'injection', got 'maybe'" in first
    assert "field 'note': missing (required)" in first
    assert "field 'more': not a field of a case" in first
    assert f"{wrong}:2: invalid case: not JSON: Expecting property name" in out
