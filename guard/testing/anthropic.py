"""Anthropic (Claude's XML tool tags) renderers (:mod:`guard.testing`), spelled with
:mod:`guard.scanners.anthropic`'s markers."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners.anthropic import NS
from guard.testing._messages import (
    arguments_object,
    as_text,
    assistant_parts,
    json_text,
    render_messages,
)


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


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
            text = json_text(value)
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
    return render_messages(
        messages,
        system=lambda role, text: text,
        turn=lambda role, text: f"\n\nHuman: {text}",
        assistant=_assistant,
        tool=lambda name, content: f"\n\nHuman: {render_tool_result(name, content)}",
    )


def _assistant(msg: Mapping[str, Any]) -> str:
    thinking, content, calls = assistant_parts(msg)
    body = [render_thinking(thinking) + "\n"] if thinking else []
    if content:
        body.append(content + ("\n" if calls else ""))
    if calls:
        body.append(render_tool_calls((name, args) for _, name, args in calls))
    return "\n\nAssistant: " + "".join(body)
