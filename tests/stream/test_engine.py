"""The engine alone, without a driver: items in, items to deliver out."""

from __future__ import annotations

from typing import Any

from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY
from guard.stream import OnLeak
from guard.stream._engine import Engine


def engine(on_leak: OnLeak = "truncate", raw: bool | None = None) -> Engine:
    return Engine(get_dialect("harmony"), DEFAULT_POLICY, on_leak, None, raw)


def chunk(content: str) -> dict[str, Any]:
    return {"id": "c", "choices": [{"index": 0, "delta": {"content": content}}]}


def test_engine_delivers_per_push_and_takes_nothing_after_it_stops() -> None:
    e = engine()
    first, leaking, after = chunk("Sure. "), chunk("x <|call|> y"), chunk("more")
    assert e.push(first) == [first]  # delivered as it is, at once
    out = e.push(leaking)
    assert e.stopped and out[0]["choices"][0]["delta"]["content"] == "x "
    assert out[-1]["choices"][0]["finish_reason"] == "stop"
    assert e.push(after) == [] and e.end() == []
    assert e.cut == {"text": len("Sure. x ")}


def test_engine_ends_cleanly_when_nothing_came() -> None:
    e = engine()
    assert e.end() == [] and e.stopped and e.verdicts() == []


def test_unexpected_item_in_raw_mode_passes_through_without_losing_text() -> None:
    e = engine(raw=True)
    out = [*e.push("<|channel|>final<|message|>abc"), *e.push(42), *e.push("def t")]
    out += [*e.push("o more"), *e.end()]
    assert 42 in out
    assert (
        "".join(x for x in out if isinstance(x, str)) == "<|channel|>final<|message|>abcdef to more"
    )
    assert e.chars_dropped == 0
