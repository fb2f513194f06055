"""The invoke-tag call shape shared by MiniMax M2 and DeepSeek V3.2 (DSML): a wrapper holding
``<invoke name="NAME">`` elements, each holding ``<parameter name="KEY" ...>VALUE</parameter>``
elements. A subclass gives the spellings (class attributes) and how a value is read
(:meth:`InvokeScanner._param_value`).

Inside the wrapper, whitespace is layout and other text ``Malformed``. An invoke's opening tag is
held (capped) until its ``>``; ``ToolStart`` goes out then when the tag names the tool. Its body
is held (capped) until the closing tag and must be a run of parameter elements with only
whitespace between them; the arguments are the JSON text of the parameters, typed by the
request's tool schemas where a value arrives as text. An invoke that is not closed, or whose
body is anything else, is ``Malformed``.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from guard.models import Event, Malformed, Text
from guard.scanners._dialect import step
from guard.scanners._tagged import FIRST_STATE, OUT, TaggedScanner
from guard.scanners.base import HOLD, Markers

__all__ = ["NEXT_STATE", "InvokeScanner", "parse_attributes"]

_WRAP, _TAG, _BODY = range(FIRST_STATE, FIRST_STATE + 3)
#: The first state number a subclass of :class:`InvokeScanner` may use.
NEXT_STATE = FIRST_STATE + 3

_ATTR = re.compile(r"""([\w:.\-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
_JUNK = "text inside a tool-call block"


def parse_attributes(tag: str) -> dict[str, str]:
    """The ``key="value"`` attributes of a tag (double, single or no quotes)."""
    return {
        m.group(1): next(g for g in m.groups()[1:] if g is not None) for m in _ATTR.finditer(tag)
    }


def _alternation(spellings: tuple[str, ...]) -> str:
    return "(?:" + "|".join(re.escape(s) for s in sorted(spellings, key=len, reverse=True)) + ")"


class InvokeScanner(TaggedScanner):
    """Scanner for the invoke-tag shape (see the module docstring).

    Class attributes: ``WRAPPER_OPENS`` / ``WRAPPER_CLOSES``, ``INVOKE_OPENS`` (the tag
    without ``>``) / ``INVOKE_CLOSES``, ``PARAM_OPENS`` / ``PARAM_CLOSES``, ``FORGERIES`` (a
    result opening: ``ResultForgery``), ``STOPS`` (``Text`` with empty text), ``STRAY``
    (``Malformed`` wherever they appear outside a call), ``EXTRA`` (spellings outside a call
    that :meth:`_extra` handles) and ``ECHOED_CLOSE`` (a closing think tag as the very first
    thing of the output is the template's own, echoed back).
    """

    WRAPPER_OPENS: ClassVar[tuple[str, ...]]
    WRAPPER_CLOSES: ClassVar[tuple[str, ...]]
    INVOKE_OPENS: ClassVar[tuple[str, ...]]
    INVOKE_CLOSES: ClassVar[tuple[str, ...]]
    PARAM_OPENS: ClassVar[tuple[str, ...]]
    PARAM_CLOSES: ClassVar[tuple[str, ...]]
    FORGERIES: ClassVar[tuple[str, ...]]
    STOPS: ClassVar[tuple[str, ...]]
    STRAY: ClassVar[tuple[str, ...]] = ()
    EXTRA: ClassVar[tuple[str, ...]] = ()
    #: A subclass's own states that hold a body.
    HELD_EXTRA: ClassVar[tuple[int, ...]] = ()
    ECHOED_CLOSE: ClassVar[bool] = False
    #: The wrapper block is the call section (every call stands in one: :meth:`_back`).
    SECTION_STATE = _WRAP

    _wrap_markers: ClassVar[Markers]
    _tag_markers: ClassVar[Markers]
    _body_markers: ClassVar[Markers]
    _param: ClassVar[re.Pattern[str]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        cls.THINK_ENDS = (*cls.FORGERIES, *cls.STOPS)
        lead_spellings = (*cls.WRAPPER_OPENS, *cls.WRAPPER_CLOSES, *cls.INVOKE_OPENS)
        lead_spellings += (*cls.INVOKE_CLOSES, *cls.PARAM_OPENS, *cls.PARAM_CLOSES)
        lead_spellings += (*cls.THINK_ENDS, *cls.STRAY, *cls.EXTRA, *sum(cls.THINKING, ()))
        cls.LEAD_CHARS = "".join(sorted({m[0] for m in lead_spellings}))
        opens = tuple(a for a, _ in cls.THINKING)
        closes = tuple(b for _, b in cls.THINKING)
        ends = (*cls.FORGERIES, *cls.STOPS)
        wrappers = (*cls.WRAPPER_OPENS, *cls.WRAPPER_CLOSES)
        # before the base's steps are made: the text state reads text with these
        cls.TEXT_MARKERS = Markers((*opens, *closes, *wrappers, *ends, *cls.STRAY, *cls.EXTRA))
        super().__init_subclass__(**kwargs)
        elements = (*cls.INVOKE_OPENS, *cls.INVOKE_CLOSES, *cls.PARAM_OPENS, *cls.PARAM_CLOSES)
        cls._wrap_markers = Markers((*elements, *wrappers, *ends, *cls.STRAY, *opens))
        breaks = (*cls.INVOKE_OPENS, *cls.WRAPPER_CLOSES, *cls.WRAPPER_OPENS, *ends, *cls.STRAY)
        cls._tag_markers = Markers((*breaks, *cls.INVOKE_CLOSES))
        cls._body_markers = Markers((*cls.INVOKE_CLOSES, *breaks))
        cls.HELD_STATES = frozenset({_BODY, *cls.HELD_EXTRA})
        cls._param = re.compile(
            r"\s*"
            + _alternation(cls.PARAM_OPENS)
            + r"(\s[^>]*)?>(.*?)"
            + _alternation(cls.PARAM_CLOSES)
            + r"\s*",
            re.DOTALL,
        )

    # -- hooks ------------------------------------------------------------------------------

    def _param_value(self, tool: str, key: str, attrs: dict[str, str], text: str) -> Any:
        """A parameter's value from its element text: a ``str`` is then typed by the tool
        schemas, anything else is taken as it is."""
        return text

    def _extra(self, marker: str, offset: int, out: list[Event]) -> None:
        """An :attr:`EXTRA` spelling at absolute ``offset`` outside a call (its end is
        consumed)."""
        out.append(Malformed(f"{marker} out of place", marker))

    def _finish_extra(self, state: int, out: list[Event]) -> None:
        """Close a subclass state at the end of the stream."""

    def _reset_extra(self) -> None:
        """Reset a subclass's own state."""

    # -- states -----------------------------------------------------------------------------

    def _reset_dialect(self) -> None:
        self._hdr = ""
        self._call_id = ""
        self._call_name = ""
        self._reset_extra()

    @step(_BODY)
    def _in_body(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        markers, closes = self._body_markers, self.INVOKE_CLOSES
        return self._call_body(markers, closes, "invoke body", buf, pos, out, final, "invoke")

    def _marker(self, m: str, offset: int, out: list[Event]) -> None:
        if self._section_layout(m, False, self.WRAPPER_OPENS, (), out):
            return
        if m in self.FORGERIES:
            self._forgery(offset, m, out)
        elif m in self.STOPS:
            out.append(Text("", m))
        elif m in self.EXTRA:
            self._extra(m, offset, out)
        elif self.ECHOED_CLOSE and m in dict(self.THINKING).values() and offset == 0:
            out.append(Text("", m))
        else:
            out.append(Malformed(f"{m} outside its place", m))

    @step(_WRAP)
    def _in_wrapper(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        i, m = self._wrap_markers.find(buf, pos, final)
        if i > pos:
            self._gap(buf[pos:i], _JUNK, out)
        if m is None:
            return len(buf)
        if m == HOLD:
            return -1 - i
        end = i + len(m)
        if m in self.INVOKE_OPENS:
            if end == len(buf) and not final:
                return -1 - i  # whether a tag or a longer word follows is not known yet
            if end == len(buf) or buf[end].isspace() or buf[end] == ">":
                self._sink_flush(out)
                self._state = _TAG
                self._hdr = m
            else:
                self._gap(m, _JUNK, out)
            return end
        self._sink_flush(out)
        if self._section_layout(m, True, (), self.WRAPPER_CLOSES, out):
            return end
        if m in self.FORGERIES:
            self._forgery(self._base + i, m, out)
        elif m in self.STOPS:
            self._state = OUT  # an unclosed block ends at a stop, read again outside
            return i
        else:
            out.append(Malformed(f"{m} out of place in a tool-call block", m))
        return end

    @step(_TAG)
    def _in_tag(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        i, m = self._tag_markers.find(buf, pos, final)
        j = buf.find(">", pos, i)
        went = self._header_to("invoke tag", _WRAP, self._open_call, buf, pos, (i, m), j, out)
        if went is not None:
            return went
        self._unclosed(f"invoke tag not closed before {m}", out)
        return i

    def _open_call(self, out: list[Event]) -> None:
        opener = next(s for s in self.INVOKE_OPENS if self._hdr.startswith(s))
        name = parse_attributes(self._hdr[len(opener) : -1]).get("name", "").strip()
        self._state = _BODY
        self._start_call(name, bool(name) and not any(c.isspace() or c in "<>" for c in name), out)

    def parse_parameters(self, body: str) -> list[tuple[str, str, dict[str, str]]] | None:
        """The ``(key, value text, attributes)`` of each parameter element of an invoke body, or
        ``None`` when the body is anything else."""
        params: list[tuple[str, str, dict[str, str]]] = []
        pos = 0
        blank = body.strip() == ""
        while not blank and pos < len(body):
            m = self._param.match(body, pos)
            if m is None or m.end() == pos:
                return None
            attrs = parse_attributes(m.group(1) or "")
            key = attrs.get("name", "").strip()
            if not key:
                return None
            params.append((key, m.group(2), attrs))
            pos = m.end()
        return params

    def _back(self) -> int:
        return _WRAP

    def _parse_body(self, body: str) -> tuple[str, str] | str:
        cid, name = self._call_id, self._call_name
        if not cid:
            return f"invoke without a valid name: {name[:64]!r}"
        params = self.parse_parameters(body)
        if params is None:
            return f"tool call {cid} ({name}): body is not parameter elements"
        pairs = [(k, self._param_value(name, k, attrs, v)) for k, v, attrs in params]
        return name, self._types.arguments(name, pairs)

    def _finish_dialect(self, state: int, out: list[Event]) -> None:
        if state == _WRAP:
            self._sink_flush(out)
        elif state in (_TAG, _BODY):
            self._unclosed("invoke not closed at end of stream", out)
        elif state != OUT:
            self._finish_extra(state, out)
