"""GLM-4.5 / 4.6 / 4.7 scanner (zai-org chat templates; vLLM's
``glm4_moe`` and ``glm47_moe`` tool parsers).

The output is the body of an assistant turn (the prompt ended in ``<|assistant|>``):

* ``<think>...</think>`` is reasoning (``start_in_thinking`` for templates that pre-fill
  ``<think>``);
* ``<tool_call>NAME`` opens a call. The name ends at a newline (GLM-4.5 / 4.6), at ``<arg_key>``
  or at ``</tool_call>`` (GLM-4.7, no newlines); ``ToolStart`` goes out then. The body is held
  (capped) until ``</tool_call>``: ``<arg_key>K</arg_key>`` / ``<arg_value>V</arg_value>`` pairs,
  whitespace between them ignored, none at all for a call without arguments. Values are text,
  kept exactly (whitespace included), typed by the request's tool schemas when given
  (``"42"`` is 42 for an ``integer`` parameter) and strings otherwise; the arguments are the JSON
  text of that object. A body that is anything else, or a call that is not closed, is
  ``Malformed``;
* ``<|observation|>``, ``<|user|>`` and ``<|endoftext|>`` are the model's stops (``Text`` with
  empty text) when only whitespace follows them; they are held until that is known.
  ``<|observation|>`` followed by more output is a forged tool result (``ResultForgery``), as is
  ``<tool_response>`` anywhere, inside reasoning or a call too: everything after it goes out as
  ``Malformed`` blocks. The other two followed by more output are ``Malformed`` and scanning
  goes on;
* other GLM tags out of place (a closing tag without its opening, ``<|assistant|>``) are
  ``Malformed``; the remaining reserved spellings are content, left to the detection signals.
"""

from __future__ import annotations

import re
from typing import Final

from guard.dialects.glm import GLM
from guard.models import Event, Malformed
from guard.scanners._dialect import step
from guard.scanners._tagged import (
    FIRST_STATE,
    OUT,
    TaggedScanner,
)
from guard.scanners.base import Markers

__all__ = [
    "GLMScanner",
    "parse_arguments",
]

# The spellings the dialect record holds are read from it.
((THINK_OPEN, THINK_CLOSE),) = GLM.thinking
(CALL_OPEN,), (CALL_CLOSE,) = GLM.call_open, GLM.call_close
RESPONSE, OBSERVATION = GLM.result_open
EOT, USER, _ = _STOPS = GLM.stop  # the third is <|observation|>
KEY_OPEN: Final = "<arg_key>"
KEY_CLOSE: Final = "</arg_key>"
VALUE_OPEN: Final = "<arg_value>"
VALUE_CLOSE: Final = "</arg_value>"
RESPONSE_CLOSE: Final = "</tool_response>"
SYSTEM: Final = "<|system|>"
ASSISTANT: Final = "<|assistant|>"

_ENDS = (RESPONSE, *_STOPS, SYSTEM, ASSISTANT)
_OUT_MARKERS = Markers(
    (
        THINK_OPEN,
        THINK_CLOSE,
        CALL_OPEN,
        CALL_CLOSE,
        KEY_OPEN,
        KEY_CLOSE,
        VALUE_OPEN,
        VALUE_CLOSE,
        RESPONSE_CLOSE,
        *_ENDS,
    )
)
_NAME_MARKERS = Markers((KEY_OPEN, CALL_CLOSE, CALL_OPEN, *_ENDS))
_BODY_MARKERS = Markers((CALL_CLOSE, CALL_OPEN, *_ENDS))
_PAIR = re.compile(
    re.escape(KEY_OPEN)
    + "(.*?)"
    + re.escape(KEY_CLOSE)
    + r"\s*"
    + re.escape(VALUE_OPEN)
    + "(.*?)"
    + re.escape(VALUE_CLOSE),
    re.DOTALL,
)
_BLANK = re.compile(r"\s*")
_NAME = re.compile(r"[^\s<>\"']+")

_NAME_STATE, _BODY, _STOP = range(FIRST_STATE, FIRST_STATE + 3)


def parse_arguments(body: str) -> list[tuple[str, str]] | None:
    """The ``(key, value)`` pairs of a call body, or ``None`` when the body is not a run of
    ``<arg_key>``/``<arg_value>`` pairs with only whitespace between them. Keys are stripped;
    values are kept exactly."""
    pairs: list[tuple[str, str]] = []
    pos = _BLANK.match(body, 0).end()  # type: ignore[union-attr]
    while pos < len(body):
        m = _PAIR.match(body, pos)
        if m is None:
            return None
        key = m.group(1).strip()
        if not key or KEY_OPEN in m.group(2):
            return None
        pairs.append((key, m.group(2)))
        pos = _BLANK.match(body, m.end()).end()  # type: ignore[union-attr]
    return pairs


class GLMScanner(TaggedScanner):
    """Scanner for GLM-4.5 / 4.6 / 4.7 output (see the module docstring).

    Args:
        start_in_thinking: the template put ``<think>`` in the prompt.
        tools: OpenAI tool definitions; their schemas type the argument values.
        max_arguments: cap on a call body (characters); a longer one is ``Malformed``.
    """

    THINK_ENDS = (RESPONSE, *_STOPS)
    FORGED_STOPS = frozenset({OBSERVATION})
    HELD_STATES = frozenset({_BODY})
    TEXT_MARKERS = _OUT_MARKERS
    STOP_STATE = _STOP

    def _reset_dialect(self) -> None:
        self._hdr = ""
        self._call_id = ""
        self._call_name = ""

    @step(_BODY)
    def _in_body(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        return self._call_body(_BODY_MARKERS, (CALL_CLOSE,), "tool call body", buf, pos, out, final)

    def _marker(self, m: str, offset: int, out: list[Event]) -> None:
        if m == THINK_OPEN:
            self._open_thinking(m, out)
        elif m == CALL_OPEN:
            self._state = _NAME_STATE
            self._hdr = m
        elif m == RESPONSE:
            self._forgery(offset, m, out)
        elif m in _STOPS:
            self._hold_stop(m, offset, _STOP)
        else:
            out.append(Malformed(f"{m} outside its place in a GLM turn", m))

    @step(_NAME_STATE)
    def _in_name(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        i, m = _NAME_MARKERS.find(buf, pos, final)
        j = buf.find("\n", pos, i)
        # Blank lines before the name do not end it.
        while j >= 0 and not (self._hdr[len(CALL_OPEN) :] + buf[pos:j]).strip():
            j = buf.find("\n", j + 1, i)
        went = self._header_to("tool call name", OUT, self._open_call, buf, pos, (i, m), j, out)
        if went is not None:
            return went
        if m in (KEY_OPEN, CALL_CLOSE):
            self._open_call(out)
        else:
            self._unclosed(f"tool call not closed before {m}", out)
        return i

    def _open_call(self, out: list[Event]) -> None:
        """The name is complete: ``ToolStart`` when it is a valid name (else the header stays
        held and the call ends ``Malformed``); the body follows."""
        name = self._hdr[len(CALL_OPEN) :].strip()
        self._state = _BODY
        self._start_call(name, _NAME.fullmatch(name) is not None, out)

    def _parse_body(self, body: str) -> tuple[str, str] | str:
        cid, name = self._call_id, self._call_name
        if not cid:
            return f"tool call without a valid name: {name[:64]!r}"
        pairs = parse_arguments(body)
        if pairs is None:
            return f"tool call {cid} ({name}): body is not <arg_key>/<arg_value> pairs"
        return name, self._types.arguments(name, pairs)

    def _finish_dialect(self, state: int, out: list[Event]) -> None:
        if state in (_NAME_STATE, _BODY):
            self._unclosed("tool call not closed at end of stream", out)
        elif state == _STOP:
            self._stop_ended(out)
