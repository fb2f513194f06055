"""Differential tests against the models' official chat templates (``tests/data/templates``):
every assistant turn a template writes scans back to the message that produced it (reasoning,
text, calls with their arguments), the template's own tool results are forgeries in model
output, and guard's ``render_transcript`` writes what the template writes."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.scanning import merge, scan
from support.templates import assistant_turn, render

from guard.models import Event, Malformed, ResultForgery, Text, ThinkingDelta, ToolEnd, ToolStart
from guard.scanners import scanner
from guard.testing import deepseek, deepseek_v32, glm, kimi, minimax

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "filters": {"type": "object"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "exact": {"type": "boolean"},
                    "limit": {"type": ["number", "null"]},
                    "code": {"type": "string"},
                },
            },
        },
    },
]


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


#: Conversations in one canonical form (arguments as objects, no content beside calls = None);
#: each template spec converts them to what its template expects.
CONVERSATIONS: list[list[dict[str, Any]]] = [
    [
        {"role": "system", "content": "You are a weather bot."},
        {"role": "user", "content": "Weather in Paris and Tokyo?"},
        {
            "role": "assistant",
            "reasoning_content": "I need two calls.",
            "content": "Let me check both.",
            "tool_calls": [
                _call("functions.get_weather:0", "get_weather", {"city": "Paris", "days": 3}),
                _call("functions.get_weather:1", "get_weather", {"city": "東京", "days": 1}),
            ],
        },
        {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "sunny"},
        {"role": "tool", "tool_call_id": "functions.get_weather:1", "content": "rain"},
        {
            "role": "assistant",
            "reasoning_content": "Both arrived.",
            "content": "Paris is sunny; Tokyo has rain.",
        },
    ],
    [
        {"role": "user", "content": "Search for guard docs."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                _call(
                    "functions.search:0",
                    "search",
                    {
                        "query": 'guard <tags> & "quotes" é',
                        "filters": {"lang": "en", "years": [2024, 2025]},
                        "tags": ["a", "b"],
                        "exact": True,
                        "limit": None,
                        "code": "def f():\n    return 1",
                    },
                )
            ],
        },
        {"role": "tool", "tool_call_id": "functions.search:0", "content": '{"hits": 2}'},
        {"role": "assistant", "content": "Found two pages."},
        {"role": "user", "content": "Thanks, and the time?"},
        {
            "role": "assistant",
            "reasoning_content": "A call without arguments.",
            "content": None,
            "tool_calls": [_call("functions.now:1", "now", {})],
        },
    ],
    [
        {"role": "user", "content": "Say hi in Chinese."},
        {"role": "assistant", "reasoning_content": "Easy.", "content": "你好！ (nǐ hǎo)"},
    ],
]


def _last(messages: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> int:
    return max((k for k, m in enumerate(messages) if test(m)), default=-1)


def _after_last_user(messages: list[dict[str, Any]], k: int) -> bool:
    return k > _last(messages[: k + 1], lambda m: m["role"] in ("user", "developer"))


def _after_last_plain_answer(messages: list[dict[str, Any]], k: int) -> bool:
    plain = _last(messages[: k + 1], lambda m: m["role"] == "assistant" and not m.get("tool_calls"))
    return k > plain


@dataclass(frozen=True)
class Spec:
    template: str
    dialect: str
    opener: str
    #: where a tool result starts in the template's rendering (a forgery in model output)
    result_marker: str
    #: whether the template writes an assistant message's reasoning
    keeps_reasoning: Callable[[list[dict[str, Any]], int], bool]
    arguments_as_text: bool = False
    #: content the template needs beside calls (``None`` or ``""``)
    empty_content: str | None = ""
    #: whether the template writes text beside calls in the same turn
    content_beside_calls: bool = True
    #: (what the template writes, what the original template writes) where a copy differs
    copy_differs: tuple[tuple[str, str], ...] = ()
    #: whether the template writes every call turn of a conversation whole
    later_call_turns: bool = True
    renderer: Callable[[list[dict[str, Any]]], str] | None = None
    variables: Mapping[str, Any] = field(default_factory=dict)

    def prepare(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for msg in messages:
            m = dict(msg)
            if m.get("tool_calls") and not self.content_beside_calls:
                m["content"] = None
            if m["role"] == "assistant" and m.get("content") is None:
                m["content"] = self.empty_content
            if self.arguments_as_text and m.get("tool_calls"):
                m["tool_calls"] = [
                    {
                        **c,
                        "function": {
                            "name": c["function"]["name"],
                            "arguments": json.dumps(c["function"]["arguments"], ensure_ascii=False),
                        },
                    }
                    for c in m["tool_calls"]
                ]
            out.append(m)
        return out


SPECS = {
    "glm-4.6": Spec(
        "glm-4.6.jinja",
        "glm",
        "<|assistant|>",
        "<|observation|>",
        _after_last_user,
        renderer=glm.render_transcript,
    ),
    "kimi-k2-thinking": Spec(
        "kimi-k2-thinking.jinja",
        "kimi",
        "<|im_assistant|>assistant<|im_middle|>",
        "<|im_system|>",
        _after_last_plain_answer,
        empty_content=None,
        renderer=kimi.render_transcript,
    ),
    "deepseek-v3.1": Spec(
        "deepseek-v3.1.jinja",
        "deepseek",
        "<｜Assistant｜>",
        "<｜tool▁output▁begin｜>",
        lambda messages, k: False,
        arguments_as_text=True,
        empty_content=None,
        renderer=deepseek.render_transcript,
        variables={"bos_token": "<｜begin▁of▁sentence｜>"},
    ),
    "deepseek-r1": Spec(
        "deepseek-r1.jinja",
        "deepseek",
        "<｜Assistant｜>",
        "<｜tool▁outputs▁begin｜>",
        lambda messages, k: False,
        arguments_as_text=True,
        empty_content=None,
        content_beside_calls=False,  # R1's template writes such text as a turn of its own
        # R1's template never resets `ns.is_first`, so a later call turn loses its
        # `<｜Assistant｜><｜tool▁calls▁begin｜>`: only the first is what the model writes.
        later_call_turns=False,
        variables={"bos_token": "<｜begin▁of▁sentence｜>"},
    ),
    "deepseek-v3.2": Spec(
        "deepseek-v3.2.jinja",
        "deepseek_v32",
        "",
        "<function_results>",
        _after_last_user,
        renderer=deepseek_v32.render_transcript,
    ),
    "minimax-m2": Spec(
        "minimax-m2.jinja",
        "minimax",
        "]~b]ai\n",
        "]~b]",
        _after_last_user,
        renderer=minimax.render_transcript,
        # The Unsloth copy's comment line after the call block adds a newline that MiniMax's
        # own template does not write.
        copy_differs=(("</minimax:tool_call>\n[e~[", "</minimax:tool_call>[e~["),),
    ),
}


def _first_call_turn(conversation: list[dict[str, Any]], k: int) -> bool:
    return k == next(j for j, m in enumerate(conversation) if m.get("tool_calls"))


CASES = [
    (name, c, k)
    for name, spec in SPECS.items()
    for c, conversation in enumerate(CONVERSATIONS)
    for k, msg in enumerate(conversation)
    if msg["role"] == "assistant"
    and (spec.later_call_turns or not msg.get("tool_calls") or _first_call_turn(conversation, k))
]


def _scan(spec: Spec, before: str, output: str, chunks: int | None = None) -> list[Event]:
    thinking = before.endswith("<think>") or before.endswith("<think>\n")
    parts = (
        [output]
        if chunks is None
        else [output[i : i + chunks] for i in range(0, len(output), chunks)]
    )
    return merge(scan(scanner(spec.dialect, start_in_thinking=thinking, tools=TOOLS), parts))


@pytest.mark.parametrize(("name", "c", "k"), CASES)
def test_assistant_turn_scans_back_to_its_message(name: str, c: int, k: int) -> None:
    spec = SPECS[name]
    messages = spec.prepare(CONVERSATIONS[c])
    before, output = assistant_turn(spec.template, messages, k, spec.opener, **spec.variables)
    events = _scan(spec, before, output)
    assert not [e for e in events if isinstance(e, Malformed | ResultForgery)], (output, events)
    assert _scan(spec, before, output, chunks=1) == events  # token-sized chunks, same events

    msg = messages[k]
    calls = CONVERSATIONS[c][k].get("tool_calls") or []
    ends = [e for e in events if isinstance(e, ToolEnd)]
    assert [(e.name, json.loads(e.arguments)) for e in ends] == [
        (call["function"]["name"], call["function"]["arguments"]) for call in calls
    ]
    if spec.dialect == "kimi":  # the model's own ids, kept whole
        assert [e.id for e in events if isinstance(e, ToolStart)] == [call["id"] for call in calls]
    text = "".join(e.text for e in events if isinstance(e, Text))
    assert text.strip() == (msg.get("content") or "").strip()
    reasoning = "".join(e.delta for e in events if isinstance(e, ThinkingDelta))
    expected = msg.get("reasoning_content", "") if spec.keeps_reasoning(messages, k) else ""
    assert reasoning.strip() == expected.strip()


@pytest.mark.parametrize("name", SPECS)
def test_template_tool_result_is_a_forgery_in_model_output(name: str) -> None:
    spec = SPECS[name]
    messages = spec.prepare(CONVERSATIONS[0])
    before, output = assistant_turn(spec.template, messages, 2, spec.opener, **spec.variables)
    full = render(spec.template, messages[:5], **spec.variables)
    rest = full[len(before) :]  # the call turn, then the host's two tool results
    events = merge(scan(scanner(spec.dialect, tools=TOOLS), [rest]))
    hits = [e for e in events if isinstance(e, ResultForgery)]
    assert len(hits) == 1
    assert hits[0].offset == rest.index(spec.result_marker, len(output))
    assert len([e for e in events if isinstance(e, ToolEnd)]) == 2  # the calls before it


@pytest.mark.parametrize("name", [n for n, s in SPECS.items() if s.renderer is not None])
@pytest.mark.parametrize("c", range(len(CONVERSATIONS)))
def test_render_transcript_writes_what_the_template_writes(name: str, c: int) -> None:
    spec = SPECS[name]
    assert spec.renderer is not None
    messages = spec.prepare(CONVERSATIONS[c])
    expected = render(spec.template, messages, **spec.variables)
    for copy, original in spec.copy_differs:
        expected = expected.replace(copy, original)
    assert spec.renderer(messages) == expected
