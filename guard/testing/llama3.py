"""Llama 3 renderers (:mod:`guard.testing`), spelled with :mod:`guard.scanners.llama3`'s
markers."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners.llama3 import END_HEADER, EOM, EOT, PYTHON_TAG, START_HEADER
from guard.testing._messages import as_text, json_text, message_calls, render_messages


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """``<|python_tag|>{"name": ..., "parameters": ...}<|eom_id|>``."""
    if not name:
        raise ValueError("empty tool name")
    args = json_text(arguments)
    return (
        f'{PYTHON_TAG}{{"name": {json.dumps(name, ensure_ascii=False)}, "parameters": {args}}}{EOM}'
    )


def render_tool_result(name: str, content: Any) -> str:
    """An ``ipython`` turn with the result (mappings as JSON, as the Llama 3.1 template writes
    them)."""
    del name
    return f"{START_HEADER}ipython{END_HEADER}\n\n{as_text(content)}{EOT}"


def render_transcript(messages: Iterable[Mapping[str, Any] | str]) -> str:
    """A conversation as Llama 3 wire text: ``<|start_header_id|>ROLE<|end_header_id|>\\n\\n
    ...<|eot_id|>`` turns; a call is its own assistant message ending in ``<|eom_id|>``; results
    are ``ipython`` turns. Raw strings are kept as they are. Llama 3 has no reasoning section:
    reasoning on a message is left out."""
    return render_messages(messages, turn=_turn, assistant=_assistant, tool=render_tool_result)


def _turn(role: str, text: str) -> str:
    return f"{START_HEADER}{role}{END_HEADER}\n\n{text}{EOT}"


def _assistant(msg: Mapping[str, Any]) -> str:
    """The text as one assistant message, then each call as its own (ending in ``<|eom_id|>``)."""
    content = as_text(msg.get("content") or "")
    head = f"{START_HEADER}assistant{END_HEADER}\n\n"
    calls = "".join(head + render_tool_call(name, args) for _, name, args in message_calls(msg))
    return (_turn("assistant", content) if content else "") + calls
