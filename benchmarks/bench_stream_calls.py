"""`guard_stream` µs per chunk on JSON-heavy answers with declared tools, where signal Y (a
call of a declared tool written in the answer) is awake at every JSON key: its window scans
and, every kilobyte, its sweeps over the last 4 KB (docs/streaming.md, "The surface monitor").

Two answers of JSON lines in 1-8 character deltas: records whose `name` is no declared tool
(data), and calls whose `name` is (every object Y reads in full); a plain consumer loop over
the same chunks is the floor.

    python benchmarks/bench_stream_calls.py [--records 4000] [--runs 3] [--quick]
"""

from __future__ import annotations

import argparse
import json
import random
from typing import Any

from _common import Timer, add_quick, machine, print_table, quick_note, ratio
from bench_stream import consume_chunks as consume

from guard import guard_stream

TOOLS = ["read_file", "item1", "item2", "item3"]


def answer(records: int, *, calls: bool, seed: int = 5) -> str:
    rng = random.Random(seed)
    lines = []
    for i in range(records):
        if calls:
            obj: dict[str, Any] = {"name": f"item{i % 4}", "arguments": {"q": i}}
        else:
            obj = {"id": i, "name": f"item{i}", "price": rng.random(), "tags": ["a", "b"]}
        lines.append(json.dumps(obj))
    return "Here are the records:\n" + "\n".join(lines) + "\nDone."


def chunks(text: str, seed: int = 5) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        k = rng.randint(1, 8)
        out.append({"choices": [{"index": 0, "delta": {"content": text[i : i + k]}}]})
        i += k
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=3, help="best of this many runs")
    add_quick(parser)
    args = parser.parse_args()
    records = 100 if args.quick else args.records
    timer = Timer.make(args.quick, runs=args.runs)
    rows = []
    for name, calls in (
        ("records naming no declared tool", False),
        ("calls of declared tools", True),
    ):
        items = chunks(answer(records, calls=calls))
        n = len(items)
        consume(guard_stream(iter(items[:500]), dialect="chatml", tools=TOOLS))  # warm up
        plain = timer.best(lambda items=items: consume(iter(items)))
        guarded = timer.best(
            lambda items=items: consume(guard_stream(iter(items), dialect="chatml", tools=TOOLS))
        )
        rows.append(
            [
                name,
                f"{n:,}",
                f"{plain / n * 1e6:.2f}",
                f"{guarded / n * 1e6:.2f}",
                ratio(guarded, plain),
            ]
        )
    print_table(
        f"guard_stream on JSON-heavy answers with declared tools, {records:,} JSON lines in"
        f" 1-8 character deltas, {machine()}, best of {timer.runs}{quick_note(args.quick)}",
        ["answer", "chunks", "plain loop µs/chunk", "guard_stream µs/chunk", "time ratio"],
        rows,
    )


if __name__ == "__main__":
    main()
