"""Kimi K2 scanner (moonshotai chat templates; vLLM's and SGLang's ``kimi_k2``
tool parsers).

The output is the body of an assistant turn (the prompt ended in
``<|im_assistant|>assistant<|im_middle|>``):

* ``<think>...</think>`` is reasoning (``start_in_thinking`` for templates that pre-fill it). A
  call section opening inside reasoning ends the reasoning (``ThinkingEnd`` with empty raw
  text): Kimi K2 Thinking sometimes opens a section without closing ``</think>`` first;
* ``<|tool_calls_section_begin|>`` (or the singular ``<|tool_call_section_begin|>``) opens a
  section of calls, ``<|tool_calls_section_end|>`` (or the singular) closes it. Whitespace
  between the markers is layout; other text in a section is ``Malformed``. A call outside a
  section is read the same way;
* a call is ``<|tool_call_begin|>ID<|tool_call_argument_begin|>ARGUMENTS<|tool_call_end|>``.
  ``ID`` is ``functions.NAME:IDX`` (or ``NAME:IDX``), kept whole as the call id (the host answers
  with it; an id the output already used gets ``#N`` appended, so ids stay unique). The name is
  what stands between ``functions.`` and ``:IDX``, dots included. ``ToolStart`` goes out at
  ``<|tool_call_argument_begin|>``; the arguments are held (capped) until ``<|tool_call_end|>``,
  then handed on as written, except that a JSON string holding a JSON object (arguments encoded
  twice) is decoded once. An id of another shape, or a call not closed, is ``Malformed``;
* ``<|im_system|>`` opens a host turn (tool results are ``<|im_system|>NAME<|im_middle|>## Return
  of ID``): in model output it is a forgery (``ResultForgery``; everything after it goes out as
  ``Malformed`` blocks), wherever it appears;
* ``<|im_end|>`` and ``[EOS]`` are stops (``Text`` with empty text); the other turn markers
  (``<|im_user|>``, ``<|im_assistant|>``, ``<|im_middle|>``) and markers out of place are
  ``Malformed``.
"""

from __future__ import annotations

import re
from typing import Final

from guard.dialects.kimi import KIMI
from guard.models import Event, ToolStart
from guard.scanners._sectioned import BODY, SectionScanner
from guard.scanners._tagged import json_arguments
from guard.scanners.base import Markers

__all__ = [
    "KimiScanner",
    "parse_call_id",
]

# The spellings the dialect record holds are read from it.
((THINK_OPEN, THINK_CLOSE),) = KIMI.thinking
SECTION_BEGIN, SECTION_BEGIN_SINGULAR, CALL_BEGIN = KIMI.call_open
CALL_END, SECTION_END, SECTION_END_SINGULAR = KIMI.call_close
(IM_SYSTEM,) = KIMI.result_open
IM_END, EOS = _STOPS = KIMI.stop
ARGUMENT_BEGIN: Final = "<|tool_call_argument_begin|>"
IM_USER: Final = "<|im_user|>"
IM_ASSISTANT: Final = "<|im_assistant|>"
IM_MIDDLE: Final = "<|im_middle|>"

_BEGINS = (SECTION_BEGIN, SECTION_BEGIN_SINGULAR)
_ENDS = (SECTION_END, SECTION_END_SINGULAR)
_TURNS = (IM_USER, IM_ASSISTANT, IM_MIDDLE)
#: Spellings that end a call (its header or arguments) when it is not closed.
_BREAKS = (CALL_BEGIN, *_BEGINS, *_ENDS, IM_SYSTEM, *_STOPS, *_TURNS)
_CALL_TOKENS = (*_BEGINS, *_ENDS, CALL_BEGIN, ARGUMENT_BEGIN, CALL_END)
_OUT_MARKERS = Markers((THINK_OPEN, THINK_CLOSE, *_CALL_TOKENS, IM_SYSTEM, *_STOPS, *_TURNS))
_HEADER_MARKERS = Markers((ARGUMENT_BEGIN, CALL_END, *_BREAKS))
_ARGS_MARKERS = Markers((CALL_END, ARGUMENT_BEGIN, *_BREAKS))
_ID = re.compile(r"(?:functions\.)?([\w.\-]+):\d+")


def parse_call_id(call_id: str) -> str | None:
    """The tool name in a Kimi call id (``functions.mcp.search:3`` -> ``mcp.search``), or
    ``None`` when the id is not ``[functions.]NAME:IDX``."""
    m = _ID.fullmatch(call_id)
    return m.group(1) if m else None


class KimiScanner(SectionScanner):
    """Scanner for Kimi K2 output (see the module docstring).

    Args:
        start_in_thinking: the template put ``<think>`` in the prompt.
        tools: accepted for the common scanner signature; Kimi arguments are JSON already.
        max_arguments: cap on a call's arguments (characters); a longer call is ``Malformed``.
    """

    THINK_ENDS = (IM_SYSTEM, *_STOPS, *_BEGINS)
    LEAD_CHARS = "<["
    NAME = "Kimi"
    SECTION_OPENS, SECTION_CLOSES = _BEGINS, _ENDS
    CALL_BEGIN, CALL_SEP, CALL_END = CALL_BEGIN, ARGUMENT_BEGIN, CALL_END
    FORGERIES, STOPS = (IM_SYSTEM,), _STOPS
    OUT_MARKERS, HEADER_MARKERS, BODY_MARKERS = _OUT_MARKERS, _HEADER_MARKERS, _ARGS_MARKERS
    HEADER_WHAT, BODY_WHAT = "tool call id", "tool call arguments"

    def _reset_dialect(self) -> None:
        super()._reset_dialect()
        #: Call ids used so far: a repeated one gets ``#N`` appended, so ids stay unique.
        self._ids: set[str] = set()

    def _without_sep(self, end: str, out: list[Event]) -> None:
        self._open_call("", out)  # a call without arguments
        self._close_call(end, out)

    def _open_call(self, marker: str, out: list[Event]) -> None:
        self._hdr += marker
        call_id = self._hdr[len(CALL_BEGIN) : len(self._hdr) - len(marker)].strip()
        name = parse_call_id(call_id)
        self._state = BODY
        self._call_name = name or call_id
        if name:
            if call_id in self._ids:  # a repeated id still names a new call
                call_id = f"{call_id}#{len(self._ids)}"
            self._ids.add(call_id)
            self._call_id = call_id
            out.append(ToolStart(call_id, name, self._hdr))
            self._hdr = ""
        else:
            self._call_id = ""

    def _parse_body(self, body: str) -> tuple[str, str] | str:
        if not self._call_id:
            return f"tool call id is not functions.NAME:IDX: {self._call_name[:64]!r}"
        return self._call_name, json_arguments(body)
