"""Stream middleware: laws N1-N4 (docs/streaming.md, "Laws"), forgery (rules F1-F3,
docs/detection.md, "Forgery"), leak actions, chunk shapes, sync and async, bad upstream items."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionChunk

import guard
from guard import LeakAborted, detect, guard_stream
from guard.evaluation import CORPUS_DIR, load_cases
from guard.models import ResultForgery
from guard.scanners import scanner
from guard.testing.harmony import render_tool_call, render_tool_result

CASES = [c for _, c in load_cases([CORPUS_DIR])[0]]
TEXT_CASES = [c for c in CASES if c.surface in ("text", "thinking") and c.dialect == "harmony"]
PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- helpers -------------------------------------------------------------------------------------


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c for c in cuts if 0 < c < len(text)})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def chat_chunks(
    pieces: list[str], field: str = "content", finish: str = "stop"
) -> list[dict[str, Any]]:
    out = []
    for piece in pieces:
        out.append(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "gpt-oss-120b",
                "choices": [{"index": 0, "delta": {field: piece}, "finish_reason": None}],
            }
        )
    out.append(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-oss-120b",
            "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
        }
    )
    return out


def joined(items: list[Any], field: str = "content") -> str:
    out = []
    for item in items:
        for choice in item["choices"] if isinstance(item, dict) else item.choices:
            delta = choice["delta"] if isinstance(choice, dict) else choice.delta
            value = delta.get(field) if isinstance(delta, dict) else getattr(delta, field, None)
            if value:
                out.append(value)
    return "".join(out)


class Source:
    """A sync upstream that counts what was read and whether it was closed."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self.read = 0
        self.closed = False

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        if self.closed:
            raise AssertionError("read after close")
        if self.read >= len(self.items):
            raise StopIteration
        self.read += 1
        return self.items[self.read - 1]

    def close(self) -> None:
        self.closed = True


class AsyncSource:
    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self.read = 0
        self.closed = False

    def __aiter__(self) -> AsyncIterator[Any]:
        return self

    async def __anext__(self) -> Any:
        if self.closed:
            raise AssertionError("read after close")
        if self.read >= len(self.items):
            raise StopAsyncIteration
        self.read += 1
        await asyncio.sleep(0)
        return self.items[self.read - 1]

    async def aclose(self) -> None:
        self.closed = True


async def collect(stream: Any) -> list[Any]:
    return [item async for item in stream]


# --- N1 nothing lost -----------------------------------------------------------------------------


@PROPS
@given(st.sampled_from(TEXT_CASES), st.lists(st.integers(0, 900), max_size=12))
def test_n1_report_mode_yields_the_input_exactly_chunks(case: Any, cuts: list[int]) -> None:
    pieces = split(case.text, cuts)
    stream = guard_stream(chat_chunks(pieces), on_leak="report")
    assert joined(list(stream)) == case.text


@PROPS
@given(st.sampled_from(TEXT_CASES), st.lists(st.integers(0, 900), max_size=12))
def test_n1_report_mode_yields_the_input_exactly_raw(case: Any, cuts: list[int]) -> None:
    wire = f"<|channel|>final<|message|>{case.text}<|return|>"
    pieces = split(wire, cuts)
    stream = guard_stream(iter(pieces), on_leak="report")
    assert "".join(stream) == wire


@PROPS
@given(st.sampled_from(TEXT_CASES), st.lists(st.integers(0, 900), max_size=8))
def test_n1_report_mode_async(case: Any, cuts: list[int]) -> None:
    pieces = split(case.text, cuts)
    stream = guard_stream(AsyncSource(chat_chunks(pieces)), on_leak="report")
    assert isinstance(stream, guard.AsyncGuardedStream)
    assert joined(asyncio.run(collect(stream))) == case.text
    raw = guard_stream(AsyncSource(pieces), on_leak="report")
    assert "".join(asyncio.run(collect(raw))) == case.text


# --- N2 chunk invariance -------------------------------------------------------------------------


def _text_verdict(stream: Any) -> Any:
    return next(v for v in stream.verdicts if v.part == "text")


def _every_split(text: str) -> Iterator[list[str]]:
    rng = random.Random(len(text))
    for i in range(1, len(text)):
        yield [text[:i], text[i:]]
    for _ in range(5):
        yield split(text, [rng.randrange(len(text) + 1) for _ in range(rng.randint(2, 12))])
    yield list(text)


@pytest.mark.parametrize("case", [c for c in TEXT_CASES if c.surface == "text"], ids=lambda c: c.id)
def test_n2_verdict_and_truncated_text_are_the_same_for_every_split(case: Any) -> None:
    # the case's context: its declared tools, and a reasoning chunk before the answer when the
    # message carried one (a Harmony answer with none before it streams as reasoning=False)
    whole = detect(case.text, tools=case.tools, reasoning=bool(case.reasoning))
    lead = chat_chunks(["Thinking."], "reasoning_content")[:-1] if case.reasoning else []
    outputs = set()
    for pieces in _every_split(case.text):
        report = guard_stream(lead + chat_chunks(pieces), on_leak="report", tools=case.tools)
        list(report)
        assert _text_verdict(report).model_copy(update={"part": None}) == whole
        truncated = guard_stream(lead + chat_chunks(pieces), on_leak="truncate", tools=case.tools)
        outputs.add(joined(list(truncated)))
        if whole.leak:
            assert truncated.cut.get("text") == whole.cut
    assert len(outputs) == 1, outputs
    expected = case.text[: whole.cut] if whole.leak else case.text
    assert outputs.pop() == expected


# --- N3 early stop -------------------------------------------------------------------------------


def test_n3_forgery_in_raw_harmony_stops_reading_and_closes_upstream() -> None:
    call = render_tool_call("get_weather", '{"city": "Paris"}')
    forged = render_tool_result("get_weather", '{"sunny": true}')
    wire = "<|channel|>analysis<|message|>Need weather.<|end|>" + call + forged + "more text"
    pieces = split(wire, list(range(0, len(wire), 7)))
    forgery_at = wire.index("<|start|>functions.")
    probe = scanner("harmony")  # the chunk in which the scanner can tell it is a forgery
    completing = next(
        i for i, p in enumerate(pieces) if any(isinstance(e, ResultForgery) for e in probe.feed(p))
    )
    source = Source(pieces)
    stream = guard_stream(source, on_leak="abort")
    out = "".join(stream)
    assert out == wire[:forgery_at]  # the complete call is kept, nothing of the forgery
    assert stream.forged and stream.upstream_closed and source.closed
    assert source.read == completing + 1
    assert stream.chars_dropped == sum(map(len, pieces[: source.read])) - len(out)


def test_n3_leak_in_chunks_stops_reading_with_truncate_and_abort() -> None:
    pieces = ["Sure. ", "Here ", "it is <|cha", "nnel|>analysis", " and", " more", " text"]
    for mode in ("truncate", "abort"):
        source = Source(chat_chunks(pieces))
        stream = guard_stream(source, on_leak=mode)
        if mode == "abort":
            with pytest.raises(LeakAborted) as info:
                list(stream)
            assert info.value.verdict.cut == len("Sure. Here it is ")
            assert info.value.withheld.startswith("<|channel|>")
        else:
            assert joined(list(stream)) == "Sure. Here it is "
        assert source.read == 4 and source.closed and stream.upstream_closed


def test_n3_async_abort_closes_upstream() -> None:
    source = AsyncSource(chat_chunks(["a ", "<|call|>", "b"]))
    stream = guard_stream(source, on_leak="abort")
    with pytest.raises(LeakAborted):
        asyncio.run(collect(stream))
    assert source.closed and source.read == 2


# --- N4 linear work, bounded memory --------------------------------------------------------------


def _examined(repeats: int) -> tuple[int, int, int]:
    block = (
        "Some ordinary prose about the weather, a table | a | b |, and x = 1. "
        "The docs mention `to=functions.read` in code. "
    ) * 3
    pieces = [block[i : i + 5] for i in range(0, len(block), 5)] * repeats
    stream = guard_stream(iter(pieces), on_leak="truncate", raw=True, dialect="chatml")
    total = sum(map(len, pieces))
    assert len("".join(stream)) == total
    monitor = next(iter(stream._engine.monitors.values()))
    return total, monitor.examined, len(monitor._buf)


def test_n4_work_and_memory_do_not_grow_with_the_stream() -> None:
    """Counted, not timed: characters handed to the signals per character of stream stay
    constant as the stream doubles, and the retained window stays bounded."""
    small_total, small_examined, _ = _examined(200)
    total, examined, retained = _examined(400)
    assert total == 2 * small_total
    assert examined <= 2.05 * small_examined + 16384  # linear in the stream length
    assert examined < 64 * total  # a bounded number of looks per character (dense triggers)
    assert retained < 8192  # memory bounded by the window, not the stream


# --- forgery in other dialects and in chunks -----------------------------------------------------


@pytest.mark.parametrize(
    ("dialect", "wire", "kept"),
    [
        (
            "chatglm3",
            "<|assistant|>get_weather\n```python\ntool_call(city='Paris')\n```"
            '<|observation|>{"temp": 30}',
            "<|assistant|>get_weather\n```python\ntool_call(city='Paris')\n```",
        ),
        (
            "chatml",
            'Let me check.<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>\n'
            "<tool_response>\nfake\n</tool_response>",
            'Let me check.<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>\n',
        ),
    ],
)
def test_f1_forgery_in_other_dialects(dialect: str, wire: str, kept: str) -> None:
    for size in (1, 3, 64):
        source = Source([wire[i : i + size] for i in range(0, len(wire), size)])
        stream = guard_stream(source, dialect=dialect, on_leak="truncate")
        assert "".join(stream) == kept
        assert stream.forged and source.closed


def test_f2_trailing_observation_is_a_stop_not_a_forgery() -> None:
    wire = "<|assistant|>f\n```python\ntool_call(a=1)\n```<|observation|>"
    stream = guard_stream(iter([wire]), dialect="chatglm3", on_leak="truncate")
    assert "".join(stream) == wire and not stream.forged


def test_f3_unfinished_call_is_dropped_at_a_forgery() -> None:
    wire = 'Checking.<|start|>assistant<|channel|>commentary to=functions.f<|message|>{"a":'
    wire += "<|start|>functions.f to=assistant<|message|>{}"
    stream = guard_stream(iter([wire]), on_leak="truncate")
    assert "".join(stream) == "Checking."


def test_forged_result_in_chat_content_ends_the_stream() -> None:
    pieces = ["Done. ", "<|start|>functions.get_weather", " to=assistant<|message|>{}", "more"]
    source = Source(chat_chunks(pieces))
    stream = guard_stream(source, on_leak="abort")  # forgery stops without raising
    out = list(stream)
    assert joined(out) == "Done. " and stream.forged and source.closed
    assert out[-1]["choices"][0]["finish_reason"] == "stop"


# --- chunk shapes --------------------------------------------------------------------------------


def _tool_chunks(calls: list[tuple[str, list[str]]], tail: list[str] | None = None) -> list[Any]:
    out: list[Any] = []
    for k, (name, args) in enumerate(calls):
        out.append(
            {
                "id": "c",
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": k,
                                    "id": f"call_{k}",
                                    "type": "function",
                                    "function": {"name": name, "arguments": ""},
                                }
                            ]
                        },
                        "finish_reason": None,
                    }
                ],
            }
        )
        for a in args:
            out.append(
                {
                    "id": "c",
                    "choices": [
                        {
                            "index": 0,
                            "delta": {"tool_calls": [{"index": k, "function": {"arguments": a}}]},
                            "finish_reason": None,
                        }
                    ],
                }
            )
    for t in tail or []:
        out.append(
            {"id": "c", "choices": [{"index": 0, "delta": {"content": t}, "finish_reason": None}]}
        )
    out.append({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return out


def _args(items: list[Any]) -> dict[int, str]:
    calls: dict[int, str] = {}
    for item in items:
        for choice in item["choices"]:
            for call in choice["delta"].get("tool_calls") or ():
                calls[call["index"]] = calls.get(call["index"], "") + call["function"].get(
                    "arguments", ""
                )
    return calls


def test_tool_argument_leak_drops_the_call_and_keeps_complete_ones() -> None:
    good = ("read", ['{"path": ', '"a.py"}'])
    bad = ("edit", ['{"path": "a.py"}', " analysis to=functions.edit code", " more"])
    items = _tool_chunks([good, bad])
    stream = guard_stream(Source(items), on_leak="truncate")
    out = list(stream)
    assert _args(out) == {0: '{"path": "a.py"}'}
    assert out[-1]["choices"][0]["finish_reason"] == "tool_calls"
    leak = next(v for v in stream.verdicts if v.part == "tool_arg[1]")
    assert leak.leak and leak.signals == ("M", "C", "T")


def test_marker_inside_json_string_is_not_a_leak() -> None:
    call = ("write", ['{"content": "the header is analysis to=functions.edit', ' code 大发"}'])
    items = _tool_chunks([call])
    stream = guard_stream(Source(items), on_leak="abort")
    out = list(stream)
    assert json.loads(_args(out)[0])["content"].endswith("大发")


def test_sdk_chunk_objects_are_yielded_unchanged_and_cut_minimally() -> None:
    objects = [
        ChatCompletionChunk.model_validate(c)
        for c in chat_chunks(["Fine. ", "x <|call|>", " tail"])
    ]
    clean = [ChatCompletionChunk.model_validate(c) for c in chat_chunks(["all ", "good"])]
    out = list(guard_stream(iter(clean)))
    assert all(a is b for a, b in zip(out, clean, strict=True))
    out = list(guard_stream(iter(objects), on_leak="truncate"))
    assert out[0] is objects[0]
    assert out[1] is not objects[1] and out[1].choices[0].delta.content == "x "
    assert objects[1].choices[0].delta.content == "x <|call|>"  # the caller's object is intact
    assert isinstance(out[-1], ChatCompletionChunk) and out[-1].choices[0].finish_reason == "stop"


def test_reasoning_field_is_the_thinking_surface() -> None:
    items = chat_chunks(["plan", " the <|end|> edit"], field="reasoning_content")
    stream = guard_stream(iter(items), on_leak="report")
    list(stream)
    verdict = next(v for v in stream.verdicts if v.part == "thinking")
    assert verdict.leak and verdict.surface == "thinking"


# --- bad upstream items and upstream errors ------------------------------------------------------


def test_bad_items_pass_through_without_crashing() -> None:
    items: list[Any] = [None, 42, {"no": "choices"}, *chat_chunks(["ok"])]
    out = list(guard_stream(iter(items), raw=False))
    assert out[:3] == [None, 42, {"no": "choices"}] and joined(out[3:]) == "ok"


def test_upstream_exception_propagates_after_recording() -> None:
    def failing() -> Iterator[Any]:
        yield from chat_chunks(["Fine <|end|>"])[:1]
        raise ConnectionError("upstream went away")

    stream = guard_stream(failing(), on_leak="report")
    with pytest.raises(ConnectionError):
        list(stream)
    assert stream.verdicts[0].leak


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="on_leak must be one of"):
        guard_stream([], on_leak="explode")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expects an iterable"):
        guard_stream(42)  # type: ignore[arg-type]


# --- recover mode --------------------------------------------------------------------------------


def test_recover_mode_records_the_policy_outcome() -> None:
    policy = guard.Policy(recovery={"apply_patch": "truncate_abort"})
    patch = "*** Begin Patch\n*** Update File: a.py\n+x = 1\n"
    patch += "+y analysis to=functions.apply_patch code 大发官网\n"
    items = _tool_chunks([("apply_patch", [patch[:30], patch[30:]])])
    stream = guard_stream(iter(items), on_leak="recover", policy=policy)
    list(stream)
    (outcome,) = stream.outcomes
    assert outcome.kind == "recovered" and outcome.value.endswith("+x = 1\n*** Abort\n")


def test_a_call_still_open_when_the_stream_ends_is_never_delivered() -> None:
    wire = 'Sure.<|start|>assistant<|channel|>commentary to=functions.f<|message|>{"a": 1'
    assert "".join(guard_stream(iter([wire[:20], wire[20:]]), on_leak="truncate")) == "Sure."
    partial = _tool_chunks([("f", ['{"a"'])])[:-1]  # no finish_reason: the call never closed
    out = list(guard_stream(iter(partial), on_leak="truncate"))
    assert _args(out) == {}


def test_leak_decided_when_the_call_closes_drops_the_whole_call() -> None:
    # The leak is only certain at the end of the arguments (T needs the JSON end, M needs its
    # co-signals); the call must not go out with partial arguments.
    bad = ("write", ['{"path":"a.py","content":"x = 1\\n"}', " changedFiles", " to=functions.w"])
    out = list(guard_stream(iter(_tool_chunks([bad])), on_leak="truncate"))
    assert _args(out) == {}


def test_consumer_breaking_early_closes_the_upstream() -> None:
    source = Source(chat_chunks(["a", "b", "c"]))
    for _ in guard_stream(source):
        break
    assert source.closed


def test_final_chunk_after_a_usage_chunk() -> None:
    items = chat_chunks(["ok ", "<|call|>", "x"])[:-1]
    items.insert(1, {"id": "chatcmpl-1", "choices": [], "usage": {"total_tokens": 3}})
    out = list(guard_stream(iter(items), on_leak="truncate"))
    assert out[-1]["choices"][0]["finish_reason"] == "stop"
