"""Per-chunk overhead of `guard_stream` over a plain consumer loop on the same chunks (the
floor), in one run: added µs per chunk and the ratio of the two.

Clean text in 1-8 character deltas (1,000,000 chunks by default), as OpenAI-style dict chunks and
as raw Harmony wire text; the plain loop touches each chunk's text the way a consumer would.

    python benchmarks/bench_stream.py [--chunks 1000000] [--runs 3] [--quick]
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterable
from typing import Any

from _common import Timer, add_quick, machine, print_table, prose, quick_note, ratio

from guard import guard_stream


def deltas(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    text = prose(n * 5, seed)
    out, i = [], 0
    while len(out) < n:
        k = rng.randint(1, 8)
        piece = text[i : i + k] or "x"
        out.append(piece)
        i = (i + k) % (len(text) - 8)
    return out


def chunk(piece: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-oss-120b",
        "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
    }


def consume_chunks(items: Iterable[Any]) -> int:
    n = 0
    for item in items:
        content = item["choices"][0]["delta"].get("content")
        if content:
            n += len(content)
    return n


def consume_text(items: Iterable[str]) -> int:
    n = 0
    for item in items:
        n += len(item)
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3, help="best of this many runs")
    add_quick(parser)
    args = parser.parse_args()
    pieces = deltas(2_000 if args.quick else args.chunks)
    timer = Timer.make(args.quick, runs=args.runs)
    chunks = [chunk(p) for p in pieces]
    wire = ["<|channel|>final<|message|>", *pieces]
    n = len(pieces)
    rows = []
    for name, items, consume in (
        ("chat chunks (dicts)", chunks, consume_chunks),
        ("raw Harmony text", wire, consume_text),
    ):
        consume(guard_stream(iter(items[:500]), on_leak="truncate"))  # warm lazy state
        plain = timer.best(lambda items=items, consume=consume: consume(iter(items)))
        guarded = timer.best(
            lambda items=items, consume=consume: consume(
                guard_stream(iter(items), on_leak="truncate")
            )
        )
        rows.append(
            [
                name,
                f"{plain / n * 1e6:.2f}",
                f"{guarded / n * 1e6:.2f}",
                f"{(guarded - plain) / n * 1e6:.2f}",
                ratio(guarded, plain),
            ]
        )
    print_table(
        f"guard_stream overhead, {n:,} chunks of 1-8 characters, clean text, {machine()},"
        f" best of {timer.runs}{quick_note(args.quick)}",
        [
            "input",
            "plain loop µs/chunk",
            "guard_stream µs/chunk",
            "added µs/chunk",
            "time ratio vs plain loop",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
