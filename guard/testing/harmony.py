"""Harmony (gpt-oss) renderers (:mod:`guard.testing`), spelled with
:mod:`guard.scanners.harmony`'s markers."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from guard.scanners.harmony import CALL, CHANNEL, END, MESSAGE, RETURN, START


def _recipient(name: str) -> str:
    if not name or any(c.isspace() for c in name) or "<|" in name or "|>" in name:
        raise ValueError(f"invalid tool name {name!r}")
    return name if "." in name else f"functions.{name}"


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # OpenAI content parts
        return "".join(str(p.get("text", "")) if isinstance(p, Mapping) else str(p) for p in value)
    return json.dumps(value, ensure_ascii=False)


def render_tool_call(
    name: str,
    arguments: str | Mapping[str, Any],
    *,
    recipient_in: Literal["channel", "role"] = "channel",
    content_type: str | None = None,
) -> str:
    """One assistant tool call, ending in ``<|call|>``.

    ``name`` without a dot is a function (``to=functions.NAME``); with one it is the full
    recipient (``browser.search``). Functions go to the ``commentary`` channel, built-ins to
    ``analysis``. ``content_type`` is spelled as openai-harmony does: ``"<|constrain|>json"``
    renders `` <|constrain|>json``, a bare word renders `` json``. ``arguments`` is inserted
    as given (a mapping is JSON-encoded first).
    """
    return _render_call(_recipient(name), _as_text(arguments), recipient_in, content_type)


def _render_call(recipient: str, body: str, recipient_in: str, content_type: str | None) -> str:
    if not recipient or any(c.isspace() for c in recipient) or "<|" in recipient:
        raise ValueError(f"invalid recipient {recipient!r}")
    channel = "commentary" if recipient.startswith("functions.") else "analysis"
    ct = ""
    if content_type is not None:
        if not content_type or any(c.isspace() for c in content_type):
            raise ValueError(f"invalid content type {content_type!r}")
        ct = " " + content_type
    if recipient_in == "role":
        header = f"{START}assistant to={recipient}{CHANNEL}{channel}{ct}"
    elif recipient_in == "channel":
        header = f"{START}assistant{CHANNEL}{channel} to={recipient}{ct}"
    else:
        raise ValueError(f"recipient_in must be 'channel' or 'role', got {recipient_in!r}")
    return f"{header}{MESSAGE}{body}{CALL}"


def render_tool_result(name: str, content: Any) -> str:
    """A tool result message, as only the host writes it."""
    return (
        f"{START}{_recipient(name)} to=assistant{CHANNEL}commentary{MESSAGE}"
        f"{_as_text(content)}{END}"
    )


def render_thinking(text: str) -> str:
    """An ``analysis`` message."""
    return f"{START}assistant{CHANNEL}analysis{MESSAGE}{text}{END}"


def _stored(raw: str) -> str:
    """A stored completion: primed text gets its ``<|start|>assistant`` back, and a trailing
    ``<|return|>`` becomes ``<|end|>`` (docs/wire-formats.md, "Turn boundaries")."""
    if raw.startswith(CHANNEL) or raw.startswith(" to="):
        raw = f"{START}assistant{raw}"
    if raw.endswith(RETURN):
        raw = raw[: -len(RETURN)] + END
    return raw


def render_transcript(
    messages: Iterable[Mapping[str, Any] | str], *, drop_analysis: bool = True
) -> str:
    """Render a conversation as Harmony wire text.

    Items are OpenAI chat messages (``role``, ``content``, ``tool_calls``, ``reasoning_content``
    / ``reasoning`` / ``thinking``, ``name`` / ``tool_call_id`` on tool messages), Harmony-native
    assistant messages (with ``channel``, optional ``recipient`` and ``content_type``), or raw
    stored Harmony text. Assistant text is a ``final`` message ending in ``<|end|>`` (a stored
    trailing ``<|return|>`` is normalised to ``<|end|>``); text beside tool calls is a
    ``commentary`` preamble. With ``drop_analysis`` (docs/wire-formats.md, "Turn boundaries"), the
    analysis of an earlier turn that ended with a final answer is dropped; analysis before a call
    is kept.
    """
    # (kind, text) per rendered message, grouped into turns split at user-side messages.
    turns: list[list[tuple[str, str]]] = [[]]
    call_names: dict[str, str] = {}
    for msg in messages:
        if isinstance(msg, str):
            turns[-1].append(("raw", _stored(msg)))
            continue
        role = str(msg.get("role", ""))
        if role in ("system", "developer", "user"):
            turns.append([(role, f"{START}{role}{MESSAGE}{_as_text(msg.get('content'))}{END}")])
            turns.append([])
        elif role == "assistant":
            turns[-1].extend(_assistant(msg, call_names))
        elif role == "tool":
            name = msg.get("name") or call_names.get(str(msg.get("tool_call_id", "")))
            if not name:
                raise ValueError("tool message without a name or a known tool_call_id")
            turns[-1].append(("result", render_tool_result(str(name), msg.get("content"))))
        else:
            raise ValueError(f"unknown role {role!r}")
    last = max((k for k, t in enumerate(turns) if any(kind != "raw" for kind, _ in t)), default=0)
    parts: list[str] = []
    for k, turn in enumerate(turns):
        assistant = [kind for kind, _ in turn if kind in ("final", "call", "text")]
        ended_final = bool(assistant) and assistant[-1] == "final"
        drop = drop_analysis and k < last and ended_final
        parts.extend(text for kind, text in turn if not (drop and kind == "analysis"))
    return "".join(parts)


def _assistant(msg: Mapping[str, Any], call_names: dict[str, str]) -> list[tuple[str, str]]:
    if "channel" in msg:
        channel = str(msg["channel"])
        recipient = msg.get("recipient")
        content = _as_text(msg.get("content", ""))
        if recipient:
            return [
                (
                    "call",
                    _render_call(str(recipient), content, "channel", msg.get("content_type")),
                )
            ]
        kind = {"analysis": "analysis", "final": "final"}.get(channel, "text")
        ct = f" {msg['content_type']}" if msg.get("content_type") else ""
        return [(kind, f"{START}assistant{CHANNEL}{channel}{ct}{MESSAGE}{content}{END}")]
    out: list[tuple[str, str]] = []
    thinking = msg.get("reasoning_content") or msg.get("reasoning") or msg.get("thinking")
    if thinking:
        out.append(("analysis", render_thinking(_as_text(thinking))))
    calls = msg.get("tool_calls") or []
    content = _as_text(msg.get("content") or "")
    if content:
        content = _stored(content) if content.startswith((START, CHANNEL)) else content
        if content.startswith(START):
            out.append(("raw", content))
        elif calls:
            out.append(("text", f"{START}assistant{CHANNEL}commentary{MESSAGE}{content}{END}"))
        else:
            out.append(("final", f"{START}assistant{CHANNEL}final{MESSAGE}{content}{END}"))
    for call in calls:
        fn = call.get("function", call)
        name = str(fn.get("name", ""))
        if call.get("id"):
            call_names[str(call["id"])] = name
        out.append(("call", render_tool_call(name, fn.get("arguments", "{}"))))
    return out
