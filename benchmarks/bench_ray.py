"""The Ray engine (``guard audit --engine ray``) against the local engine, in one run.

    python benchmarks/bench_ray.py [--mb 200] [--dirty 0.01] [--cpus 1 2]

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
from pathlib import Path

from _common import machine
from bench_audit import generate

import guard


def _load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=200.0, help="size of the generated file")
    parser.add_argument("--dirty", type=float, default=0.01, help="share of planted problems")
    parser.add_argument("--cpus", type=int, nargs="+", default=[1, 2], help="CPU counts to run")
    args = parser.parse_args()

    import ray

    from guard.integrations.ray import audit_paths

    print(f"load average before: {_load()}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "transcripts.jsonl"
        tiny = Path(tmp) / "tiny.jsonl"
        transcripts, messages = generate(path, int(args.mb * 1e6), args.dirty)
        generate(tiny, 1, 0.0)
        mb = path.stat().st_size / 1e6
        path.read_bytes()  # warm the page cache
        #: (run, wall seconds, seconds of its fixed start-up or 0, start-up note)
        rows: list[tuple[str, float, float, str]] = []
        reference: guard.AuditReport | None = None

        def check(report: guard.AuditReport) -> None:
            nonlocal reference
            if reference is None:
                reference = report
            assert report.findings == reference.findings, "findings differ between engines"
            assert report.errors == reference.errors, "errors differ between engines"

        for workers in args.cpus:
            t0 = time.perf_counter()
            check(guard.audit(path, workers=workers))
            rows.append((f"local engine, workers {workers}", time.perf_counter() - t0, 0.0, ""))
        for cpus in args.cpus:
            t0 = time.perf_counter()
            ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
            init = time.perf_counter() - t0
            t0 = time.perf_counter()
            audit_paths([str(tiny)])  # starts its actors, as every run does
            first = time.perf_counter() - t0
            t0 = time.perf_counter()
            check(audit_paths([str(path)]))
            rows.append(
                (
                    f"ray engine, {cpus} CPU{'s' if cpus > 1 else ''}",
                    time.perf_counter() - t0,
                    first,
                    f"ray.init {init:.1f} s; a run's own start (tiny file) {first:.1f} s",
                )
            )
            ray.shutdown()
        assert reference is not None
        print(
            f"# {mb:,.0f} MB, {transcripts:,} transcripts, {messages:,} messages,"
            f" {len(reference.findings):,} findings; {machine()}, {os.cpu_count()} cores"
        )
        print(
            "| run | wall s | MB/s | MB/s after the run's start-up | scaling"
            " | fixed start-up (Ray) |"
        )
        print("|---|---:|---:|---:|---:|---|")
        firsts: dict[str, float] = {}
        for name, seconds, start, note in rows:
            engine = name.split()[0]
            net = max(seconds - start, 1e-9)
            firsts.setdefault(engine, net)
            print(
                f"| {name} | {seconds:.2f} | {mb / seconds:,.1f} | {mb / net:,.1f}"
                f" | {firsts[engine] / net:.2f}x | {note} |"
            )
    print(f"load average after: {_load()}")


if __name__ == "__main__":
    main()
