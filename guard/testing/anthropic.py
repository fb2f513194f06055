"""Anthropic (Claude's XML tool tags) renderers: what the chat template writes for tool calls,
results, reasoning and whole conversations, spelled with :mod:`guard.scanners.anthropic`'s
markers (docs/scanners.md, "Renderers"). For tests, benchmarks and corpora; the library itself
never renders."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners.anthropic import NS
from guard.testing._messages import (
    arguments_object,
    as_text,
    message_calls,
    message_thinking,
    result_name,
)


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def render_tool_call(name: str, arguments: str | Mapping[str, Any], *, prefix: bool = False) -> str:
    """A ``<function_calls>`` block with one invoke; ``prefix=True`` writes Claude's ``antml:``
    spelling. Strings go in as they are, other values as JSON."""
    return render_tool_calls([(name, arguments)], prefix=prefix)


def render_tool_calls(
    calls: Iterable[tuple[str, str | Mapping[str, Any]]], *, prefix: bool = False
) -> str:
    """A ``<function_calls>`` block with one invoke per ``(name, arguments)``."""
    ns = NS if prefix else ""
    parts = [f"<{ns}function_calls>\n"]
    for name, arguments in calls:
        if not name:
            raise ValueError("empty tool name")
        parts.append(f'<{ns}invoke name="{_attr(name)}">\n')
        for key, value in arguments_object(arguments).items():
            text = _value_text(value)
            if f"</{ns}parameter>" in text or "</parameter>" in text:
                raise ValueError(f"parameter {key!r}: the value holds </parameter>")
            parts.append(f'<{ns}parameter name="{_attr(key)}">{text}</{ns}parameter>\n')
        parts.append(f"</{ns}invoke>\n")
    parts.append(f"</{ns}function_calls>")
    return "".join(parts)


def render_tool_result(name: str, content: Any, *, error: bool = False) -> str:
    """The legacy ``<function_results>`` block: ``<result>`` with ``<tool_name>`` and
    ``<stdout>``, or ``<error>`` with ``<stderr>``."""
    kind, stream = ("error", "stderr") if error else ("result", "stdout")
    return (
        f"<function_results>\n<{kind}>\n<tool_name>{html.escape(name, quote=False)}</tool_name>\n"
        f"<{stream}>\n{as_text(content)}\n</{stream}>\n</{kind}>\n</function_results>"
    )


def render_thinking(text: str) -> str:
    """``<thinking>\\n...\\n</thinking>``."""
    return f"<thinking>\n{text}\n</thinking>"


def render_transcript(messages: Iterable[Mapping[str, Any] | str]) -> str:
    """A conversation in the legacy text form: ``\\n\\nHuman: ...`` and ``\\n\\nAssistant: ...``
    turns, calls as ``<function_calls>`` blocks, tool results as ``<function_results>`` in a
    Human turn; system and developer text leads the transcript. Raw strings are kept as they
    are."""
    parts: list[str] = []
    call_names: dict[str, str] = {}
    for msg in messages:
        if isinstance(msg, str):
            parts.append(msg)
            continue
        role = str(msg.get("role", ""))
        if role in ("system", "developer"):
            parts.append(as_text(msg.get("content")))
        elif role == "user":
            parts.append(f"\n\nHuman: {as_text(msg.get('content'))}")
        elif role == "tool":
            name = result_name(msg, call_names)
            parts.append(f"\n\nHuman: {render_tool_result(name, msg.get('content'))}")
        elif role == "assistant":
            body: list[str] = []
            thinking = message_thinking(msg)
            if thinking:
                body.append(render_thinking(thinking) + "\n")
            content = as_text(msg.get("content") or "")
            calls = message_calls(msg)
            if content:
                body.append(content + ("\n" if calls else ""))
            if calls:
                for cid, name, _ in calls:
                    if cid:
                        call_names[cid] = name
                body.append(render_tool_calls((name, args) for _, name, args in calls))
            parts.append("\n\nAssistant: " + "".join(body))
        else:
            raise ValueError(f"unknown role {role!r}")
    return "".join(parts)
