"""The Ray engine (``guard audit --engine ray``) against the local engine, in one run.

    python benchmarks/bench_ray.py [--mb 200] [--dirty 0.01] [--cpus 1 2] [--quick]

Generates a JSONL file of about ``--mb`` MB of agent transcripts (those of
``bench_audit.py``; a share ``--dirty`` carries a planted leak or injection) in a temporary
directory, then times on the same file: the local engine with 1 and 2 worker processes, and
the Ray engine on a local Ray with 1 and 2 CPUs. For Ray it also times the fixed start-up cost:
``ray.init`` of a local Ray, and the audit of a tiny file (one transcript) right after it (the
actors start), which is what any run pays before the first megabyte. Every run must give the
same findings and errors. Wall time only (Ray's work runs in its own worker processes); the
load average before and after is printed, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import add_quick, machine, print_table, quick_note, ratio
from bench_audit import generate

import guard

#: the Ray engine needs the ray extra (the dev extra has it)
REQUIRES = ("ray",)


def _load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=200.0, help="size of the generated file")
    parser.add_argument("--dirty", type=float, default=0.01, help="share of planted problems")
    parser.add_argument("--cpus", type=int, nargs="+", default=[1, 2], help="CPU counts to run")
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:  # a smoke test: 2 MB, one local Ray
        args.mb, args.cpus = 2.0, [1]

    import ray

    from guard.integrations.ray import audit_paths

    print(f"load average before: {_load()}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "transcripts.jsonl"
        small = Path(tmp) / "small.jsonl"
        transcripts, messages = generate(path, int(args.mb * 1e6), args.dirty)
        generate(small, int(args.mb * 1e6 / 10), args.dirty)
        mb, small_mb = path.stat().st_size / 1e6, small.stat().st_size / 1e6
        path.read_bytes()  # warm the page cache
        #: (run, wall seconds on the small and the big file, note)
        rows: list[tuple[str, float, float, str]] = []
        reference: guard.AuditReport | None = None

        def check(report: guard.AuditReport) -> None:
            nonlocal reference
            if reference is None:
                reference = report
            assert report.findings == reference.findings, "findings differ between engines"
            assert report.errors == reference.errors, "errors differ between engines"

        def timed(run: Callable[[Path], guard.AuditReport]) -> tuple[float, float]:
            t0 = time.perf_counter()
            run(small)
            t1 = time.perf_counter()
            check(run(path))
            return t1 - t0, time.perf_counter() - t1

        for workers in args.cpus:
            seconds = timed(lambda p, n=workers: guard.audit(p, workers=n))
            rows.append((f"local engine, workers {workers}", *seconds, ""))
        for cpus in args.cpus:
            t0 = time.perf_counter()
            ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
            init = time.perf_counter() - t0
            seconds = timed(lambda p: audit_paths([str(p)]))
            name = f"ray engine, {cpus} CPU{'s' if cpus > 1 else ''}"
            rows.append((name, *seconds, f"+ ray.init {init:.1f} s"))
            ray.shutdown()
        assert reference is not None
        table = []
        firsts: dict[str, float] = {}
        for name, t_small, t_big, note in rows:
            # a line through the two runs: its slope is the marginal rate, its intercept the
            # fixed cost of a run (pool and actor start, planning the first units)
            rate = (mb - small_mb) / max(t_big - t_small, 1e-9)
            fixed = max(t_big - mb / rate, 0.0)
            engine = name.split()[0]
            firsts.setdefault(engine, rate)
            table.append(
                [
                    name,
                    f"{t_small:.2f}",
                    f"{t_big:.2f}",
                    f"{mb / t_big:,.1f}",
                    f"{rate:,.1f}",
                    ratio(rate, firsts[engine]),
                    f"{fixed:.1f} {note}".strip(),
                ]
            )
        print_table(
            f"{mb:,.0f} MB ({small_mb:,.1f} MB for the small run), {transcripts:,} transcripts,"
            f" {messages:,} messages, {len(reference.findings):,} findings; {machine()},"
            f" {os.cpu_count()} cores{quick_note(args.quick)}",
            [
                "run",
                "wall s, small",
                "wall s, big",
                "MB/s (big)",
                "marginal MB/s",
                "scaling ratio (marginal, vs. 1 of its engine)",
                "fixed start-up s",
            ],
            table,
        )
    print(f"load average after: {_load()}")


if __name__ == "__main__":
    main()
