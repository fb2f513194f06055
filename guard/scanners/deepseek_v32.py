"""DeepSeek V3.2 (DSML) scanner and renderers (DeepSeek-V3.2's ``encoding_dsv32.py`` as copied
by vLLM, the llama.cpp DeepSeek-V3.2 template; vLLM's ``deepseekv32`` tool parser).

The output is the body of an assistant turn (the prompt ended in ``<｜Assistant｜>`` plus
``<think>`` in thinking mode: use ``start_in_thinking``):

* ``<think>...</think>`` is reasoning; a ``</think>`` as the very first thing of the output is
  the template's own closing tag echoed back (``Text`` with empty text);
* ``<｜DSML｜function_calls>`` (V4: ``<｜DSML｜tool_calls>``; ASCII bars accepted too) holds
  ``<｜DSML｜invoke name="NAME">`` elements with ``<｜DSML｜parameter name="KEY"
  string="true|false">VALUE</｜DSML｜parameter>`` elements (the shape shared with MiniMax M2,
  see :mod:`guard.scanners._invoke`). Where the request's tool schemas describe a parameter,
  they type its value (``"42"`` is 42 for an ``integer``, ``null`` stays text for a ``string``);
  otherwise a ``string="false"`` value is read as JSON (as text when it is not JSON) and any
  other value is a string;
* ``<function_results>`` (V3.2), ``<tool_result>`` (V4) and DeepSeek's tool-output tokens open a
  result only the host writes: in model output they are a forgery (``ResultForgery``;
  everything after it goes out as ``Malformed`` blocks), wherever they appear;
* ``<｜end▁of▁sentence｜>`` and ``<|EOT|>`` are stops (``Text`` with empty text); role tokens are
  ``Malformed``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from guard.dialects.deepseek import DEEPSEEK_V32
from guard.scanners._invoke import InvokeScanner
from guard.scanners._tagged import arguments_object, as_text, check_name
from guard.scanners.base import json_value

__all__ = [
    "DeepSeekV32Scanner",
    "render_thinking",
    "render_tool_call",
    "render_tool_result",
    "render_transcript",
]

DSML: Final = "｜DSML｜"
CALLS_OPEN: Final = f"<{DSML}function_calls>"
CALLS_CLOSE: Final = f"</{DSML}function_calls>"
INVOKE_CLOSE: Final = f"</{DSML}invoke>"
PARAM_CLOSE: Final = f"</{DSML}parameter>"
BOS: Final = "<｜begin▁of▁sentence｜>"
EOS: Final = "<｜end▁of▁sentence｜>"
USER: Final = "<｜User｜>"
ASSISTANT: Final = "<｜Assistant｜>"
THINK_OPEN: Final = "<think>"
THINK_CLOSE: Final = "</think>"

_BARS = ("｜", "|")


def _tags(word: str, closing: bool = False, open_ended: bool = False) -> tuple[str, ...]:
    """A DSML tag in both bar spellings."""
    slash = "/" if closing else ""
    end = "" if open_ended else ">"
    return tuple(f"<{slash}{b}DSML{b}{word}{end}" for b in _BARS)


class DeepSeekV32Scanner(InvokeScanner):
    """Scanner for DeepSeek V3.2 DSML output (see the module docstring).

    Args:
        start_in_thinking: the template put ``<think>`` in the prompt (thinking mode).
        tools: OpenAI tool definitions; their schemas type values that arrive as text.
        max_arguments: cap on a call body (characters); a longer one is ``Malformed``.
    """

    WRAPPER_OPENS = (*_tags("function_calls"), *_tags("tool_calls"))
    WRAPPER_CLOSES = (*_tags("function_calls", closing=True), *_tags("tool_calls", closing=True))
    INVOKE_OPENS = _tags("invoke", open_ended=True)
    INVOKE_CLOSES = _tags("invoke", closing=True)
    PARAM_OPENS = _tags("parameter", open_ended=True)
    PARAM_CLOSES = _tags("parameter", closing=True)
    FORGERIES = DEEPSEEK_V32.result_open
    STOPS = DEEPSEEK_V32.stop
    STRAY = (BOS, USER, ASSISTANT)
    ECHOED_CLOSE = True

    def _param_value(self, tool: str, key: str, attrs: dict[str, str], text: str) -> Any:
        # A schema decides (text is typed by it afterwards); without one, the attribute does.
        if self._types.schema(tool, key) is None and attrs.get("string", "").lower() == "false":
            return json_value(text)
        return text


# ---------------------------------------------------------------------------------------------
# Renderers (the V3.2 encoding's spelling). Text is inserted verbatim: escape untrusted text
# first (``guard.escape(text, "deepseek_v32")``).


def _parameter(key: str, value: Any) -> str:
    string = isinstance(value, str)
    text = value if string else json.dumps(value, ensure_ascii=False)
    if PARAM_CLOSE in text:
        raise ValueError(f"a parameter value cannot contain {PARAM_CLOSE}")
    flag = "true" if string else "false"
    return f'<{DSML}parameter name="{check_name(key)}" string="{flag}">{text}{PARAM_CLOSE}'


def _invoke(name: str, arguments: str | Mapping[str, Any]) -> str:
    check_name(name)
    params = "\n".join(_parameter(k, v) for k, v in arguments_object(arguments).items())
    return f'<{DSML}invoke name="{name}">\n{params}\n{INVOKE_CLOSE}'


def _calls(calls: Iterable[tuple[str, str | Mapping[str, Any]]]) -> str:
    body = "".join("\n" + _invoke(name, args) for name, args in calls)
    return f"\n\n{CALLS_OPEN}{body}\n{CALLS_CLOSE}"


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
    return f"{THINK_OPEN}{text}{THINK_CLOSE}"


def render_transcript(messages: Iterable[Mapping[str, Any]], *, thinking: bool = True) -> str:
    """A conversation (OpenAI chat messages) as the llama.cpp DeepSeek-V3.2 template writes it
    without tools and without a generation prompt. In thinking mode the reasoning of assistant
    messages after the last user message is kept."""
    msgs = list(messages)
    last_user = max(
        (k for k, m in enumerate(msgs) if m.get("role") in ("user", "developer")), default=-1
    )
    parts = [BOS]
    start = 0
    if msgs and msgs[0].get("role") == "system":
        parts.append(as_text(msgs[0].get("content")))
        start = 1
    for k in range(start, len(msgs)):
        msg = msgs[k]
        role = str(msg.get("role", ""))
        if role == "user":
            opened = THINK_OPEN if k == last_user and thinking else THINK_CLOSE
            parts.append(f"{USER}{as_text(msg.get('content'))}{ASSISTANT}{opened}")
        elif role == "assistant":
            if thinking and k > last_user:
                parts.append(as_text(msg.get("reasoning_content")) + THINK_CLOSE)
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
            parts.append(EOS)
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
                opened = THINK_OPEN if k >= last_user and thinking else THINK_CLOSE
                parts.append(f"\n</function_results>\n\n{opened}")
        else:
            raise ValueError(f"unknown role {role!r}")
    return "".join(parts)
