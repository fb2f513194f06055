"""Run the fuzz targets for longer: ``python -m tests.fuzz.run [TARGET ...]``.

``FUZZ_SECONDS`` (default 60) is the budget per target. With atheris installed (``pip install
atheris``) each target runs coverage-guided in a process of its own, from its seed corpus in
``tests/fuzz/corpus/<target>/`` (new inputs that add coverage go to ``.fuzz-work/<target>/``, a
crash is written to ``.fuzz-work/crash-*`` and ends the run with a nonzero exit code). Without
atheris, hypothesis generates inputs for the same budget. Prints one line per target: its
executions and crashes.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
WORK = HERE.parents[1] / ".fuzz-work"


def _atheris() -> object | None:
    try:
        return importlib.import_module("atheris")
    except ImportError:
        return None


def _one_atheris(name: str, seconds: int) -> None:
    """In a child process: fuzz ``name`` coverage-guided until the budget ends (never returns)."""
    atheris: object = importlib.import_module("atheris")
    with atheris.instrument_imports():  # type: ignore[attr-defined]
        targets = importlib.import_module(f"{__package__}.targets")
    target = targets.TARGETS[name]
    work = WORK / name
    work.mkdir(parents=True, exist_ok=True)
    args = [
        sys.argv[0],
        str(work),
        str(CORPUS / name),
        f"-max_total_time={seconds}",
        f"-artifact_prefix={WORK}/crash-{name}-",
        "-print_final_stats=1",
        "-max_len=4096",
    ]
    atheris.Setup(args, target)  # type: ignore[attr-defined]
    atheris.Fuzz()  # type: ignore[attr-defined]


def _one_hypothesis(name: str, seconds: int) -> tuple[int, int]:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    targets = importlib.import_module(f"{__package__}.targets")
    target = targets.TARGETS[name]
    for seed in sorted((CORPUS / name).glob("*")):
        target(seed.read_bytes())
    runs = 0
    deadline = time.monotonic() + seconds

    @settings(
        max_examples=10**9, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(st.binary(max_size=4096))
    def fuzz(data: bytes) -> None:
        nonlocal runs
        runs += 1
        if time.monotonic() > deadline:
            raise _Done
        target(data)

    with contextlib.suppress(_Done):
        fuzz()
    return runs, 0


class _Done(Exception):
    pass


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--child":
        _one_atheris(argv[1], int(os.environ.get("FUZZ_SECONDS", "60")))
        return 0
    targets = importlib.import_module(f"{__package__}.targets")
    names = argv or list(targets.TARGETS)
    seconds = int(os.environ.get("FUZZ_SECONDS", "60"))
    failed = 0
    for name in names:
        if name not in targets.TARGETS:
            print(f"unknown target {name!r}; targets: {', '.join(targets.TARGETS)}")
            return 2
        if _atheris() is not None:
            out = subprocess.run(
                [sys.executable, "-m", f"{__package__}.run", "--child", name],
                capture_output=True,
                text=True,
                check=False,
            )
            stats = [line for line in out.stderr.splitlines() if line.startswith("stat::")]
            runs = next(
                (s.split(":")[-1].strip() for s in stats if "number_of_executed_units" in s), "?"
            )
            crashed = out.returncode != 0
            failed += crashed
            print(f"{name}: atheris, {runs} executions, {int(crashed)} crash(es)")
            if crashed:
                print(out.stderr[-4000:])
        else:
            count, _ = _one_hypothesis(name, seconds)
            print(f"{name}: hypothesis, {count} executions, 0 crashes")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
