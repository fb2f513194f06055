"""The request's context in streams (docs/streaming.md, "Context"): ``tools=`` reaches every
surface's monitor (U on tool names, J on text), and whether the answer came after a reasoning
part reaches V, in chunk and raw streams; the stream's verdict and cut equal ``guard.detect``
with the same context at every split point."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from guard import detect, guard_stream
from guard.evaluation import CORPUS_DIR, load_cases

VOICE = "The user is asking for the time. Answer briefly: noon."
CALL = '{"name": "read_file", "arguments": {"path": "a.txt"}}'
NAME_CASES = [
    c for _, c in load_cases([CORPUS_DIR])[0] if c.surface == "tool_name" and c.tools is not None
]


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def text_chunks(pieces: list[str], reasoning: str | None = None) -> list[dict[str, Any]]:
    lead = [chunk({"reasoning_content": reasoning})] if reasoning else []
    return [*lead, *(chunk({"content": p}) for p in pieces), chunk({}, "stop")]


def call_chunks(name_pieces: list[str], args: str) -> list[dict[str, Any]]:
    first = [{"index": 0, "id": "c1", "type": "function", "function": {"name": name_pieces[0]}}]
    out = [chunk({"tool_calls": first})]
    for piece in name_pieces[1:]:
        out.append(chunk({"tool_calls": [{"index": 0, "function": {"name": piece}}]}))
    out.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": args}}]}))
    out.append(chunk({}, "tool_calls"))
    return out


def splits(text: str) -> list[list[str]]:
    one = [[text[:i], text[i:]] for i in range(1, len(text))]
    return [[text], *one, list(text)]


def verdict(stream: Any, part: str) -> Any:
    found = next(v for v in stream.verdicts if v.part == part)
    return found.model_copy(update={"part": None, "tool_name": None})


def delivered(items: list[Any], field: str = "content") -> str:
    return "".join(
        c["delta"].get(field) or "" for item in items for c in item["choices"] if "delta" in c
    )


def delivered_calls(items: list[Any]) -> list[str]:
    return [
        call["function"]["name"]
        for item in items
        for c in item["choices"]
        for call in c["delta"].get("tool_calls") or ()
        if call.get("function", {}).get("name")
    ]


# --- V: the reasoning part as context ---------------------------------------------------------


@pytest.mark.parametrize("pieces", splits(VOICE[:40]), ids=range(len(splits(VOICE[:40]))))
def test_v_answer_without_reasoning_is_cut_at_every_split(pieces: list[str]) -> None:
    pieces = [*pieces[:-1], pieces[-1] + VOICE[40:]]
    whole = detect(VOICE, reasoning=False)
    assert whole.leak and whole.signals == ("V",)
    stream = guard_stream(text_chunks(pieces), on_leak="truncate")
    assert delivered(list(stream)) == "" and stream.cut == {"text": 0}
    assert verdict(stream, "text") == whole


def test_v_answer_after_a_reasoning_part_passes() -> None:
    stream = guard_stream(text_chunks([VOICE[:20], VOICE[20:]], "Time question."))
    assert delivered(list(stream)) == VOICE
    assert verdict(stream, "text") == detect(VOICE, reasoning=True)


def test_v_blank_reasoning_is_no_reasoning_part() -> None:
    stream = guard_stream(text_chunks([VOICE], " \n"), on_leak="truncate")
    assert delivered(list(stream)) == "" and verdict(stream, "text").signals == ("V",)


def test_v_dialect_without_reasoning_markers_leaves_the_context_unknown() -> None:
    stream = guard_stream(text_chunks([VOICE]), dialect="llama3", on_leak="truncate")
    assert delivered(list(stream)) == VOICE
    assert verdict(stream, "text") == detect(VOICE, dialect="llama3")


@pytest.mark.parametrize("cut", [0, 11, 27, 30])
def test_v_raw_harmony_answer_with_and_without_analysis(cut: int) -> None:
    bare = f"<|channel|>final<|message|>{VOICE}<|return|>"
    pieces = [bare[:cut], bare[cut:]] if cut else [bare]
    # the envelope before the answer goes out; nothing of the answer does
    assert "".join(guard_stream(iter(pieces), on_leak="truncate")) == bare[: bare.index(VOICE)]
    wire = f"<|channel|>analysis<|message|>Time question.<|end|><|start|>assistant{bare}"
    pieces = [wire[:cut], wire[cut:]] if cut else [wire]
    assert "".join(guard_stream(iter(pieces), on_leak="truncate")) == wire


# --- J and U: declared tools ------------------------------------------------------------------


@pytest.mark.parametrize("pieces", splits("Sure.\n" + CALL[:30]))
def test_j_declared_tool_call_as_text_cut_at_every_split(pieces: list[str]) -> None:
    pieces = [*pieces[:-1], pieces[-1] + CALL[30:]]
    text = "".join(pieces)
    # tools unknown: a bare JSON call is no evidence (it may be an example the user asked for)
    for tools, leak in ((["read_file"], True), (["write_file"], False), (None, False)):
        whole = detect(text, tools=tools, reasoning=False)
        assert whole.leak is leak
        stream = guard_stream(text_chunks(pieces), on_leak="truncate", tools=tools)
        out = delivered(list(stream))
        assert verdict(stream, "text") == whole
        assert out == (text[: whole.cut] if leak else text) and (not leak or whole.cut == 6)


@pytest.mark.parametrize("case", NAME_CASES, ids=lambda c: c.id)
def test_u_tool_name_cases_stream_as_detect_says(case: Any) -> None:
    whole = detect(case.text, "tool_name", tools=case.tools)
    name = case.text
    for cuts in itertools.chain([[]], ([i] for i in range(1, len(name)))):
        pieces = [name[a:b] for a, b in itertools.pairwise([0, *cuts, len(name)])]
        report = guard_stream(call_chunks(pieces, "{}"), on_leak="report", tools=case.tools)
        list(report)  # reads to the end (truncate stops reading once the leak is certain)
        assert verdict(report, "tool_name[0]") == whole
        stream = guard_stream(call_chunks(pieces, "{}"), on_leak="truncate", tools=case.tools)
        assert "".join(delivered_calls(list(stream))) == ("" if whole.leak else name)


def test_u_tool_definitions_are_accepted_and_bad_tools_say_what_came() -> None:
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    ok = guard_stream(call_chunks(["get_weather"], "{}"), tools=tools)
    assert delivered_calls(list(ok)) == ["get_weather"]
    bad = guard_stream(call_chunks(["get_weathr"], "{}"), tools=tools, on_leak="truncate")
    assert delivered_calls(list(bad)) == []
    assert verdict(bad, "tool_name[0]").signals == ("U",)
    with pytest.raises(TypeError, match="tools must be"):
        guard_stream(iter([]), tools="get_weather")


def test_u_raw_harmony_call_of_an_undeclared_tool_is_dropped() -> None:
    header = "<|channel|>commentary to=functions.get_weathr <|constrain|>json<|message|>"
    wire = header + json.dumps({"c": 1}) + "<|call|>"
    out = "".join(guard_stream(iter([wire]), on_leak="truncate", tools=["get_weather"]))
    assert out == ""
    kept = "".join(guard_stream(iter([wire]), on_leak="truncate", tools=["get_weathr"]))
    assert kept == wire
