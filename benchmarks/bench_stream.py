"""Per-chunk overhead of `guard_stream` over a plain loop on the same chunks, in one run.

Clean text in 1-8 character deltas (1,000,000 chunks by default), as OpenAI-style dict chunks and
as raw Harmony wire text; the plain loop touches each chunk's text the way a consumer would.

    python benchmarks/bench_stream.py [--chunks 1000000]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Iterable
from typing import Any

from _common import machine, prose

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


def best_of(runs: int, fn: Callable[[], int]) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    pieces = deltas(args.chunks)
    chunks = [chunk(p) for p in pieces]
    wire = ["<|channel|>final<|message|>", *pieces]
    n = len(pieces)
    print(f"# guard_stream overhead, {n:,} chunks of 1-8 characters, clean text, {machine()}")
    print("| input | plain loop µs/chunk | guard_stream µs/chunk | added µs/chunk |")
    print("|---|---:|---:|---:|")
    for name, items, consume in (
        ("chat chunks (dicts)", chunks, consume_chunks),
        ("raw Harmony text", wire, consume_text),
    ):
        plain = best_of(args.runs, lambda items=items, consume=consume: consume(iter(items)))
        guarded = best_of(
            args.runs,
            lambda items=items, consume=consume: consume(
                guard_stream(iter(items), on_leak="truncate")
            ),
        )
        print(
            f"| {name} | {plain / n * 1e6:.2f} | {guarded / n * 1e6:.2f} |"
            f" {(guarded - plain) / n * 1e6:.2f} |"
        )


if __name__ == "__main__":
    main()
