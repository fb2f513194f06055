"""Differential tests for Qwen3-Coder, Gemma 4, Gemma 3 and Llama 4: random conversations
rendered with the models' own chat templates scan back to the messages that produced them.

Random conversations (text turns, single and parallel tool calls with strings, numbers,
booleans, nulls, lists and nested objects as arguments, tool results) are rendered with the
template of each model (``tests/data/templates``, see its README) by ``support.templates``.
Each assistant turn is cut out of the rendering (what the template writes for the message after
its role opener is what the model wrote), cut into random chunks and scanned. The calls must
come back with the name and arguments of the message (as the template wrote them: the Llama 4
template writes every value as a string), and the visible text must be the message content.
"""

from __future__ import annotations

import json
import keyword
import random
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from support.scanning import merge, scan, split
from support.templates import assistant_turn

from guard.models import Event, Malformed, ResultForgery, Text, ToolEnd
from guard.scanners import scanner

CONVERSATIONS = 150

Message = dict[str, Any]


# ---------------------------------------------------------------------------------------------
# Random conversations


@dataclass(frozen=True)
class Style:
    """What a template can carry: which values, which characters in strings."""

    alphabet: str
    nulls: bool = True
    containers: bool = True
    newlines: bool = True
    content_with_calls: bool = True
    max_arguments: int = 4


_SAFE = string.ascii_letters + string.digits + " .,:;!?-_()'é你好"
QWEN = Style(_SAFE + '"{}[]<>/=\\', nulls=False)
GEMMA4 = Style(_SAFE + '"{}[]<>/=\\')
#: vLLM's Gemma 3 template sets ``first = false`` inside its loop over the arguments, which
#: jinja2's scoping undoes, so it writes no comma between two arguments: one argument a call.
GEMMA3 = Style(_SAFE + '"{}[]<>/=\\\t', content_with_calls=False, max_arguments=1)
LLAMA4 = Style(
    string.ascii_letters + string.digits + " .,:;!?-_()é你好{}<>/=",
    newlines=False,
    content_with_calls=False,
)


def _text(rng: random.Random, style: Style, lo: int = 0, hi: int = 24) -> str:
    chars = style.alphabet + ("\n" if style.newlines else "")
    return "".join(rng.choice(chars) for _ in range(rng.randint(lo, hi)))


def _value(rng: random.Random, style: Style, depth: int = 0) -> Any:
    kinds = ["str", "str", "int", "float", "bool"]
    if style.nulls:
        kinds.append("null")
    if style.containers and depth < 2:
        kinds += ["list", "dict"]
    kind = rng.choice(kinds)
    if kind == "str":
        return _text(rng, style)
    if kind == "int":
        return rng.randint(-(10**6), 10**6)
    if kind == "float":
        return rng.choice([0.5, -2.25, 3.14, 1e-07, 12345.678, 100.0])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "list":
        return [_value(rng, style, depth + 1) for _ in range(rng.randint(0, 3))]
    return {_key(rng): _value(rng, style, depth + 1) for _ in range(rng.randint(0, 3))}


def _key(rng: random.Random) -> str:
    """An argument name; never a Python keyword (pythonic calls are Python)."""
    key = rng.choice(string.ascii_lowercase) + "".join(
        rng.choice(string.ascii_lowercase + string.digits + "_") for _ in range(rng.randint(0, 8))
    )
    return key + "_" if keyword.iskeyword(key) or keyword.issoftkeyword(key) else key


_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", type(None): "null"}


def _schema(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return {"type": "object"}
    if isinstance(value, list):
        return {"type": "array"}
    return {"type": _JSON_TYPES[type(value)]}


def conversation(rng: random.Random, style: Style) -> tuple[list[Message], list[dict[str, Any]]]:
    """Alternating user / assistant turns; an assistant turn may call tools, then the results
    and a text answer follow. Returns the messages and the tool definitions they use."""
    messages: list[Message] = [{"role": "system", "content": "Be brief."}]
    tools: list[dict[str, Any]] = []
    for _turn in range(rng.randint(1, 3)):
        messages.append({"role": "user", "content": "Q " + _text(rng, style, 1)})
        if rng.random() < 0.75:
            calls = []
            for _ in range(rng.randint(1, 3)):
                name = f"tool_{len(tools)}"
                count = rng.randint(0, style.max_arguments)
                args = {_key(rng): _value(rng, style) for _ in range(count)}
                props = {k: _schema(v) for k, v in args.items()}
                tools.append(
                    {
                        "type": "function",
                        "function": {
                            "name": name,
                            "description": "A tool.",
                            "parameters": {"type": "object", "properties": props},
                        },
                    }
                )
                calls.append(
                    {
                        "id": f"id_{len(tools)}",
                        "type": "function",
                        "function": {"name": name, "arguments": args},
                    }
                )
            content = (
                "Let me look. " + _text(rng, style)
                if style.content_with_calls and rng.random() < 0.5
                else ""
            )
            messages.append({"role": "assistant", "content": content, "tool_calls": calls})
            for call in calls:
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call["id"],
                        "name": call["function"]["name"],
                        "content": "result " + _text(rng, style),
                    }
                )
        messages.append({"role": "assistant", "content": "A " + _text(rng, style, 1)})
    return messages, tools


# ---------------------------------------------------------------------------------------------
# Cutting assistant turns out of a rendering


def assistant_turns(
    template: str, messages: list[Message], opener: str, **context: Any
) -> Iterator[tuple[Message, str]]:
    """Each assistant message with the text the model wrote for it."""
    for k, msg in enumerate(messages):
        if msg["role"] == "assistant":
            before, output = assistant_turn(template, messages, k, opener, **context)
            assert before.endswith(opener)
            yield msg, output


def scanned(
    dialect: str, output: str, tools: list[dict[str, Any]], rng: random.Random
) -> list[Event]:
    """The turn's events; the same for a random chunking as for the whole (law L2)."""
    whole = merge(scan(scanner(dialect, tools=tools), [output]))
    points = [rng.randrange(len(output) + 1) for _ in range(rng.randint(1, 12))]
    assert merge(scan(scanner(dialect, tools=tools), split(output, points))) == whole
    return whole


def check_turn(
    events: list[Event],
    msg: Message,
    expected_args: Callable[[dict[str, Any]], dict[str, Any]] = lambda a: a,
) -> None:
    assert not [e for e in events if isinstance(e, Malformed | ResultForgery)], events
    got = [(e.name, json.loads(e.arguments)) for e in events if isinstance(e, ToolEnd)]
    want = [
        (c["function"]["name"], expected_args(c["function"]["arguments"]))
        for c in msg.get("tool_calls", [])
    ]
    assert got == want
    shown = "".join(e.text for e in events if isinstance(e, Text))
    assert shown.strip() == msg["content"].strip()


# ---------------------------------------------------------------------------------------------
# The templates


@pytest.mark.parametrize("dialect", ["qwen3_coder", "chatml"])
def test_qwen3_coder_template_round_trip(dialect: str) -> None:
    """Qwen3-Coder: XML calls in <tool_call>; values typed back by the tool schemas."""
    rng = random.Random(12)
    seen = 0
    for _ in range(CONVERSATIONS):
        messages, tools = conversation(rng, QWEN)
        turns = assistant_turns("qwen3-coder.jinja", messages, "<|im_start|>assistant", tools=tools)
        for msg, output in turns:
            assert output.endswith("<|im_end|>\n")
            check_turn(scanned(dialect, output, tools, rng), msg)
            seen += len(msg.get("tool_calls", []))
    assert seen > 100


def test_gemma4_template_round_trip() -> None:
    """Gemma 4: <|tool_call>call:NAME{...}<tool_call|> with <|"|> strings, sorted keys."""
    rng = random.Random(4)
    seen = 0
    for _ in range(CONVERSATIONS):
        messages, tools = conversation(rng, GEMMA4)
        turns = assistant_turns(
            "gemma-4.jinja",
            messages,
            "<|turn>model\n",
            tools=tools,
            enable_thinking=True,
            bos_token="<bos>",
        )
        for msg, output in turns:
            assert output.endswith("<turn|>\n")
            check_turn(scanned("gemma", output, tools, rng), msg)
            seen += len(msg.get("tool_calls", []))
    assert seen > 100


def test_gemma3_pythonic_template_round_trip() -> None:
    """Gemma 3 (vLLM's pythonic tool template): a list of calls with JSON-literal arguments."""
    rng = random.Random(3)
    seen = 0
    for _ in range(CONVERSATIONS):
        messages, tools = conversation(rng, GEMMA3)
        for msg in messages:  # the template checks alternation on messages without calls
            if msg["role"] == "assistant" and not msg.get("tool_calls"):
                msg.pop("tool_calls", None)
        turns = assistant_turns(
            "gemma-3-pythonic.jinja",
            messages,
            "<start_of_turn>model\n",
            tools=tools,
            bos_token="<bos>",
        )
        for msg, output in turns:
            assert output.endswith("<end_of_turn>\n")
            check_turn(scanned("pythonic", output, tools, rng), msg)
            seen += len(msg.get("tool_calls", []))
    assert seen > 100


def test_llama4_pythonic_template_round_trip() -> None:
    """Llama 4 (pythonic template): the template writes every argument as a quoted ``%s``
    string, so the calls come back with string values."""
    rng = random.Random(44)
    seen = 0
    for _ in range(CONVERSATIONS):
        messages, tools = conversation(rng, LLAMA4)
        turns = assistant_turns(
            "llama-4-pythonic.jinja",
            messages,
            "<|header_start|>assistant<|header_end|>\n\n",
            tools=tools,
            bos_token="",
        )
        for msg, output in turns:
            assert output.endswith("<|eot|>")
            check_turn(
                scanned("pythonic", output, tools, rng),
                msg,
                lambda args: {k: str(v) for k, v in args.items()},
            )
            seen += len(msg.get("tool_calls", []))
    assert seen > 100
