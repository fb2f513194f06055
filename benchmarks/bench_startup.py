"""Start-up cost of the command line: ``guard --version`` and ``guard audit`` of a 1 KB file,
each beside ``python -c pass`` and ``python -c "import json"`` on the same interpreter.

Each command runs ``--runs`` times in a fresh process (byte-code caches allowed, as in an
installed wheel); the table shows the best wall time and
the best CPU time (user + system of the child, which a loaded machine disturbs less), and the
difference to ``import json``. The target of issue 33: ``guard audit`` of a 1 KB file within
150 ms of ``python -c "import json"``.

    python benchmarks/bench_startup.py [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import add_quick, machine, print_table, quick_note, ratio

#: the children may write and read byte-code caches, as an installed wheel has them (pip
#: compiles at install time): without, every run would compile guard's sources again
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
#: the ``guard`` entry point, as the console script runs it
GUARD = ["-c", "import sys; from guard.cli import main; sys.exit(main())"]


def one_kb_transcript(folder: Path) -> Path:
    """A chat log of one record, about 1 KB, with nothing to find."""
    answer = "It is sunny in Paris today, about 20 degrees, with a light wind from the west. "
    record = {
        "messages": [
            {"role": "user", "content": "What is the weather in Paris this afternoon?"},
            {"role": "assistant", "content": answer * 11},
        ]
    }
    path = folder / "one.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


def best_costs(argv: list[str], runs: int) -> tuple[float, float]:
    """Best wall seconds and best child CPU seconds of ``runs`` runs of ``argv``."""
    wall = cpu = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, check=False, env=CHILD_ENV)
        elapsed = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1):
            raise RuntimeError(f"{argv} exited {done.returncode}: {done.stderr.decode()[-300:]}")
        wall = min(wall, elapsed)
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        cpu = min(cpu, used)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10, help="best of this many runs")
    add_quick(parser)
    args = parser.parse_args()
    runs = 2 if args.quick else args.runs
    env_python = [sys.executable]
    with tempfile.TemporaryDirectory() as tmp:
        path = one_kb_transcript(Path(tmp))
        commands = [
            ("python -c pass", [*env_python, "-c", "pass"]),
            ('python -c "import json"', [*env_python, "-c", "import json"]),
            ("guard --version", [*env_python, *GUARD, "--version"]),
            (
                f"guard audit (1 file, {path.stat().st_size:,} bytes)",
                [*env_python, *GUARD, "audit", str(path)],
            ),
        ]
        measured = [(name, *best_costs(argv, runs)) for name, argv in commands]
    base_wall, base_cpu = measured[1][1], measured[1][2]
    rows = [
        [
            name,
            f"{wall * 1000:.0f}",
            f"{(wall - base_wall) * 1000:+.0f}",
            f"{cpu * 1000:.0f}",
            f"{(cpu - base_cpu) * 1000:+.0f}",
            ratio(cpu, base_cpu),
        ]
        for name, wall, cpu in measured
    ]
    print_table(
        f"start-up, best of {runs} fresh processes ({machine()}, cpus {os.cpu_count()})"
        f"{quick_note(args.quick)}",
        ["command", "wall ms", "wall vs import json", "CPU ms", "CPU vs import json", "CPU ratio"],
        rows,
    )


if __name__ == "__main__":
    main()
