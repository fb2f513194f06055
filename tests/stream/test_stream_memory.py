"""Issue 14 (memory bounded by a window): a stream of one long paragraph of backtick runs keeps
no more than a window of text, code ranges and paragraph runs, whatever its length."""

from __future__ import annotations

import tracemalloc
from typing import Any

from guard import guard_stream


def _chunk(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


def _peak(chunks: int, piece: str) -> int:
    items = [_chunk(piece)] * chunks
    tracemalloc.start()
    try:
        for _ in guard_stream(iter(items), on_leak="truncate"):
            pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_backtick_runs_in_one_paragraph_keep_a_bounded_window() -> None:
    piece = "a `b` c ``d`` e "
    _peak(200, piece)  # warm up: plans and compiled patterns are built once per process
    small = _peak(2_000, piece)  # 32 kB of input
    large = _peak(20_000, piece)  # 320 kB: ten times as much
    # retaining even one byte per input byte would add 288 kB; a window adds nothing
    assert large < small + 64_000, (small, large)
