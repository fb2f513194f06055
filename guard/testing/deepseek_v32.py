"""DeepSeek V3.2 (DSML) renderers (:mod:`guard.testing`), spelled with
:mod:`guard.scanners.deepseek_v32`'s markers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners import check_name
from guard.scanners import deepseek_v32 as mk
from guard.testing._messages import arguments_object, as_text, checked_text


def _parameter(key: str, value: Any) -> str:
    text = checked_text(value, mk.PARAM_CLOSE, "a parameter value")
    flag = "true" if isinstance(value, str) else "false"
    return f'<{mk.DSML}parameter name="{check_name(key)}" string="{flag}">{text}{mk.PARAM_CLOSE}'


def _invoke(name: str, arguments: str | Mapping[str, Any]) -> str:
    check_name(name)
    params = "\n".join(_parameter(k, v) for k, v in arguments_object(arguments).items())
    return f'<{mk.DSML}invoke name="{name}">\n{params}\n{mk.INVOKE_CLOSE}'


def _calls(calls: Iterable[tuple[str, str | Mapping[str, Any]]]) -> str:
    body = "".join("\n" + _invoke(name, args) for name, args in calls)
    return f"\n\n{mk.CALLS_OPEN}{body}\n{mk.CALLS_CLOSE}"


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """One call in its own ``function_calls`` block (``string="true"`` for string values,
    JSON and ``string="false"`` for the others)."""
    return _calls([(name, arguments)])


def render_tool_result(contents: Iterable[Any]) -> str:
    """The results of one assistant turn's calls, as only the host writes them."""
    results = "".join(f"\n<result>{as_text(c)}</result>" for c in contents)
    return f"\n\n<function_results>{results}\n</function_results>"


def render_thinking(text: str) -> str:
    """A reasoning section."""
    return f"{mk.THINK_OPEN}{text}{mk.THINK_CLOSE}"


def render_transcript(messages: Iterable[Mapping[str, Any]], *, thinking: bool = True) -> str:
    """A conversation (OpenAI chat messages) as the llama.cpp DeepSeek-V3.2 template writes it
    without tools and without a generation prompt. In thinking mode the reasoning of assistant
    messages after the last user message is kept."""
    msgs = list(messages)
    last_user = max(
        (k for k, m in enumerate(msgs) if m.get("role") in ("user", "developer")), default=-1
    )
    parts = [mk.BOS]
    start = 0
    if msgs and msgs[0].get("role") == "system":
        parts.append(as_text(msgs[0].get("content")))
        start = 1
    for k in range(start, len(msgs)):
        msg = msgs[k]
        role = str(msg.get("role", ""))
        if role == "user":
            opened = mk.THINK_OPEN if k == last_user and thinking else mk.THINK_CLOSE
            parts.append(f"{mk.USER}{as_text(msg.get('content'))}{mk.ASSISTANT}{opened}")
        elif role == "assistant":
            if thinking and k > last_user:
                parts.append(as_text(msg.get("reasoning_content")) + mk.THINK_CLOSE)
            parts.append(as_text(msg.get("content")))
            calls = msg.get("tool_calls") or []
            if calls:
                pairs = [
                    (
                        str(c.get("function", c).get("name", "")),
                        c.get("function", c).get("arguments") or {},
                    )
                    for c in calls
                ]
                parts.append(_calls(pairs))
            parts.append(mk.EOS)
        elif role == "tool":
            prev = k - 1
            while prev >= 0 and msgs[prev].get("role") == "tool":
                prev -= 1
            order = k - prev
            expected = len(msgs[prev].get("tool_calls") or []) if prev >= 0 else 0
            if order == 1:
                parts.append("\n\n<function_results>")
            parts.append(f"\n<result>{as_text(msg.get('content'))}</result>")
            if order == expected:
                opened = mk.THINK_OPEN if k >= last_user and thinking else mk.THINK_CLOSE
                parts.append(f"\n</function_results>\n\n{opened}")
        else:
            raise ValueError(f"unknown role {role!r}")
    return "".join(parts)
