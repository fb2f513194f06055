"""ChatGLM3 renderers (:mod:`guard.testing`), spelled with
:mod:`guard.scanners.chatglm3`'s markers."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from guard.scanners.chatglm3 import ASSISTANT, OBSERVATION, SYSTEM, USER
from guard.testing._messages import as_text, message_calls

_ROLES: Final[dict[str, str]] = {"system": SYSTEM, "developer": SYSTEM, "user": USER}


def _py(value: Any) -> str:
    """A JSON value as a Python literal (``true`` -> ``True``)."""
    return repr(value)


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """``<|assistant|>NAME`` and a fenced ``tool_call(k=v, ...)``; for ``interpreter`` the
    arguments are the code."""
    if not name or "\n" in name or "<|" in name:
        raise ValueError(f"invalid tool name {name!r}")
    if name == "interpreter":
        if not isinstance(arguments, str):
            raise TypeError("interpreter arguments are code (a string)")
        return f"{ASSISTANT}interpreter\n```python\n{arguments}\n```"
    kwargs = json.loads(arguments) if isinstance(arguments, str) else dict(arguments)
    if not isinstance(kwargs, dict) or not all(
        isinstance(k, str) and k.isidentifier() for k in kwargs
    ):
        raise ValueError("arguments must be an object with identifier keys")
    inner = ", ".join(f"{k}={_py(v)}" for k, v in kwargs.items())
    return f"{ASSISTANT}{name}\n```python\ntool_call({inner})\n```"


def render_tool_result(content: Any) -> str:
    """A tool result as only the host writes it: ``<|observation|>``, a line break and the
    content (text as it is, anything else as JSON)."""
    return f"{OBSERVATION}\n{as_text(content)}"


def render_transcript(messages: Iterable[Mapping[str, Any]]) -> str:
    """A conversation as ChatGLM3's ``build_chat_input`` writes it: ``[gMASK]sop``, then
    ``<|role|>{metadata}\n{content}`` per message; each tool call is its own assistant message
    (:func:`render_tool_call`), each tool result an observation."""
    out = ["[gMASK]sop"]
    for msg in messages:
        role = str(msg.get("role", ""))
        text = as_text(msg.get("content"))
        if role in _ROLES:
            out.append(f"{_ROLES[role]}\n{text}")
        elif role == "assistant":
            calls = message_calls(msg)
            if text or not calls:
                out.append(f"{ASSISTANT}\n{text}")
            out.extend(render_tool_call(name, args) for _, name, args in calls)
        elif role in ("tool", "function", "observation"):
            out.append(render_tool_result(msg.get("content")))
        else:
            raise ValueError(f"unknown role {role!r}")
    return "".join(out)
