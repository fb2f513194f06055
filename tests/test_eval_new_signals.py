"""`guard eval` reports each signal of issue 11 (V, J, U, A, E) with precision and recall on the
shipped corpora, in the JSON report and the table."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from guard.evaluation import CORPUS_DIR, evaluate_cases, load_cases

NEW = ("V", "J", "U", "A", "E")


@pytest.mark.parametrize("code", NEW)
def test_each_new_signal_has_labelled_cases_and_a_score(code: str) -> None:
    report = evaluate_cases(load_cases([CORPUS_DIR])[0])
    score = report.by_signal[code]
    assert score.tp > 0  # the corpus exercises it
    assert score.fn == 0 and score.fp == 0
    assert score.precision == 1.0 and score.recall == 1.0


def test_the_cli_table_and_json_list_every_new_signal() -> None:
    table = subprocess.run(
        [sys.executable, "-m", "guard", "eval"], capture_output=True, text=True, check=False
    )
    assert table.returncode == 0, table.stderr
    rows = {line.split("|")[1].strip() for line in table.stdout.splitlines() if line[:2] == "| "}
    assert set(NEW) <= rows
    out = subprocess.run(
        [sys.executable, "-m", "guard", "eval", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    by_signal = json.loads(out.stdout)["by_signal"]
    for code in NEW:
        assert {"tp", "fp", "fn"} <= set(by_signal[code]), code
