"""Reading chat completion chunks, and rewriting a cut chunk or a final chunk."""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.chat import ChatCompletionChunk
from support.stream_sink import RecordingSink

from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY
from guard.stream import CallSet
from guard.stream._chunks import ChunkReader, cut_chunk, final_chunk, plain_text
from guard.stream._engine import Engine
from guard.stream._queue import Entry


def chunk(delta: dict[str, Any], finish: str | None = None, index: int = 0) -> dict[str, Any]:
    return {"id": "c", "choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


def call(k: int, name: str | None = None, args: str | None = None) -> dict[str, Any]:
    function = {key: v for key, v in (("name", name), ("arguments", args)) if v is not None}
    return {"index": k, "function": function}


def test_quiet_chunk_is_one_unfinished_choice_with_only_content(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken: list[tuple[Any, str]] = []
    real = Engine._quiet

    def spy(self: Engine, item: Any, key: Any, content: str, **kw: Any) -> list[Any]:
        taken.append((key, content))
        return real(self, item, key, content, **kw)

    monkeypatch.setattr(Engine, "_quiet", spy)
    engine = Engine(get_dialect("harmony"), DEFAULT_POLICY, "truncate", None, False)
    assert engine.push(chunk({"content": "hi"}, index=1))
    assert taken == [((1, "text", -1), "hi")]
    assert engine.chunks is not None and engine.chunks.template is not None
    for shape in (
        chunk({"content": ""}),
        chunk({"content": "hi", "role": "assistant"}),
        chunk({"content": "hi"}, finish="stop"),
        chunk({"reasoning_content": "hi"}),
        chunk({"content": 7}),
        {"choices": [*chunk({"content": "a"})["choices"], *chunk({"content": "b"})["choices"]]},
        {"choices": [{"index": 0}]},
        {"choices": ["not a choice"]},
        {"choices": {"0": {"delta": {"content": "x"}}}},
        {"id": "no choices"},
    ):
        taken.clear()
        Engine(get_dialect("harmony"), DEFAULT_POLICY, "report", None, False).push(shape)
        assert taken == [], shape


def test_plain_chunk_allows_a_role_and_no_content() -> None:
    assert plain_text(chunk({"role": "assistant"})) == ((0, "text", -1), None)
    assert plain_text(chunk({"content": "x", "role": "assistant"})) == ((0, "text", -1), "x")
    assert plain_text(chunk({"tool_calls": []})) is None


def test_next_call_or_finish_reason_closes_the_open_call_and_names_accumulate() -> None:
    reader, sink = ChunkReader(), RecordingSink()
    reader.read(chunk({"tool_calls": [call(0, "re", "")]}), sink)
    reader.read(chunk({"tool_calls": [call(0, "ad", '{"p": 1}')]}), sink)
    reader.read(chunk({"tool_calls": [call(1, "edit")]}), sink)
    reader.read(chunk({}, finish="tool_calls"), sink)
    closes = [event for event in sink.log if event[0] == "close"]
    assert closes == [("close", 0, 0), ("close", 0, 1)]
    assert reader.names == {(0, 0): "read", (0, 1): "edit"}
    assert [e.calls for e in sink.entries] == [[(0, 0)], [(0, 0)], [(0, 1)], []]


def test_reasoning_fields_and_sdk_objects_are_read_alike() -> None:
    sink = RecordingSink()
    sdk = ChatCompletionChunk.model_validate(
        {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", **chunk({})}
    )
    sdk.choices[0].delta.content = "text"
    ChunkReader().read(sdk, sink)
    ChunkReader().read(chunk({"reasoning": "plan"}), sink)
    assert sink.log == [("feed", (0, "text", -1), "text"), ("feed", (0, "thinking", -1), "plan")]


def test_cut_chunk_cuts_a_copy_and_removes_calls_and_finish_reason() -> None:
    item = chunk({"content": "keep<|end|>", "tool_calls": [call(0, "f", "{}")]}, finish="stop")
    cut = cut_chunk(item, {(0, "text", -1): 4})
    assert cut["choices"][0] == {
        "index": 0,
        "delta": {"content": "keep", "tool_calls": None},
        "finish_reason": None,
    }
    assert item["choices"][0]["delta"]["content"] == "keep<|end|>"  # the original is intact
    assert cut_chunk(chunk({"content": "<|end|>"}), {(0, "text", -1): 0})["choices"][0][
        "delta"
    ] == {"content": None}


def test_final_chunk_finishes_each_choice_once() -> None:
    template = {
        "id": "c",
        "choices": [
            {"index": 0, "delta": {"content": "x", "role": "assistant"}, "finish_reason": None},
            {"index": 1, "delta": {"tool_calls": [call(0, "f")]}, "finish_reason": None},
            {"index": 1, "delta": {"content": "y"}, "finish_reason": None},
        ],
    }
    final = final_chunk(template, CallSet.of([(1, 0)]))
    assert [(c["index"], c["finish_reason"]) for c in final["choices"]] == [
        (0, "stop"),
        (1, "tool_calls"),
    ]
    assert all(v is None for c in final["choices"] for v in c["delta"].values())
    assert final_chunk({"id": "c", "choices": []}, CallSet()) is None
    assert ChunkReader().final_chunks(CallSet()) == []  # no chunk with choices seen


def test_read_puts_one_entry_per_chunk() -> None:
    sink = RecordingSink()
    ChunkReader().read({"id": "c", "choices": [], "usage": {}}, sink)
    (entry,) = sink.entries
    assert isinstance(entry, Entry) and entry.marks == [] and entry.calls == []
