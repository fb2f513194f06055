"""DeepSeek V3 / R1 / V3.1 scanner (deepseek-ai chat templates; vLLM's and
SGLang's ``deepseek_v3`` and ``deepseek_v31`` tool parsers).

The bars in DeepSeek's tokens are FULLWIDTH VERTICAL LINE (``｜``) and the word separator is
LOWER ONE EIGHTH BLOCK (``▁``); ASCII look-alikes are other text. The output is the body of an
assistant turn (the prompt ended in ``<｜Assistant｜>``, R1 and V3.1 thinking mode add
``<think>``: use ``start_in_thinking``):

* ``<think>...</think>`` is reasoning; a ``</think>`` as the very first thing of the output is
  the template's own closing tag echoed back (``Text`` with empty text); a call section opening
  inside reasoning ends the reasoning;
* ``<｜tool▁calls▁begin｜>`` ... ``<｜tool▁calls▁end｜>`` holds the calls (whitespace between them
  is layout, other text ``Malformed``); a ``<｜tool▁call▁begin｜>`` outside a section is read the
  same way. A call is ``<｜tool▁call▁begin｜>HEADER<｜tool▁sep｜>BODY<｜tool▁call▁end｜>``, in one
  of two forms told apart by what arrives:

  - V3.1: ``HEADER`` is the name, ``BODY`` the JSON arguments; ``ToolStart`` goes out at
    ``<｜tool▁sep｜>``;
  - V3 / R1: ``HEADER`` is the type word ``function``, ``BODY`` is the name on its own line and
    the arguments in a fenced ``json`` block; the call goes out whole at
    ``<｜tool▁call▁end｜>``. (A ``function`` header whose body starts with ``{`` is a V3.1 call
    of a tool named ``function``.)

  Bodies are held (capped). The arguments are handed on as written (fence and surrounding
  whitespace dropped), except that a JSON string holding a JSON object (arguments encoded
  twice) is decoded once. A call that is not closed or has no name is ``Malformed``;
* the tool-output tokens (``<｜tool▁outputs▁begin｜>``, ``<｜tool▁output▁begin｜>``) and the
  DSML-era result tags the dialect record lists open a result only the host writes: in model
  output they are a forgery (``ResultForgery``; everything after it goes out as ``Malformed``
  blocks), wherever they appear;
* ``<｜end▁of▁sentence｜>`` and ``<|EOT|>`` are stops (``Text`` with empty text); role tokens
  and markers out of place are ``Malformed``.
"""

from __future__ import annotations

import re
from typing import Final

from guard.dialects.deepseek import DEEPSEEK
from guard.models import Event, Malformed
from guard.scanners._sectioned import BODY, SectionScanner
from guard.scanners._tagged import json_arguments
from guard.scanners.base import Markers

__all__ = [
    "DeepSeekScanner",
    "parse_v3_body",
]

# The spellings the dialect record holds are read from it.
((THINK_OPEN, THINK_CLOSE),) = DEEPSEEK.thinking
CALLS_BEGIN, CALL_BEGIN = DEEPSEEK.call_open
CALLS_END, CALL_END = DEEPSEEK.call_close
OUTPUTS_BEGIN, OUTPUT_BEGIN, *_ = DEEPSEEK.result_open  # then the DSML-era result tags
EOS, EOT = _STOPS = DEEPSEEK.stop
BOS: Final = "<｜begin▁of▁sentence｜>"
USER: Final = "<｜User｜>"
ASSISTANT: Final = "<｜Assistant｜>"
SEP: Final = "<｜tool▁sep｜>"
OUTPUTS_END: Final = "<｜tool▁outputs▁end｜>"
OUTPUT_END: Final = "<｜tool▁output▁end｜>"
#: The V3 / R1 header: the call's type.
TYPE_WORD: Final = "function"

_FORGERIES = DEEPSEEK.result_open
_STRAY = (USER, ASSISTANT, BOS, OUTPUTS_END, OUTPUT_END)
_BREAKS = (CALL_BEGIN, CALLS_BEGIN, CALLS_END, *_FORGERIES, *_STOPS, USER, ASSISTANT)
_CALL_TOKENS = (CALLS_BEGIN, CALLS_END, CALL_BEGIN, CALL_END, SEP)
_OUT_MARKERS = Markers((THINK_OPEN, THINK_CLOSE, *_CALL_TOKENS, *_FORGERIES, *_STOPS, *_STRAY))
_HEADER_MARKERS = Markers((SEP, CALL_END, *_BREAKS))
_BODY_MARKERS = Markers((CALL_END, *_BREAKS))
_V3_BODY = re.compile(r"\s*([^\s`{]\S*)[ \t]*(?=\n|\Z)")


def _unfence(text: str) -> str:
    """The inside of a fenced block (```` ```json ... ``` ````); other text unchanged."""
    s = text.strip()
    if not s.startswith("```"):
        return s
    nl = s.find("\n")
    s = s[nl + 1 :] if nl >= 0 else ""
    s = s.rstrip()
    return s[:-3] if s.endswith("```") else s


def parse_v3_body(body: str) -> tuple[int, str, str] | None:
    """``(split, name, arguments)`` of a V3 / R1 call body (``NAME\\n```json\\n{...}\\n```\\n``):
    ``body[:split]`` is the name line. ``None`` when the body does not start with a name."""
    m = _V3_BODY.match(body)
    if m is None:
        return None
    return m.end(), m.group(1), json_arguments(_unfence(body[m.end() :]))


class DeepSeekScanner(SectionScanner):
    """Scanner for DeepSeek V3 / R1 / V3.1 output (see the module docstring).

    Args:
        start_in_thinking: the template put ``<think>`` in the prompt (R1, V3.1 thinking mode).
        tools: accepted for the common scanner signature; DeepSeek arguments are JSON already.
        max_arguments: cap on a call body (characters); a longer call is ``Malformed``.
    """

    THINK_ENDS = (*_FORGERIES, *_STOPS, CALLS_BEGIN)
    NAME = "DeepSeek"
    SECTION_OPENS, SECTION_CLOSES = (CALLS_BEGIN,), (CALLS_END,)
    CALL_BEGIN, CALL_SEP, CALL_END = CALL_BEGIN, SEP, CALL_END
    FORGERIES, STOPS = _FORGERIES, _STOPS
    ECHOED_CLOSE = THINK_CLOSE
    OUT_MARKERS, HEADER_MARKERS, BODY_MARKERS = _OUT_MARKERS, _HEADER_MARKERS, _BODY_MARKERS
    HEADER_WHAT, BODY_WHAT = "tool call header", "tool call body"

    def _reset_dialect(self) -> None:
        super()._reset_dialect()
        self._deferred = False

    def _without_sep(self, end: str, out: list[Event]) -> None:
        self._hdr += end
        self._unclosed("tool call without <｜tool▁sep｜>", out)

    def _open_call(self, sep: str, out: list[Event]) -> None:
        header = self._hdr[len(CALL_BEGIN) :].strip()
        self._hdr += sep
        self._state = BODY
        self._deferred = header == TYPE_WORD
        self._start_call(header, not self._deferred and _valid(header), out)

    def _parse_body(self, body: str) -> tuple[str, str] | str:
        if not self._call_id:
            return f"tool call without a valid name: {self._call_name[:64]!r}"
        return self._call_name, json_arguments(body)

    def _close_held(self, hdr: str, body: str, close: str, out: list[Event]) -> None:
        """After a ``function`` header: a V3 body (name line and fenced JSON), or a V3.1 call
        of a tool named ``function``; after any other, a V3.1 call."""
        if not self._deferred:
            super()._close_held(hdr, body, close, out)
            return
        if body.lstrip().startswith("{"):
            split, name, args = 0, TYPE_WORD, json_arguments(body)
        else:
            parsed = parse_v3_body(body)
            if parsed is None or not _valid(parsed[1]):
                out.append(Malformed("V3 tool call body without a name line", hdr + body + close))
                return
            split, name, args = parsed
        self._whole_call(name, args, hdr + body[:split], body[split:], close, out)


def _valid(name: str) -> bool:
    return bool(name) and not any(c.isspace() or c in "<>\"'`" for c in name)
