"""The generic grammar-driven scanner: it serves a dialect added with
:func:`guard.dialects.register` (or the ``guard.dialects`` entry point group) that has no scanner
of its own, reading the grammar from the record alone.

What it reads, from the record's fields:

* ``thinking`` pairs: reasoning sections (``start_in_thinking`` starts inside the first pair). A
  result opening, a stop or a call opening inside reasoning ends it (``ThinkingEnd`` with empty
  raw text) and is read again outside;
* ``call_open[k]`` ... ``call_close[k]`` (paired by position when both lists are as long; else
  any closing marker closes any call): a call whose body is written as ``call_body`` says
  (``"json"``: one object ``{"name": ..., "arguments": ...}``, the arguments an object or a JSON
  string holding one, absent meaning ``{}``, or a JSON list of such objects, or with
  ``call_args`` a named body ``NAME[<call_id>ID]<call_args>{...}``; ``"pythonic"``: a list of
  calls with literal keyword arguments, ``[f(a=1), g(b="x")]``; each call of a list its own
  events; :mod:`._call_bodies`). The body is held (capped at ``max_arguments``); ``ToolStart``,
  ``ToolArgs`` and ``ToolEnd`` go out at the closing marker. A body that does not parse, or a
  call cut by another call, a result opening, a stop or the end of the stream, is
  ``Malformed``;
* with ``call_open`` and no ``call_close``, calls are open-ended (Mistral's end at the
  end-of-sequence token, which servers consume): a call ends, well formed, at the next call
  opening, a stop, a result opening (then read as a forgery) or the end of the stream;
* ``result_open``: only the host writes it, so in model output it is a forgery
  (``ResultForgery`` at its offset; everything after it goes out as ``Malformed`` blocks);
* ``stop``: ``Text`` with empty visible text;
* any other reserved spelling (a closing marker out of place, a turn marker) is ``Malformed``.

Pattern fields (``reserved_patterns``, ``result_open_patterns``) are not read here: escaping and
detection cover them, the scanner only knows literal spellings.
"""

from __future__ import annotations

from functools import cache
from typing import Any, ClassVar

from guard.dialects import Dialect
from guard.models import Event, Malformed, Text
from guard.scanners._call_bodies import (
    Call,
    parse_json_call,
    parse_json_calls,
    parse_named_call,
)
from guard.scanners._tagged import FIRST_STATE, OUT, TaggedScanner
from guard.scanners.base import HOLD, Markers
from guard.scanners.pythonic import parse_calls

__all__ = ["GrammarScanner", "grammar_scanner", "parse_json_call"]

_CALL = FIRST_STATE


class GrammarScanner(TaggedScanner):
    """Scanner for a registered dialect, configured by :func:`grammar_scanner` from its record
    (see the module docstring)."""

    DIALECT: ClassVar[Dialect]
    _out_markers: ClassVar[Markers | None]
    _call_markers: ClassVar[dict[str, Markers]]
    _closes: ClassVar[dict[str, frozenset[str]]]

    def _reset_dialect(self) -> None:
        self._hdr = ""
        self._open = ""

    def _step(self, state: int, buf: str, pos: int, out: list[Event], final: bool) -> int:
        if state == OUT:
            return self._outside(buf, pos, out, final)
        if not self._closes[self._open]:
            return self._open_ended(buf, pos, out, final)
        return self._call_body(
            self._call_markers[self._open],
            self._closes[self._open],
            "tool call arguments",
            buf,
            pos,
            out,
            final,
        )

    def _outside(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        markers = self._out_markers
        i, m = (len(buf), None) if markers is None else markers.find(buf, pos, final)
        if i > pos:
            text = buf[pos:i]
            out.append(Text(text, text))
        if m is None:
            return len(buf)
        if m == HOLD:
            return -1 - i
        d = self.DIALECT
        if m in d.result_open:
            self._forgery(self._base + i, m, out)
        elif m in self._closes:
            self._hdr, self._open = m, m
            self._state = _CALL
        elif m in d.stop:
            out.append(Text("", m))
        elif any(m == o for o, _ in self.THINKING):
            self._open_thinking(m, out)
        else:
            out.append(Malformed(f"{m} out of place in a {d.name} message", m))
        return i + len(m)

    def _open_ended(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """A call with no closing marker: the next call opening, stop or result opening ends
        it, well formed, and is read again outside."""
        i, m = self._body_until(
            self._call_markers[self._open], "tool call arguments", buf, pos, out, final
        )
        if m is not None:
            self._close_call("", out)
        return i

    def _parse_body(self, body: str) -> tuple[str, str] | str:
        return parse_json_call(body)

    def _close_held(self, hdr: str, body: str, close: str, out: list[Event]) -> None:
        """One object is one call (:meth:`_parse_body`); a list body (pythonic, or JSON) and a
        named body give one ``ToolStart`` / ``ToolArgs`` / ``ToolEnd`` per call."""
        d = self.DIALECT
        lead = body.lstrip()[:1]
        calls: list[Call] | Call | str
        if d.call_body == "pythonic":
            calls = parse_calls(body) or "tool call body is not a list of calls"
        elif lead == "[":
            calls = parse_json_calls(body)
        elif d.call_args and lead != "{":
            calls = parse_named_call(body, d.call_args, d.call_id)
        else:
            super()._close_held(hdr, body, close, out)
            return
        if isinstance(calls, str):
            out.append(Malformed(calls, hdr + body + close))
            return
        self._emit_calls(hdr, body, close, [calls] if isinstance(calls, tuple) else calls, out)

    def _emit_calls(
        self, hdr: str, body: str, close: str, calls: list[Call], out: list[Event]
    ) -> None:
        """One ``ToolStart``/``ToolArgs``/``ToolEnd`` per call of a body, their raw texts
        together the body: the opening goes out with the first call, the closing marker with
        the last."""
        cursor = 0
        for index, (name, args, start, end) in enumerate(calls):
            last = index == len(calls) - 1
            nxt = len(body) if last else calls[index + 1][2]
            self._whole_call(
                name,
                args,
                (hdr if index == 0 else "") + body[cursor:start],
                body[start:end],
                body[end:nxt] + (close if last else ""),
                out,
            )
            cursor = nxt

    def _finish_dialect(self, state: int, out: list[Event]) -> None:
        if state != _CALL:
            return
        if self._closes[self._open]:
            self._unclosed("tool call not closed at end of stream", out)
        else:  # open-ended: the end of the output ends the call
            self._close_call("", out)


def _closes(d: Dialect) -> dict[str, frozenset[str]]:
    """Each call opening and the closing markers that end it (none: open-ended calls)."""
    if not d.call_close:
        return {o: frozenset() for o in d.call_open}
    if len(d.call_close) == len(d.call_open):
        return {o: frozenset({c}) for o, c in zip(d.call_open, d.call_close, strict=True)}
    return {o: frozenset(d.call_close) for o in d.call_open}


@cache
def grammar_scanner(dialect: Dialect) -> type[GrammarScanner]:
    """The scanner class for ``dialect``'s record (one class per record)."""
    d = dialect
    closes = _closes(d)
    spellings = tuple(
        dict.fromkeys(
            (
                *d.result_open,
                *d.call_open,
                *d.call_close,
                *d.stop,
                *(s for pair in d.thinking for s in pair),
                *d.reserved,
            )
        )
    )
    breaks = (*d.call_open, *d.result_open, *d.stop)
    no_reasoning = (
        ""
        if d.thinking
        else f"dialect {d.name!r} has no reasoning markers, so its output cannot start inside"
        " reasoning"
    )
    attrs: dict[str, Any] = {
        "__module__": __name__,
        "__doc__": f"Generic grammar scanner for the registered dialect {d.name!r}.",
        "DIALECT": d,
        "THINKING": d.thinking,
        "NO_REASONING": no_reasoning,
        "THINK_ENDS": tuple(dict.fromkeys(breaks)),
        "LEAD_CHARS": "".join(sorted({s[0] for s in spellings})),
        "HELD_STATES": frozenset({_CALL}),
        "_out_markers": Markers(spellings) if spellings else None,
        "_call_markers": {o: Markers((*c, *breaks)) for o, c in closes.items()},
        "_closes": closes,
    }
    name = "".join(part.capitalize() for part in d.name.replace("-", "_").split("_"))
    return type(f"{name}GrammarScanner", (GrammarScanner,), attrs)
