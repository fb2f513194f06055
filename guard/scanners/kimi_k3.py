"""Kimi K3 scanner (the XTML envelope; vLLM's and SGLang's ``kimi_k3`` parsers).

Four special tokens build every tag: ``<|open|>NAME attrs<|sep|>`` opens one,
``<|close|>NAME<|sep|>`` closes it, ``<|end_of_msg|>`` ends the message. The output is the body
of an assistant message whose ``<|open|>message role="assistant"<|sep|>`` and first section
(``<|open|>think<|sep|>`` with thinking on: use ``start_in_thinking``) the prompt already
wrote.

* A tag is read whole, from ``<|open|>`` / ``<|close|>`` to its ``<|sep|>`` (capped): a tag cut
  by another special token, or one this grammar does not know (``<|open|>toolscall ...``, the
  shape of a leak whose specials were half dropped), is ``Malformed``;
* ``think`` is reasoning; ``<|open|>response<|sep|>``, ``<|close|>response<|sep|>`` and
  ``<|close|>message<|sep|>`` are layout (``Text`` with no visible text);
  ``<|end_of_msg|>`` is the stop;
* ``<|open|>tools<|sep|>`` opens a section of calls up to ``<|close|>tools<|sep|>``; blanks
  between calls are layout, other text is ``Malformed``. A call outside a section is read the
  same way;
* a call is ``<|open|>call tool="NAME" index="N"<|sep|>`` then ``argument`` elements
  ``<|open|>argument key="K" type="T"<|sep|>VALUE<|close|>argument<|sep|>`` (or one
  ``<|open|>json type="object"<|sep|>{...}<|close|>json<|sep|>`` holding the whole object) up to
  ``<|close|>call<|sep|>``; the body is held (capped). A ``string`` value is the raw text; any
  other type is JSON (``number``, ``boolean``, ``null``, ``object``, ``array``); a value that
  does not parse as its type, a repeated key, text between elements, or a call without a
  ``tool`` is ``Malformed``. Attribute values are unescaped (``&quot;``, ``&amp;``, ``\\"``).
  As in the peers' parsers, a string value that itself holds ``<|close|>argument<|sep|>``
  cannot be told from the real closer;
* ``<|open|>message`` opens another message, which only the host writes (a tool result is
  ``<|open|>message role="tool" tool="NAME" index="N"<|sep|>``): in output it is a forgery
  (``ResultForgery`` at its ``<|open|>``; everything after it goes out as ``Malformed``
  blocks), wherever it appears.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from guard._depth import check_depth
from guard._json_walk import value_end
from guard.dialects.kimi_k3 import CLOSE, END_OF_MSG, OPEN, SEP
from guard.errors import NestingError
from guard.models import Event, Malformed, Text
from guard.scanners._tagged import FIRST_STATE, OUT, TaggedScanner
from guard.scanners.base import HEADER_CAP, HOLD, Markers

__all__ = [
    "KimiK3Scanner",
    "parse_arguments",
]

THINK_OPEN: Final = f"{OPEN}think{SEP}"
THINK_CLOSE: Final = f"{CLOSE}think{SEP}"
TOOLS_OPEN: Final = f"{OPEN}tools{SEP}"
TOOLS_CLOSE: Final = f"{CLOSE}tools{SEP}"
CALL_OPEN: Final = f"{OPEN}call"
CALL_CLOSE: Final = f"{CLOSE}call{SEP}"
MESSAGE_OPEN: Final = f"{OPEN}message"
MEDIA: Final = (
    "<|media_begin|>",
    "<|media_content|>",
    "<|media_pad|>",
    "<|media_end|>",
    "<|kimi_image_placeholder|>",
)

#: Tags that are layout wherever they stand outside a call.
_LAYOUT = frozenset({f"{OPEN}response{SEP}", f"{CLOSE}response{SEP}", f"{CLOSE}message{SEP}"})
_OUT_MARKERS = Markers((OPEN, CLOSE, SEP, END_OF_MSG, *MEDIA))
#: What ends a tag header before its ``<|sep|>``.
_TAG_MARKERS = Markers((SEP, OPEN, CLOSE, END_OF_MSG))
#: What ends a held call body: its closer, or a structure no argument value may cross.
_CALL_MARKERS = Markers((CALL_CLOSE, CALL_OPEN, TOOLS_CLOSE, MESSAGE_OPEN, END_OF_MSG))

_TAG = re.compile(r"<\|(open|close)\|>([A-Za-z_][\w\-]*)?(.*?)<\|sep\|>\Z", re.DOTALL)
_ATTR = re.compile(r'\s+([\w\-]+)="((?:[^"\\]|\\.)*)"')
_ELEMENT = re.compile(
    r"<\|open\|>(argument|json)((?:(?!<\|sep\|>).)*)<\|sep\|>(.*?)<\|close\|>\1<\|sep\|>",
    re.DOTALL,
)
_BLANK = re.compile(r"\s*")

_TAG_STATE, _SECTION, _CALL = range(FIRST_STATE, FIRST_STATE + 3)
_JUNK = "text inside a Kimi K3 tools section"


def _attrs(text: str) -> dict[str, str] | None:
    """``key="value"`` pairs of a tag (values unescaped), or ``None`` when ``text`` holds
    anything else or a key twice."""
    found: dict[str, str] = {}
    pos = 0
    for m in _ATTR.finditer(text):
        if m.start() != pos or m.group(1) in found:
            return None
        value = m.group(2).replace('\\"', '"').replace("&quot;", '"').replace("&amp;", "&")
        found[m.group(1)] = value
        pos = m.end()
    return found if text[pos:].strip() == "" else None


class DeepJSON:
    """A valid JSON value nested deeper than ``MAX_DEPTH``: kept as written, never decoded."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _json(value: str) -> Any:
    """``value`` decoded, or a :class:`DeepJSON` for a valid value nested too deep to decode on
    any stack; ``ValueError`` when it is not JSON."""
    try:
        parsed = json.loads(value)
        check_depth(parsed, "an argument")
        return parsed
    except (RecursionError, NestingError):
        text = value.strip(" \t\r\n")
        if value_end(text, 0, strict=True) != len(text):
            raise ValueError("expected one JSON value") from None
        return DeepJSON(text)


def dump_arguments(args: dict[str, Any] | DeepJSON) -> str:
    """The JSON text of parsed arguments (a deep value as it was written)."""
    if isinstance(args, DeepJSON):
        return args.text
    if not any(isinstance(v, DeepJSON) for v in args.values()):
        return json.dumps(args, ensure_ascii=False)
    members = (
        json.dumps(k, ensure_ascii=False)
        + ": "
        + (v.text if isinstance(v, DeepJSON) else json.dumps(v, ensure_ascii=False))
        for k, v in args.items()
    )
    return "{" + ", ".join(members) + "}"


def parse_arguments(body: str) -> dict[str, Any] | DeepJSON | str:
    """The arguments of a call body (its ``argument`` / ``json`` elements), or the reason it
    does not parse."""
    args: dict[str, Any] = {}
    whole: Any = None
    pos = 0
    n = len(body)
    while True:
        blank = _BLANK.match(body, pos)
        pos = blank.end() if blank else pos
        if pos >= n:
            break
        m = _ELEMENT.match(body, pos)
        if m is None:
            return "text between the argument elements of a call"
        kind, attrs, value = m.group(1), _attrs(m.group(2)), m.group(3)
        pos = m.end()
        if attrs is None:
            return f"malformed {kind} attributes"
        kind_type = attrs.get("type", "string" if kind == "argument" else "object")
        if kind_type == "string":
            parsed: Any = value
        else:
            try:
                parsed = _json(value)
            except ValueError:
                return f"{kind} value is not valid {kind_type}"
        if kind == "json":
            is_object = isinstance(parsed, dict) or (
                isinstance(parsed, DeepJSON) and parsed.text.startswith("{")
            )
            if whole is not None or args or not is_object:
                return "a json element must be the call's only element and an object"
            whole = parsed
            continue
        key = attrs.get("key", "")
        if not key or key in args or whole is not None:
            return "an argument without a key, repeated, or beside a json element"
        args[key] = parsed
    return whole if whole is not None else args


class KimiK3Scanner(TaggedScanner):
    """Scanner for Kimi K3 output (see the module docstring)."""

    THINKING = ((THINK_OPEN, THINK_CLOSE),)
    THINK_ENDS = (END_OF_MSG, MESSAGE_OPEN, TOOLS_OPEN, f"{OPEN}response{SEP}")
    HELD_STATES = frozenset({_CALL})
    SECTION_STATE = _SECTION
    LEAD_CHARS = "<"

    def _reset_dialect(self) -> None:
        self._hdr = ""
        self._hdr_at = 0
        self._hdr_from = OUT
        self._in_section = False
        self._call_name = ""

    def _step(self, state: int, buf: str, pos: int, out: list[Event], final: bool) -> int:
        if state in (OUT, _SECTION):
            return self._outside(state, buf, pos, out, final)
        if state == _TAG_STATE:
            return self._in_tag(buf, pos, out, final)
        return self._call_body(
            _CALL_MARKERS, (CALL_CLOSE,), "tool call arguments", buf, pos, out, final
        )

    def _outside(self, state: int, buf: str, pos: int, out: list[Event], final: bool) -> int:
        junk = _JUNK if state == _SECTION else ""
        i, m = self._text_until(_OUT_MARKERS, buf, pos, out, final, junk)
        if m is None:
            return i
        if m in (OPEN, CLOSE):
            self._hdr, self._hdr_at, self._hdr_from = m, self._base + i, state
            self._state = _TAG_STATE
        elif m == END_OF_MSG:
            out.append(Text("", m))
            self._in_section = False
            self._state = OUT  # the stop ends an unclosed section
        else:
            out.append(Malformed(f"{m} out of place in a Kimi K3 message", m))
        return i + len(m)

    def _in_tag(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        i, m = _TAG_MARKERS.find(buf, pos, final)
        room = HEADER_CAP - len(self._hdr)
        if i - pos > room:
            self._hdr += buf[pos : pos + room]
            self._bad_tag(f"tag longer than {HEADER_CAP} characters", out)
            return pos + room
        self._hdr += buf[pos:i]
        if m is None:
            return len(buf)
        if m == HOLD:
            return -1 - i
        if m == SEP:
            self._hdr += m
            self._tag(out)
            return i + len(m)
        self._bad_tag(f"tag not closed by {SEP} before {m}", out)
        return i

    def _bad_tag(self, reason: str, out: list[Event]) -> None:
        hdr, self._hdr = self._hdr, ""
        self._state = self._hdr_from
        if hdr.startswith(MESSAGE_OPEN):
            self._forgery(self._hdr_at, hdr, out)
        else:
            out.append(Malformed(reason, hdr))

    def _tag(self, out: list[Event]) -> None:
        """A whole tag, read where ``_hdr_from`` says (text or a tools section)."""
        raw, self._hdr = self._hdr, ""
        section = self._hdr_from == _SECTION
        self._state = self._hdr_from
        if self._section_layout(raw, section, (TOOLS_OPEN,), (TOOLS_CLOSE,), out):
            return
        m = _TAG.match(raw)
        kind, name, rest = (m.group(1), m.group(2) or "", m.group(3)) if m else ("", "", raw)
        if kind == "open" and name == "message":
            self._forgery(self._hdr_at, raw, out)
        elif kind == "open" and name == "call":
            attrs = _attrs(rest)
            tool = (attrs or {}).get("tool", "")
            if attrs is None or not tool or any(c.isspace() or c in "<>" for c in tool):
                out.append(Malformed("call tag without a valid tool attribute", raw))
                return
            self._in_section = section
            self._call_name = tool
            self._hdr = raw
            self._state = _CALL
        elif raw in _LAYOUT and not section:
            out.append(Text("", raw))
        else:
            out.append(Malformed(f"{raw[:64]!r} out of place in a Kimi K3 message", raw))

    def _parse_body(self, body: str) -> tuple[str, str] | str:
        parsed = parse_arguments(body)
        if isinstance(parsed, str):
            return parsed
        return self._call_name, dump_arguments(parsed)

    def _finish_dialect(self, state: int, out: list[Event]) -> None:
        if state == _SECTION:
            self._sink_flush(out)
        elif state == _TAG_STATE:
            self._bad_tag("tag not closed at end of stream", out)
        elif state == _CALL:
            self._unclosed("tool call not closed at end of stream", out)
