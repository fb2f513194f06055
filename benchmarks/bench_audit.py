"""Audit throughput (MB/s, messages/s) on a generated JSONL of mostly clean transcripts, with
1 and 2 workers, in one run beside reading and ``json.loads``-ing the same file without detection
(the floor), and each worker count beside the first one. The file is generated in a temporary
directory and removed afterwards.

    python benchmarks/bench_audit.py [--size-mb 200] [--dirty 0.01] [--workers 1 2] [--runs 3]
        [--openers 0.2] [--distinct 1500] [--quick]

Transcripts are OpenAI chat agent sessions: a system prompt, a user request, then turns of
reasoning, tool calls with JSON arguments, tool results (prose, code, Markdown tables) and an
answer. A fraction ``--dirty`` of them carries one leak or injection. Each figure is the best
of ``--runs`` runs, taken in turns (the baseline, then each worker count, then again), so that
every row's best comes from the same stretches of time on a machine whose speed drifts.
Besides wall time the table gives CPU seconds of all processes (the audit's workers included):
on a shared machine wall time depends on what else runs, CPU time much less.

Two more rows time chat logs (a system prompt, then user and assistant turns, no tools) whose
answers open with the words the reasoning-voice cue looks at ("So", "We", "They", "Answer",
"User", in ordinary sentences), a fraction ``--openers`` of them (the rest open with other
words; about 5.5% of real answers open with one of these): read + ``json.loads`` of that file,
and the audit of it with the first worker count. The cue must not send such answers to a full
detection, so the audit's ratio there should stay near the plain one.
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


#: ordinary openings of answers that start with the words the reasoning-voice cue reads
OPENERS = (
    "So the short version is that",
    "So, to keep it simple,",
    "We can do this in two steps:",
    "We tested this on the latest release and",
    "They are both valid options, but",
    "They differ mainly in how",
    "Answer: yes, and",
    "Answer: it depends on the version, since",
    "User accounts are stored in the database, so",
    "User settings live in the profile page, where",
)


def chat_log(rng: random.Random, seed: int, openers: float) -> dict[str, Any]:
    """A plain chat: a system prompt, then user and assistant turns; a fraction ``openers`` of
    the answers open with one of :data:`OPENERS`."""
    msgs: list[dict[str, Any]] = [{"role": "system", "content": prose(rng.randint(200, 600), seed)}]
    for turn in range(rng.randint(1, 4)):
        msgs.append({"role": "user", "content": prose(rng.randint(40, 300), seed + turn)})
        answer = prose(rng.randint(150, 900), seed + 50 + turn)
        if rng.random() < openers:
            answer = f"{rng.choice(OPENERS)} {answer[0].lower()}{answer[1:]}"
        msgs.append({"role": "assistant", "content": answer})
    return {"messages": msgs}


def generate_chats(
    path: Path, size: int, openers: float, seed: int = 13, distinct: int = 1500
) -> int:
    """Write about ``size`` bytes of chat logs; returns the number of messages."""
    rng = random.Random(seed)
    pool = [
        json.dumps(chat_log(rng, i, openers), ensure_ascii=False).encode() + b"\n"
        for i in range(distinct)
    ]
    counts = [line.count(b'"role"') for line in pool]
    written = messages = 0
    with path.open("wb") as f:
        while written < size:
            k = rng.randrange(len(pool))
            f.write(pool[k])
            written += len(pool[k])
            messages += counts[k]
    return messages


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
    parser.add_argument(
        "--openers",
        type=float,
        default=0.2,
        help="share of chat-log answers that open with So/We/They/Answer/User (the extra rows)",
    )
    parser.add_argument(
        "--distinct",
        type=int,
        default=1500,
        help="distinct records the files are drawn from (a large number: every record distinct)",
    )
    add_quick(parser)
    args = parser.parse_args()
    # quick: two units of CHUNK_BYTES (so two workers share them), a problem in one in five
    size_mb, runs, dirty, distinct = (
        (1.5, 1, 0.2, 40) if args.quick else (args.size_mb, args.runs, args.dirty, args.distinct)
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "transcripts.jsonl"
        transcripts, messages = generate(path, int(size_mb * 1e6), dirty, distinct=distinct)
        mb = path.stat().st_size / 1e6
        chats = Path(tmp) / "chats.jsonl"
        chat_messages = generate_chats(chats, int(size_mb * 1e6), args.openers, distinct=distinct)
        baseline(path)  # warm the page cache
        baseline(chats)
        # warm guard's lazy state (imports, compiled patterns) on a few transcripts, so that
        # the first measured run does not pay for it
        warm = Path(tmp) / "warm.jsonl"
        with path.open("rb") as f:
            warm.write_bytes(b"".join(line for _, line in zip(range(50), f, strict=False)))
        guard.audit(warm)
        # the runs take turns (the baseline, then each worker count), so that on a machine
        # whose speed drifts every row's best comes from the same stretches of time
        wall = [float("inf")] * (3 + len(args.workers))
        used = wall[:]
        reports: dict[int, guard.AuditReport] = {}
        chat_report: guard.AuditReport | None = None
        for _ in range(runs):
            w, c, counted = timed(lambda: baseline(path))
            assert counted == messages
            wall[0], used[0] = min(wall[0], w), min(used[0], c)
            for k, workers in enumerate(args.workers, 1):
                w, c, reports[workers] = timed(lambda n=workers: guard.audit(path, workers=n))
                wall[k], used[k] = min(wall[k], w), min(used[k], c)
            k = 1 + len(args.workers)
            w, c, counted = timed(lambda: baseline(chats))
            assert counted == chat_messages
            wall[k], used[k] = min(wall[k], w), min(used[k], c)
            w, c, chat_report = timed(lambda: guard.audit(chats, workers=args.workers[0]))
            wall[k + 1], used[k + 1] = min(wall[k + 1], w), min(used[k + 1], c)
        rows: list[tuple[str, float, float, guard.AuditReport | None]] = [
            ("read + json.loads (no detection)", wall[0], used[0], None)
        ]
        for k, workers in enumerate(args.workers, 1):
            rows.append((f"guard.audit, workers {workers}", wall[k], used[k], reports[workers]))
        first = reports[args.workers[0]]
        for report in reports.values():
            assert report.findings == first.findings and report.errors == first.errors
        k = 1 + len(args.workers)
        chat_mb = chats.stat().st_size / 1e6
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
    assert chat_report is not None
    openers = f"chat logs, {args.openers:.0%} of answers open with So/We/They/Answer/User"
    for name, seconds, cpu_s, result in (
        (f"read + json.loads ({openers})", wall[k], used[k], None),
        (
            f"guard.audit, workers {args.workers[0]} ({openers})",
            wall[k + 1],
            used[k + 1],
            chat_report,
        ),
    ):
        table.append(
            [
                name,
                f"{seconds:.2f}",
                f"{chat_mb / seconds:,.1f}",
                f"{chat_messages / seconds:,.0f}",
                ratio(seconds, wall[k]),
                f"{cpu_s:.2f}",
                ratio(cpu_s, used[k]),
                "-",
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
            "wall ratio vs read + json.loads (of the same file)",
            "CPU s (all processes)",
            "CPU ratio vs read + json.loads",
            f"wall ratio vs workers {args.workers[0]}",
            "findings",
        ],
        table,
    )


if __name__ == "__main__":
    main()
