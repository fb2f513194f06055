"""Audit throughput (MB/s, messages/s) on a generated JSONL of mostly clean transcripts, with
1 and 2 workers, in one run beside reading and ``json.loads``-ing the same file without detection
(the floor), and each worker count beside the first one. The file is generated in a temporary
directory and removed afterwards.

    python benchmarks/bench_audit.py [--size-mb 200] [--dirty 0.01] [--workers 1 2] [--runs 3]
        [--quick]

Transcripts are OpenAI chat agent sessions: a system prompt, a user request, then turns of
reasoning, tool calls with JSON arguments, tool results (prose, code, Markdown tables) and an
answer. A fraction ``--dirty`` of them carries one leak or injection. Each figure is the best
of ``--runs`` runs, taken in turns (the baseline, then each worker count, then again), so that
every row's best comes from the same stretches of time on a machine whose speed drifts.
Besides wall time the table gives CPU seconds of all processes (the audit's workers included):
on a shared machine wall time depends on what else runs, CPU time much less.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from _common import add_quick, machine, print_table, prose, quick_note, ratio

import guard

T = TypeVar("T")
TOOLS = ["read_file", "run_shell", "search_docs", "get_weather", "edit_file"]
PROBLEMS = [
    ("text", "Done.}]}analysis to=functions.edit code 大发官网"),
    ("text", "Here is the summary.assistantfinalThe file has 3 functions."),
    ("thinking", "analysisThe user wants the file. I should call the tool."),
    ("arguments", '{"path": "a.py"} analysis to=functions.edit_file code 大发官网'),
    ("name", "read_file<|channel|>commentary"),
    ("user", "What does <|start|> mean in the gpt-oss format?"),
    ("tool", "docs: a header names its channel with <|channel|>."),
]


def _table(rng: random.Random) -> str:
    rows = [
        f"| {rng.choice(TOOLS)} | {rng.randint(1, 999)} | ok |" for _ in range(rng.randint(2, 6))
    ]
    return "| tool | calls | status |\n|---|---:|---|\n" + "\n".join(rows)


def _code(rng: random.Random) -> str:
    name = rng.choice(["load", "parse", "merge", "count"])
    body = "\n".join(f"    value = value + {i}" for i in range(rng.randint(2, 12)))
    return f"def {name}(value: int) -> int:\n{body}\n    return value\n"


def _result(rng: random.Random, seed: int) -> str:
    kind = rng.random()
    if kind < 0.5:
        return prose(rng.randint(200, 4000), seed)
    if kind < 0.8:
        return _code(rng)
    return _table(rng)


def transcript(rng: random.Random, seed: int, problem: tuple[str, str] | None) -> dict[str, Any]:
    where, bad = problem if problem else ("", "")
    msgs: list[dict[str, Any]] = [
        {"role": "system", "content": prose(rng.randint(300, 800), seed)},
        {"role": "user", "content": bad if where == "user" else prose(rng.randint(50, 300), seed)},
    ]
    for turn in range(rng.randint(1, 4)):
        tool = rng.choice(TOOLS)
        call_id = f"call_{seed}_{turn}"
        arguments = json.dumps({"path": f"src/mod{rng.randint(1, 99)}.py", "limit": 200})
        last = turn == 0
        msgs.append(
            {
                "role": "assistant",
                "content": None,
                "reasoning_content": bad
                if where == "thinking" and last
                else prose(rng.randint(100, 600), seed + turn),
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": bad if where == "name" and last else tool,
                            "arguments": bad if where == "arguments" and last else arguments,
                        },
                    }
                ],
            }
        )
        msgs.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "content": bad if where == "tool" and last else _result(rng, seed + turn),
            }
        )
    answer = prose(rng.randint(100, 800), seed + 99)
    if rng.random() < 0.2:
        answer += "\n\n" + _table(rng)
    msgs.append({"role": "assistant", "content": bad if where == "text" else answer})
    return {"messages": msgs}


def generate(
    path: Path, size: int, dirty: float, seed: int = 11, distinct: int = 1500
) -> tuple[int, int]:
    """Write about ``size`` bytes of transcripts drawn from ``distinct`` generated ones;
    returns (transcripts, messages)."""
    rng = random.Random(seed)
    pool = []
    for i in range(distinct):
        problem = rng.choice(PROBLEMS) if rng.random() < dirty else None
        pool.append(json.dumps(transcript(rng, i, problem), ensure_ascii=False).encode() + b"\n")
    counts = [line.count(b'"role"') for line in pool]
    written = transcripts = messages = 0
    with path.open("wb") as f:
        while written < size:
            k = rng.randrange(len(pool))
            f.write(pool[k])
            written += len(pool[k])
            transcripts += 1
            messages += counts[k]
    return transcripts, messages


def cpu() -> float:
    """CPU seconds of this process and of its finished children (the audit's workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def baseline(path: Path) -> int:
    """Read the file line by line and parse every line: the floor audit is compared with."""
    messages = 0
    with path.open("rb") as f:
        for line in f:
            messages += len(json.loads(line)["messages"])
    return messages


def timed(fn: Callable[[], T]) -> tuple[float, float, T]:
    """(wall seconds, CPU seconds, result) of one call of ``fn``."""
    t0, c0 = time.perf_counter(), cpu()
    result = fn()
    return time.perf_counter() - t0, cpu() - c0, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mb", type=float, default=200.0, help="size of the generated file")
    parser.add_argument(
        "--dirty", type=float, default=0.01, help="share of transcripts with a problem"
    )
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--runs", type=int, default=3, help="best of this many runs each, taken in turns"
    )
    add_quick(parser)
    args = parser.parse_args()
    # quick: two units of CHUNK_BYTES (so two workers share them), a problem in one in five
    size_mb, runs, dirty, distinct = (
        (1.5, 1, 0.2, 40) if args.quick else (args.size_mb, args.runs, args.dirty, 1500)
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "transcripts.jsonl"
        transcripts, messages = generate(path, int(size_mb * 1e6), dirty, distinct=distinct)
        mb = path.stat().st_size / 1e6
        baseline(path)  # warm the page cache
        # warm guard's lazy state (imports, compiled patterns) on a few transcripts, so that
        # the first measured run does not pay for it
        warm = Path(tmp) / "warm.jsonl"
        with path.open("rb") as f:
            warm.write_bytes(b"".join(line for _, line in zip(range(50), f, strict=False)))
        guard.audit(warm)
        # the runs take turns (the baseline, then each worker count), so that on a machine
        # whose speed drifts every row's best comes from the same stretches of time
        wall = [float("inf")] * (1 + len(args.workers))
        used = wall[:]
        reports: dict[int, guard.AuditReport] = {}
        for _ in range(runs):
            w, c, counted = timed(lambda: baseline(path))
            assert counted == messages
            wall[0], used[0] = min(wall[0], w), min(used[0], c)
            for k, workers in enumerate(args.workers, 1):
                w, c, reports[workers] = timed(lambda n=workers: guard.audit(path, workers=n))
                wall[k], used[k] = min(wall[k], w), min(used[k], c)
        rows: list[tuple[str, float, float, guard.AuditReport | None]] = [
            ("read + json.loads (no detection)", wall[0], used[0], None)
        ]
        for k, workers in enumerate(args.workers, 1):
            rows.append((f"guard.audit, workers {workers}", wall[k], used[k], reports[workers]))
        first = reports[args.workers[0]]
        for report in reports.values():
            assert report.findings == first.findings and report.errors == first.errors
    base_wall, base_cpu = rows[0][1], rows[0][2]
    first_wall = rows[1][1]
    table = []
    for name, seconds, cpu_s, result in rows:
        table.append(
            [
                name,
                f"{seconds:.2f}",
                f"{mb / seconds:,.1f}",
                f"{messages / seconds:,.0f}",
                ratio(seconds, base_wall),
                f"{cpu_s:.2f}",
                ratio(cpu_s, base_cpu),
                ratio(seconds, first_wall),
                "-" if result is None else f"{len(result.findings):,}",
            ]
        )
    print_table(
        f"audit throughput: {mb:,.1f} MB, {transcripts:,} transcripts, {messages:,} messages,"
        f" {dirty:.0%} with a problem; {machine()}; best of {runs}{quick_note(args.quick)}",
        [
            "run",
            "wall s",
            "MB/s",
            "messages/s",
            "wall ratio vs read + json.loads",
            "CPU s (all processes)",
            "CPU ratio vs read + json.loads",
            f"wall ratio vs workers {args.workers[0]}",
            "findings",
        ],
        table,
    )


if __name__ == "__main__":
    main()
