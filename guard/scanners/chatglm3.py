"""ChatGLM3 scanner (docs/wire-formats.md, "ChatGLM3"; docs/scanners.md,
"ChatGLM3").

An assistant message is ``<|assistant|>{metadata}\\n{body}``. Empty metadata means a text
answer (``Text``). Non-empty metadata names a tool: the body is a fenced block, ``tool_call(k=v,
...)`` for a tool (arguments = JSON text of the keyword dict, each value read with
:func:`ast.literal_eval`, never evaluated) or Python code for ``interpreter`` (arguments = the
code). ``ToolStart`` goes out when the metadata line is complete; the body is held (capped) until
the next role token or the end of the stream, then ``ToolArgs`` + ``ToolEnd``, or ``Malformed``
with the body when it does not parse.

``<|observation|>`` is the model's stop after a call when it is the last thing in the output,
and a forged tool result when anything but whitespace follows, so the scanner holds it (and
whitespace after it, capped) until it knows which. ``<|user|>``, ``<|system|>`` and ``</s>`` are
held the same way: at the end they are a stop (``Text`` with empty text), followed by more
output they are ``Malformed`` and scanning goes on.

With ``primed=True`` the stream starts inside an assistant message (the prompt ended in
``<|assistant|>``, as in the reference demos), so its first line is the metadata.
"""

from __future__ import annotations

import re
from typing import Any, Final

from guard.dialects.chatglm3 import CHATGLM3
from guard.models import Event, Malformed, Text, ToolArgs, ToolEnd, ToolStart
from guard.scanners._dialect import DialectScanner, step
from guard.scanners.base import Markers, kwargs_call

__all__ = ["ChatGLM3Scanner"]

# The spellings the dialect record holds are read from it.
(ASSISTANT,), (OBSERVATION,) = CHATGLM3.call_open, CHATGLM3.result_open
_, USER, EOS = CHATGLM3.stop  # the first is <|observation|>
SYSTEM: Final = "<|system|>"

_MARKERS = Markers((ASSISTANT, OBSERVATION, USER, SYSTEM, EOS))
_FENCE = re.compile(r"```([^\n`]*)\n(.*?)```", re.DOTALL)

_OUT, _HEADER, _CALL, _STOP, _SINK = range(5)


def parse_call(name: str, body: str) -> str | None:
    """Arguments of a call body (JSON text of the keywords; the code for ``interpreter``), or
    ``None`` when the body is not a fenced ``tool_call(...)`` (or code block). The last fenced
    block wins, as in the reference demo."""
    last = None
    for last in _FENCE.finditer(body):  # noqa: B007 - the last match is the one used
        pass
    if last is None:
        return None
    code = last.group(2)
    if name == "interpreter":
        return code.removesuffix("\n")
    parsed = kwargs_call(code, func="tool_call")
    return None if parsed is None else parsed[1]


class ChatGLM3Scanner(DialectScanner):
    """Scanner for ChatGLM3 output (see the module docstring).

    Args:
        primed: the stream starts inside an assistant message (its first line is the
            metadata); the other keywords are :class:`~guard.scanners.base.DialectScanner`'s.
    """

    NO_REASONING = "ChatGLM3 output has no reasoning section to start in"
    SINK_STATE = _SINK
    FORGED_STOPS = frozenset({OBSERVATION})
    TEXT_MARKERS = _MARKERS
    STOP_STATE = _STOP

    def __init__(self, *, primed: bool = False, **kwargs: Any) -> None:
        self._primed = primed
        super().__init__(**kwargs)

    def _reset(self) -> None:
        self._state = _HEADER if self._primed else _OUT
        self._hdr = ""
        self._hdr_prefix = 0 if self._primed else len(ASSISTANT)
        self._call_id = ""
        self._call_name = ""

    # Each step returns the next position, or ``-1 - r`` to end the run with ``r`` (the end of
    # the buffer, or where a possible marker starts and is held).

    def _marker(self, m: str, offset: int, out: list[Event]) -> None:
        if m == ASSISTANT:
            self._state = _HEADER
            self._hdr = m
            self._hdr_prefix = len(m)
        else:
            self._hold_stop(m, offset, _STOP)

    @step(_HEADER)
    def _run_header(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """The metadata line, up to its newline."""
        i, m = _MARKERS.find(buf, pos, final)
        j = buf.find("\n", pos, i)
        went = self._header_to("assistant header", _OUT, self._open_body, buf, pos, (i, m), j, out)
        if went is not None:
            return went
        if self._hdr:
            out.append(Malformed("assistant header without a newline", self._hdr))
        self._hdr = ""
        self._state = _OUT
        return i

    @step(_CALL)
    def _run_call(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """A call's body, held up to the next role token (or the end of the stream)."""
        what = f"tool call {self._call_id} ({self._call_name}): body"
        i, m = self._held_until(_MARKERS, what, "", buf, pos, out, final)
        if m is None:
            return i
        self._end_call(out)
        return i

    def _open_body(self, out: list[Event]) -> None:
        raw, self._hdr = self._hdr, ""
        name = raw[self._hdr_prefix :].strip()
        if not name:
            out.append(Text("", raw))
            self._state = _OUT
            return
        self._call_id = self._next_id()
        self._call_name = name
        out.append(ToolStart(self._call_id, name, raw))
        self._state = _CALL

    def _end_call(self, out: list[Event]) -> None:
        self._state = _OUT
        if self._body_skip_end("", out):
            return
        body = self._body_take()
        cid, name = self._call_id, self._call_name
        args = parse_call(name, body)
        if args is None:
            what = "fenced code block" if name == "interpreter" else "fenced tool_call(...)"
            out.append(Malformed(f"tool call {cid} ({name}): body is not a {what}", body))
        else:
            out.append(ToolArgs(cid, args, body))
            out.append(ToolEnd(cid, name, args, ""))

    def _finish_dialect(self, state: int, out: list[Event]) -> None:
        if state == _HEADER:
            if self._hdr:
                out.append(Malformed("assistant header without a newline", self._hdr))
        elif state == _CALL:
            self._end_call(out)
        elif state == _STOP:
            self._stop_ended(out)
