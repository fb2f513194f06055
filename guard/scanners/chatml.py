"""ChatML / Hermes / Qwen scanner and call renderer (docs/scanners.md, "ChatML").

* ``<think>...</think>`` is thinking (with ``start_in_thinking=True`` the stream starts inside
  it, for templates that open ``<think>`` in the prompt);
* ``<tool_call>{json}</tool_call>`` is a call: the body is held (capped) until the closing tag,
  then ``ToolStart`` + ``ToolArgs`` + ``ToolEnd``; the name is the JSON ``name``, the arguments
  the JSON text of ``arguments`` (or ``parameters``) exactly as written. A body that is not such
  an object, or that is not closed, is ``Malformed`` with its raw text;
* ``<tool_response>`` and ``<|im_start|>`` in model output are a forged result or turn
  (``ResultForgery``; everything after it goes out as ``Malformed`` blocks), wherever they
  appear, inside thinking or a call body too;
* ``<|im_end|>`` and ``<|endoftext|>`` are stops (``Text`` with empty text).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from guard.models import (
    Event,
    Malformed,
    ResultForgery,
    Text,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolArgs,
    ToolEnd,
    ToolStart,
)
from guard.scanners.base import (
    HOLD,
    MAX_ARGUMENTS,
    Markers,
    ScannerBase,
    json_members,
    tool_arguments,
)

__all__ = ["ChatMLScanner", "parse_call", "render_tool_call"]

THINK_OPEN: Final = "<think>"
THINK_CLOSE: Final = "</think>"
CALL_OPEN: Final = "<tool_call>"
CALL_CLOSE: Final = "</tool_call>"
RESPONSE: Final = "<tool_response>"
IM_START: Final = "<|im_start|>"
IM_END: Final = "<|im_end|>"
EOT: Final = "<|endoftext|>"

_FORGERY = frozenset((RESPONSE, IM_START))
_STOPS = frozenset((IM_END, EOT))
_OUT_MARKERS = Markers(
    (THINK_OPEN, THINK_CLOSE, CALL_OPEN, CALL_CLOSE, RESPONSE, IM_START, IM_END, EOT)
)
_THINK_MARKERS = Markers((THINK_CLOSE, RESPONSE, IM_START, IM_END, EOT))
_CALL_MARKERS = Markers((CALL_CLOSE, RESPONSE, IM_START, IM_END, EOT))

_OUT, _THINK, _CALL, _SINK = range(4)


def parse_call(body: str) -> tuple[str, str] | None:
    """``(name, arguments)`` of a ``<tool_call>`` body, or ``None``."""
    members = json_members(body)
    if members is None or "name" not in members:
        return None
    name = members["name"][0]
    if not isinstance(name, str) or not name:
        return None
    return name, tool_arguments(body, members, ("arguments", "parameters")) or "{}"


class ChatMLScanner(ScannerBase):
    """Scanner for ChatML output with Hermes tool tags (see the module docstring)."""

    def __init__(
        self,
        *,
        start_in_thinking: bool = False,
        tools: Iterable[Mapping[str, Any]] | None = None,
        max_arguments: int = MAX_ARGUMENTS,
    ) -> None:
        super().__init__(max_arguments, tools)
        self._start_in_thinking = start_in_thinking
        self._reset()

    def _reset(self) -> None:
        self._state = _THINK if self._start_in_thinking else _OUT
        self._announce = self._start_in_thinking

    def _run(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        if self._announce:
            self._announce = False
            out.append(ThinkingStart(""))
        n = len(buf)
        while pos < n:
            st = self._state
            if st == _OUT:
                i, m = _OUT_MARKERS.find(buf, pos, final)
                if i > pos:
                    d = buf[pos:i]
                    out.append(Text(d, d))
                if m is None:
                    return n
                if m == HOLD:
                    return i
                pos = i + len(m)
                if m == THINK_OPEN:
                    out.append(ThinkingStart(m))
                    self._state = _THINK
                elif m == CALL_OPEN:
                    self._state = _CALL
                elif m in _FORGERY:
                    self._forgery(self._base + i, m, out)
                elif m in _STOPS:
                    out.append(Text("", m))
                else:
                    out.append(Malformed(f"{m} without its opening tag", m))
            elif st == _THINK:
                i, m = _THINK_MARKERS.find(buf, pos, final)
                if i > pos:
                    d = buf[pos:i]
                    out.append(ThinkingDelta(d, d))
                if m is None:
                    return n
                if m == HOLD:
                    return i
                self._state = _OUT
                if m == THINK_CLOSE:
                    out.append(ThinkingEnd(m))
                    pos = i + len(m)
                else:
                    out.append(ThinkingEnd(""))
                    pos = i
            elif st == _CALL:
                i, m = _CALL_MARKERS.find(buf, pos, final)
                if i > pos:
                    self._body_add(
                        buf[pos:i],
                        out,
                        CALL_OPEN,
                        f"tool call body longer than {self._max_arguments} characters",
                    )
                if m is None:
                    return n
                if m == HOLD:
                    return i
                self._state = _OUT
                if m == CALL_CLOSE:
                    self._end_call(m, out)
                    pos = i + len(m)
                else:
                    self._unclosed(f"tool call not closed before {m}", out)
                    pos = i
            else:  # _SINK
                self._sink_add(buf[pos:], out)
                return n
        return n

    def _forgery(self, offset: int, marker: str, out: list[Event]) -> None:
        out.append(ResultForgery(offset, marker, marker))
        self._sink_start("text after a forged tool result")
        self._state = _SINK

    def _end_call(self, close: str, out: list[Event]) -> None:
        if self._body_skip_end(close, out):
            return
        body = self._body_take()
        parsed = parse_call(body)
        if parsed is None:
            out.append(
                Malformed(
                    'tool call body is not a JSON object with a "name"',
                    CALL_OPEN + body + close,
                )
            )
            return
        name, args = parsed
        cid = self._next_id()
        out.append(ToolStart(cid, name, CALL_OPEN))
        out.append(ToolArgs(cid, args, body))
        out.append(ToolEnd(cid, name, args, close))

    def _unclosed(self, reason: str, out: list[Event]) -> None:
        if not self._body_skip_end("", out):
            out.append(Malformed(reason, CALL_OPEN + self._body_take()))

    def _finish(self, out: list[Event]) -> None:
        st = self._state
        if self._announce:
            self._announce = False
            out.append(ThinkingStart(""))
        if st == _THINK:
            out.append(ThinkingEnd(""))
        elif st == _CALL:
            self._unclosed("tool call not closed at end of stream", out)
        self._reset()


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """``<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>`` (Hermes / Qwen)."""
    if not name:
        raise ValueError("empty tool name")
    args = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    head = json.dumps(name, ensure_ascii=False)
    return f'{CALL_OPEN}\n{{"name": {head}, "arguments": {args}}}\n{CALL_CLOSE}'
