"""Smoke test of the benchmarks: every script in ``benchmarks/`` runs with ``--quick`` (tiny
inputs, one run) and prints its Markdown tables, each with a ratio column filled in. Timings are
never asserted: quick figures mean nothing, speed is measured by running the scripts by hand.

Scripts are found by glob, so a new one is picked up without editing this file. A script that
needs an optional package names its import names in a module-level ``REQUIRES`` tuple; it is
skipped, with the reason, when one of them is not installed.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

from benchmarks._common import print_table, ratio

SCRIPTS = sorted(p for p in (ROOT / "benchmarks").glob("*.py") if not p.name.startswith("_"))

_BAR = re.compile(r"(?<!\\)\|")
_SEPARATOR = re.compile(r"^\|---(?:\|---:?)*\|$")
_RATIO = re.compile(r"^-?(?:\d{1,3}(?:,\d{3})*|\d+)(?:\.\d+)?(?:e-?\d+)?x$")


def requires(script: Path) -> tuple[str, ...]:
    """The script's ``REQUIRES`` tuple (optional import names), read without importing it."""
    for node in ast.parse(script.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "REQUIRES" for t in node.targets
        ):
            names = ast.literal_eval(node.value)
            assert isinstance(names, tuple) and all(isinstance(n, str) for n in names), names
            return names
    return ()


def cells(line: str) -> list[str]:
    """The cells of one Markdown table row (escaped bars stay inside their cell)."""
    return [c.strip() for c in _BAR.split(line.strip())[1:-1]]


def tables(output: str) -> list[tuple[list[str], list[list[str]]]]:
    """The Markdown tables in ``output``: (header cells, rows of cells) each."""
    lines = output.splitlines()
    found = []
    for i in range(len(lines) - 1):
        if lines[i].startswith("| ") and _SEPARATOR.match(lines[i + 1]):
            rows = []
            for line in lines[i + 2 :]:
                if not line.startswith("| "):
                    break
                rows.append(cells(line))
            found.append((cells(lines[i]), rows))
    return found


def table_problems(output: str) -> list[str]:
    """What is wrong with the tables a benchmark printed (empty when they are fine)."""
    found = tables(output)
    if not found:
        return ["no Markdown table (header line, then |---|---:| separator)"]
    problems = []
    for header, rows in found:
        where = f"table {header}"
        ratio_columns = [k for k, name in enumerate(header) if "ratio" in name]
        if not ratio_columns:
            problems.append(f"{where}: no ratio column")
        if not rows:
            problems.append(f"{where}: no rows")
        for row in rows:
            if len(row) != len(header):
                problems.append(f"{where}: row {row} has {len(row)} cells, not {len(header)}")
                continue
            bad = [row[k] for k in ratio_columns if row[k] != "-" and not _RATIO.match(row[k])]
            if bad:
                problems.append(f"{where}: row {row[0]!r}: ratio cells {bad} are not like 2.35x")
        if (
            rows
            and ratio_columns
            and not any(
                _RATIO.match(row[k])
                for row in rows
                if len(row) == len(header)
                for k in ratio_columns
            )
        ):
            problems.append(f"{where}: no ratio figure in any row")
    return problems


def test_the_glob_finds_the_benchmarks() -> None:
    names = {p.name for p in SCRIPTS}
    assert {"bench_detect.py", "bench_serve.py", "load_serve.py"} <= names
    assert "_common.py" not in names


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_quick_run_prints_tables_with_ratios(script: Path) -> None:
    missing = [name for name in requires(script) if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"{script.name} needs {', '.join(missing)} (the dev extra), not installed")
    done = subprocess.run(
        [sys.executable, str(script.relative_to(ROOT)), "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr[-3000:]}"
    assert table_problems(done.stdout) == [], done.stdout


# The checker itself, so that the smoke test cannot pass on output it should reject.


def test_checker_accepts_a_table_printed_by_the_shared_helper(
    capsys: pytest.CaptureFixture[str],
) -> None:
    print_table("t", ["input | kind", "MB/s", "time ratio vs floor"], [["a|b", "3.0", ratio(3, 1)]])
    out = capsys.readouterr().out
    assert table_problems(out) == []
    assert tables(out) == [
        (["input \\| kind", "MB/s", "time ratio vs floor"], [["a\\|b", "3.0", "3.00x"]])
    ]


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        ("no table at all\n", "no Markdown table"),
        ("| a | b |\n|---|---:|\n| x | 1.0 |\n", "no ratio column"),
        ("| a | ratio |\n|---|---:|\n", "no rows"),
        ("| a | ratio |\n|---|---:|\n| x | 2.0 |\n", "not like 2.35x"),
        ("| a | ratio |\n|---|---:|\n| x | - |\n", "no ratio figure"),
        ("| a | ratio |\n|---|---:|\n| x |\n", "has 1 cells"),
    ],
)
def test_checker_rejects(output: str, problem: str) -> None:
    assert any(problem in p for p in table_problems(output)), table_problems(output)


def test_requires_reads_the_optional_imports_without_importing(tmp_path: Path) -> None:
    bench = ROOT / "benchmarks"
    assert requires(bench / "bench_scanner.py") == ("openai_harmony",)
    assert requires(bench / "bench_detect.py") == ()
    script = tmp_path / "bench_x.py"
    script.write_text('import not_installed_anywhere\nREQUIRES = ("not_installed_anywhere",)\n')
    assert requires(script) == ("not_installed_anywhere",)


def test_print_table_refuses_a_table_without_ratio() -> None:
    with pytest.raises(ValueError, match="no ratio column"):
        print_table("t", ["input", "MB/s"], [["a", "1"]])


@pytest.mark.parametrize(
    ("value", "floor", "shown"),
    [
        (3, 1, "3.00x"),
        (25, 2, "12.5x"),
        (123_456, 1, "123,456x"),
        (1, 1000, "0.001x"),
        (1, 0, "-"),
        (float("nan"), 1, "-"),
    ],
)
def test_ratio(value: float, floor: float, shown: str) -> None:
    assert ratio(value, floor) == shown
    assert shown == "-" or _RATIO.match(shown)
