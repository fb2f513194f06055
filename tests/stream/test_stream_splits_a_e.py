"""Streams give the same verdict and cut as ``guard.detect`` at every split point for A (the
routing marker opening the text) and E (a collapsed call inside a JSON string of the tool
arguments), as tests/stream/test_stream_context.py checks for V, J and U."""

from __future__ import annotations

import json
from typing import Any

import pytest

from guard import detect, guard_stream

MARKER_FIRST = '  to=functions.get_weather {"city": "Oslo"}'
MARKER_ONLY = "to=functions.get_weather\u200b"
COLLAPSE = json.dumps(
    {"patch": "+ x\n}]}analysis to=functions.apply_patch code 大发彩票 end"}, ensure_ascii=False
)
QUOTED = json.dumps(
    {"path": "NOTES", "content": "the model wrote analysis to=functions.edit code and stopped"}
)


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def text_chunks(pieces: list[str]) -> list[dict[str, Any]]:
    return [*(chunk({"content": p}) for p in pieces), chunk({}, "stop")]


def arg_chunks(name: str, pieces: list[str]) -> list[dict[str, Any]]:
    first = [{"index": 0, "id": "c1", "type": "function", "function": {"name": name}}]
    out = [chunk({"tool_calls": first})]
    for piece in pieces:
        out.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
    out.append(chunk({}, "tool_calls"))
    return out


def splits(text: str) -> list[list[str]]:
    return [[text], *([text[:i], text[i:]] for i in range(1, len(text))), list(text)]


def verdict(stream: Any, part: str) -> Any:
    found = next(v for v in stream.verdicts if v.part == part)
    return found.model_copy(update={"part": None, "tool_name": None})


def delivered(items: list[Any]) -> str:
    return "".join(
        c["delta"].get("content") or "" for item in items for c in item["choices"] if "delta" in c
    )


def delivered_args(items: list[Any]) -> str:
    return "".join(
        call.get("function", {}).get("arguments") or ""
        for item in items
        for c in item["choices"]
        for call in c["delta"].get("tool_calls") or ()
    )


@pytest.mark.parametrize("text", [MARKER_FIRST, MARKER_ONLY])
def test_a_marker_first_same_verdict_and_cut_at_every_split(text: str) -> None:
    whole = detect(text)
    assert whole.leak and "A" in whole.signals and whole.cut == text.index("to=")
    for pieces in splits(text):
        stream = guard_stream(text_chunks(pieces), on_leak="truncate")
        assert delivered(list(stream)) == text[: whole.cut], pieces
        assert stream.cut == {"text": whole.cut}
        report = guard_stream(text_chunks(pieces), on_leak="report")
        list(report)
        assert verdict(report, "text") == whole, pieces


def test_a_near_miss_prose_before_the_marker_streams_whole() -> None:
    text = "Set the header to to=functions.get_weather and retry."
    assert not detect(text).leak
    for pieces in splits(text):
        assert delivered(list(guard_stream(text_chunks(pieces), on_leak="truncate"))) == text


def test_e_collapse_in_arguments_same_verdict_and_cut_at_every_split() -> None:
    whole = detect(COLLAPSE, "tool_arg", tool_name="apply_patch")
    assert whole.leak and "E" in whole.signals and whole.cut is not None
    whole = whole.model_copy(update={"tool_name": None})
    for pieces in splits(COLLAPSE):
        report = guard_stream(arg_chunks("apply_patch", pieces), on_leak="report")
        list(report)
        assert verdict(report, "tool_arg[0]") == whole, pieces
        stream = guard_stream(arg_chunks("apply_patch", pieces), on_leak="truncate")
        assert delivered_args(list(stream)) == ""  # a contaminated call never goes out
        assert stream.cut == {"tool_arg[0]": whole.cut}


def test_e_near_miss_quoted_marker_in_arguments_streams_whole() -> None:
    assert not detect(QUOTED, "tool_arg", tool_name="edit").leak
    for pieces in splits(QUOTED)[::7]:
        stream = guard_stream(arg_chunks("edit", pieces), on_leak="truncate")
        assert delivered_args(list(stream)) == QUOTED
        assert stream.cut == {}
