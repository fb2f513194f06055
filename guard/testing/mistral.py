"""Mistral renderers (:mod:`guard.testing`), in the three call bodies of its tokenizer versions
(what Mistral's tokenizers write, rather than a chat template)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from guard.testing._messages import arguments_object, assistant_parts, json_text, render_messages

TOOL_CALLS, ARGS, CALL_ID = "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"
RESULTS_OPEN, RESULTS_CLOSE = "[TOOL_RESULTS]", "[/TOOL_RESULTS]"
THINK_OPEN, THINK_CLOSE = "[THINK]", "[/THINK]"
INST_OPEN, INST_CLOSE = "[INST]", "[/INST]"
SYSTEM_OPEN, SYSTEM_CLOSE = "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]"
BOS, EOS = "<s>", "</s>"

#: the call bodies of Mistral's tokenizer versions: ``v13`` (and later) ``NAME[ARGS]{...}``,
#: ``v11`` ``NAME[CALL_ID]ID[ARGS]{...}``, ``v3`` a JSON list of call objects
Version = Literal["v3", "v11", "v13"]


def _call_id(index: int) -> str:
    """A call id as Mistral's templates require it: nine letters and digits."""
    return f"call{index:05d}"[-9:].rjust(9, "c")


def render_tool_call(
    name: str, arguments: str | Mapping[str, Any], *, version: Version = "v13"
) -> str:
    """One call: ``[TOOL_CALLS]NAME[ARGS]{...}`` (``v13``), with ``[CALL_ID]ID`` before the
    arguments (``v11``), or ``[TOOL_CALLS][{"name": ..., "arguments": ...}]`` (``v3``)."""
    return render_tool_calls([(name, arguments)], version=version)


def render_tool_calls(
    calls: Iterable[tuple[str, str | Mapping[str, Any]]], *, version: Version = "v13"
) -> str:
    """Several calls: each after its own ``[TOOL_CALLS]`` (``v11``, ``v13``), or one JSON list
    after one ``[TOOL_CALLS]`` (``v3``). The end-of-sequence token is left out, as a server
    consumes it."""
    calls = list(calls)
    if version == "v3":
        items = [
            {"name": name, "arguments": arguments_object(args), "id": _call_id(i)}
            for i, (name, args) in enumerate(calls)
        ]
        return TOOL_CALLS + json.dumps(items, ensure_ascii=False)
    parts = []
    for i, (name, args) in enumerate(calls):
        ident = f"{CALL_ID}{_call_id(i)}" if version == "v11" else ""
        parts.append(f"{TOOL_CALLS}{name}{ident}{ARGS}{json_text(args)}")
    return "".join(parts)


def render_tool_result(name: str, content: Any) -> str:
    """``[TOOL_RESULTS]...[/TOOL_RESULTS]`` (the templates of v13 and later carry no id)."""
    del name
    return f"{RESULTS_OPEN}{json_text(content)}{RESULTS_CLOSE}"


def render_thinking(text: str) -> str:
    """Reasoning between ``[THINK]`` and ``[/THINK]`` (v13 reasoning models)."""
    return f"{THINK_OPEN}{text}{THINK_CLOSE}"


def render_transcript(messages: Iterable[Mapping[str, Any] | str]) -> str:
    """A conversation as Mistral wire text (v13): ``<s>``, the system prompt in
    ``[SYSTEM_PROMPT]``, user turns in ``[INST]...[/INST]``, an assistant's reasoning, calls and
    text, each assistant turn ended by ``</s>``, tool results in ``[TOOL_RESULTS]``. Raw
    strings are kept as they are."""
    return render_messages(
        messages,
        head=BOS,
        system=lambda role, text: f"{SYSTEM_OPEN}{text}{SYSTEM_CLOSE}",
        turn=lambda role, text: f"{INST_OPEN}{text}{INST_CLOSE}",
        assistant=_assistant,
        tool=render_tool_result,
    )


def _assistant(msg: Mapping[str, Any]) -> str:
    thinking, content, calls = assistant_parts(msg)
    body = (render_thinking(thinking) if thinking else "") + content
    if calls:
        body += render_tool_calls((name, args) for _, name, args in calls)
    return body + EOS
