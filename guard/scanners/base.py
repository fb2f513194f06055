"""Machinery shared by the dialect scanners: marker search with partial-suffix hold, the
forgery sink, capped held text, and safe parsers for call bodies.

Every scanner built on :class:`ScannerBase` keeps one short string between calls (``_tail``:
the longest proper prefix of a marker that the input ends with) plus whatever structure it is
holding on purpose (a header, a call body), each capped. ``feed`` joins the tail and the new
chunk and hands the result to the dialect's ``_run`` state machine, which consumes it from left
to right and returns how far it got; the rest becomes the next tail. Nothing is ever scanned
twice except the tail, so total work is linear in the input.

The laws the scanners keep (tests name them): L1 the raw text of all events concatenates to the
input; L2 the event sequence does not depend on how the input is split into chunks, once
adjacent deltas are merged; L3 model output never raises; L4 hold-back and memory are bounded;
L5 a result-open spelling yields ``ResultForgery`` at its absolute offset.

L2 is why several decisions wait for content rather than for the end of a chunk: an event that
is not a mergeable delta (``ToolStart``, ``ResultForgery``, ``Malformed``, ...) must start and
end at positions fixed by the text alone. Text after a forgery, for instance, goes out as
``Malformed`` blocks of exactly :data:`SINK_BLOCK` characters plus a remainder at flush, never
one event per chunk.

This module imports only :mod:`guard.models` and the standard library (docs/architecture.md,
"Layering").
"""

from __future__ import annotations

import ast
import json
import json.decoder
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from guard._depth import check_depth
from guard._json_walk import value_end
from guard.models import Event, Malformed, lazy_re
from guard.scanners._pysource import MAX_CALL_CODE, code_size

__all__ = [
    "HEADER_CAP",
    "HOLD",
    "MAX_ARGUMENTS",
    "SINK_BLOCK",
    "Markers",
    "ScannerBase",
    "ToolTypes",
    "json_members",
    "json_value",
    "kwargs_call",
    "tool_arguments",
    "typed_value",
]

#: Longest header (or other structure held before its meaning is known) a scanner keeps.
HEADER_CAP: Final = 4096
#: Size of the ``Malformed`` blocks that carry text after a forgery or past a cap.
SINK_BLOCK: Final = 4096
#: Default cap on the argument text a scanner accumulates for one call (characters).
MAX_ARGUMENTS: Final = 1 << 20

#: Returned by :meth:`Markers.find` as the marker when the text from the index on is a proper
#: prefix of a marker: the scanner must hold it back until more input arrives.
HOLD: Final = ""


class Markers:
    """A set of marker spellings and a fast search for them.

    Spellings of the token shape ``<|name|>`` are found with one ``str.find`` for ``|>`` and a
    set lookup; others (``<think>``, ``</s>``, MiniMax's ``]~b]``) with one regex match (longest
    spelling first) at each position holding a first character of some spelling. A proper
    prefix of any spelling at the end of the text is reported as :data:`HOLD`.
    """

    __slots__ = (
        "_bar",
        "_bar_longest",
        "_lead",
        "_longest",
        "_other",
        "_prefixes",
        "spellings",
    )

    def __init__(self, spellings: Iterable[str]) -> None:
        self.spellings: tuple[str, ...] = tuple(dict.fromkeys(spellings))
        if not self.spellings or any(not s for s in self.spellings):
            raise ValueError("markers must be non-empty spellings")
        self._bar = frozenset(
            s
            for s in self.spellings
            if s.startswith("<|")
            and s.endswith("|>")
            and len(s) > 4
            and "|" not in s[2:-2]
            and "<" not in s[1:]
        )
        self._bar_longest = max((len(s) for s in self._bar), default=0)
        other = sorted((s for s in self.spellings if s not in self._bar), key=len)[::-1]
        #: The other spellings as one alternation, longest first (one C-level match per
        #: candidate position), or ``None`` when there are none.
        self._other = lazy_re.compile("|".join(map(re.escape, other))) if other else None
        self._longest = max(len(s) for s in self.spellings)
        self._prefixes = frozenset(s[:k] for s in self.spellings for k in range(1, len(s)))
        firsts = sorted({s[0] for s in self.spellings})
        #: ``None`` when every spelling starts with ``<`` (one ``str.find`` per candidate),
        #: else a search for any first character.
        lead = "[" + "".join(map(re.escape, firsts)) + "]"
        self._lead = None if firsts == ["<"] else lazy_re.compile(lead)

    @property
    def longest(self) -> int:
        return self._longest

    def find(self, buf: str, pos: int, final: bool) -> tuple[int, str | None]:
        """First marker at or after ``pos``.

        Returns ``(i, spelling)`` for a marker at ``i``; ``(i, HOLD)`` when ``buf[i:]`` is a
        proper prefix of a marker and more input may follow (``final`` false); ``(len(buf),
        None)`` when there is none.
        """
        n = len(buf)
        find = buf.find
        lead = self._lead
        bar = self._bar
        while True:
            if lead is None:
                i = find("<", pos)
                if i < 0:
                    return n, None
            else:
                found = lead.search(buf, pos)
                if found is None:
                    return n, None
                i = found.start()
            if bar and buf.startswith("<|", i):
                k = find("|>", i + 2, i + self._bar_longest)
                if k >= 0:
                    tok = buf[i : k + 2]
                    if tok in bar:
                        return i, tok
            if self._other is not None:
                m = self._other.match(buf, i)
                if m is not None:
                    return i, m.group()
            if not final and n - i < self._longest and buf[i:] in self._prefixes:
                return i, HOLD
            pos = i + 1


class ScannerBase(ABC):
    """Chunk handling shared by the scanners: tail, absolute offset, sink, call ids.

    Subclasses implement ``_run(buf, pos, out, final) -> int`` (consume ``buf`` from ``pos``,
    append events to ``out``, return the index up to which input is consumed) and ``_finish(out)``
    (close whatever is open at end of stream).
    """

    def __init__(
        self,
        max_arguments: int = MAX_ARGUMENTS,
        tools: Iterable[Mapping[str, Any]] | None = None,
    ) -> None:
        self._max_arguments = max_arguments
        #: Parameter schemas of the tools on offer, for formats that send values as strings.
        self._types = ToolTypes(tools)
        self._tail = ""
        #: Absolute offset (in the scanner's whole input) of the first character of ``_tail``.
        self._base = 0
        self._calls = 0
        #: Events returned so far (lets a scanner tell where in its event stream something sits).
        self._emitted = 0
        self._sink: list[str] = []
        self._sink_len = 0
        self._sink_reason = ""
        self._body: list[str] = []
        self._body_len = 0
        self._skipping = False

    # -- Scanner protocol ------------------------------------------------------------------

    def feed(self, text: str) -> list[Event]:
        """Scan the next chunk of model output; return the events it completes."""
        if not text:
            return []
        buf = self._tail + text if self._tail else text
        out: list[Event] = []
        pos = self._run(buf, 0, out, False)
        self._tail = buf[pos:] if pos < len(buf) else ""
        self._base += pos
        self._emitted += len(out)
        return out

    def feed_body(self, text: str) -> str | None:
        """:meth:`feed` without an event for the commonest chunk: when ``text`` is wholly body
        text (``"text"``) or reasoning (``"thinking"``), exactly as a ``Text`` or
        ``ThinkingDelta`` event would carry it, take it and say which; else ``None``, having
        taken nothing (call :meth:`feed`). Scanners without such a path always say ``None``."""
        return None

    def flush(self) -> list[Event]:
        """End of stream: nothing is held back any more; open structures are closed."""
        buf, self._tail = self._tail, ""
        out: list[Event] = []
        if buf:
            pos = self._run(buf, 0, out, True)
            self._base += pos
        self._finish(out)
        self._sink_flush(out)
        self._emitted += len(out)
        return out

    @property
    def held(self) -> int:
        """Characters of input received but not yet reported in any event (tail, held header or
        body, pending sink block). Bounded by the caps (law L4)."""
        return len(self._tail) + self._sink_len + self._body_len + self._held_extra()

    # -- hooks -----------------------------------------------------------------------------

    @abstractmethod
    def _run(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Consume ``buf`` from ``pos``; return how far it got (each dialect's state machine)."""

    @abstractmethod
    def _finish(self, out: list[Event]) -> None:
        """Emit what is still held at the end of the stream."""

    def _held_extra(self) -> int:
        return 0

    # -- helpers ---------------------------------------------------------------------------

    def _next_id(self) -> str:
        """Deterministic call ids (``call_0``, ``call_1``, ...): the wire formats have none."""
        cid = f"call_{self._calls}"
        self._calls += 1
        return cid

    def _sink_start(self, reason: str) -> None:
        self._sink_reason = reason

    def _sink_add(self, text: str, out: list[Event]) -> None:
        """Queue text for ``Malformed`` blocks of exactly :data:`SINK_BLOCK` characters."""
        if not text:
            return
        self._sink.append(text)
        self._sink_len += len(text)
        if self._sink_len >= SINK_BLOCK:
            joined = "".join(self._sink)
            cut = len(joined) - len(joined) % SINK_BLOCK
            for k in range(0, cut, SINK_BLOCK):
                out.append(Malformed(self._sink_reason, joined[k : k + SINK_BLOCK]))
            rest = joined[cut:]
            self._sink = [rest] if rest else []
            self._sink_len = len(rest)

    def _sink_flush(self, out: list[Event]) -> None:
        if self._sink_len:
            out.append(Malformed(self._sink_reason, "".join(self._sink)))
        self._sink = []
        self._sink_len = 0

    # A held call body, capped at ``max_arguments``: past the cap the part held so far goes out
    # as one ``Malformed`` (with ``prefix``, the call's opening raw not yet reported), and the
    # rest of the body up to its end as ``Malformed`` blocks.

    def _body_add(self, piece: str, out: list[Event], prefix: str, reason: str) -> None:
        if self._skipping:
            self._sink_add(piece, out)
            return
        room = self._max_arguments - self._body_len
        if len(piece) <= room:
            self._body.append(piece)
            self._body_len += len(piece)
            return
        self._body.append(piece[:room])
        out.append(Malformed(reason, prefix + "".join(self._body)))
        self._body = []
        self._body_len = 0
        self._skipping = True
        self._sink_start(reason)
        self._sink_add(piece[room:], out)

    def _body_take(self) -> str:
        body = "".join(self._body)
        self._body = []
        self._body_len = 0
        return body

    def _body_skip_end(self, raw: str, out: list[Event]) -> bool:
        """End a body that overflowed (``raw`` joins its sink). False if it did not."""
        if not self._skipping:
            return False
        self._sink_add(raw, out)
        self._sink_flush(out)
        self._skipping = False
        return True


# ---------------------------------------------------------------------------------------------
# Safe parsing of call bodies

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
#: ``scanstring(text, index_after_quote, strict) -> (value, end)``; present in CPython's json
#: but not in the type stubs.
scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


class _Deep:
    """The decoded value of a member nested too deep to decode (see :func:`json_members`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DEEP"


#: stands for a member value nested deeper than the interpreter's stack can decode
DEEP: Any = _Deep()


def json_members(text: str) -> dict[str, tuple[Any, int, int]] | None:
    """Parse ``text`` as exactly one JSON object (whitespace around allowed).

    Returns each top-level key with its decoded value and the ``[start, end)`` span of the
    value's raw text, so a caller can hand on a member's JSON exactly as the model wrote it.
    A valid value nested too deep to decode is measured all the same and stands as
    :data:`DEEP` (an array or object: never a string). ``None`` when the text is not one JSON
    object. Never raises.
    """
    try:
        return _json_members(text)
    except (ValueError, MemoryError):
        return None


def _skip_ws(text: str, i: int) -> int:
    m = _WS.match(text, i)
    return m.end() if m else i


def _json_members(text: str) -> dict[str, tuple[Any, int, int]] | None:
    ws = _skip_ws
    i = ws(text, 0)
    if not text.startswith("{", i):
        return None
    members: dict[str, tuple[Any, int, int]] = {}
    i = ws(text, i + 1)
    if text.startswith("}", i):
        i += 1
    else:
        while True:
            if not text.startswith('"', i):
                return None
            key, i = scanstring(text, i + 1, True)
            i = ws(text, i)
            if not text.startswith(":", i):
                return None
            i = ws(text, i + 1)
            try:
                value, end = _DECODER.raw_decode(text, i)
            except RecursionError:
                # nested deeper than the stack allows: measured, not decoded (its raw text is
                # what a caller hands on; as a name or a flag it is no string)
                value, end = DEEP, value_end(text, i, strict=True)
            members[key] = (value, i, end)
            i = ws(text, end)
            if text.startswith(",", i):
                i = ws(text, i + 1)
                continue
            if text.startswith("}", i):
                i += 1
                break
            return None
    if ws(text, i) != len(text):
        return None
    return members


def tool_arguments(
    text: str, members: dict[str, tuple[Any, int, int]], keys: tuple[str, ...]
) -> str | None:
    """The arguments of a JSON call object as JSON text, taken from the raw where possible.

    The first of ``keys`` present wins. An object value is handed on as written; a string
    value that itself holds a JSON object (a double-encoded call) is handed on decoded; any
    other value is handed on as written. No key at all means no arguments: ``"{}"``.
    """
    for key in keys:
        if key in members:
            value, start, end = members[key]
            if isinstance(value, str):
                inner = json_members(value)
                if inner is not None:
                    return value
            return text[start:end]
    return "{}"


def kwargs_call(
    code: str, *, func: str | None = None, method: str | None = None
) -> tuple[str, str] | None:
    """Parse a call with literal keyword arguments only, safely (``ast``, never ``eval``).

    Accepted shapes: ``func(k=v, ...)`` when ``func`` is given, ``NAME.method(k=v, ...)`` when
    ``method`` is given (the name is then ``NAME``). Each value goes through
    :func:`ast.literal_eval`. Returns ``(name, arguments)`` with the arguments as JSON text of
    the keyword dict, or ``None`` when the code is anything else or holds more than
    :data:`~guard.scanners._pysource.MAX_CALL_CODE` characters of code. Never raises.
    """
    size = code_size(code)
    if size is None or size > MAX_CALL_CODE:  # a syntax tree of ~500 bytes per character
        return None
    try:
        tree = ast.parse(code.strip(), mode="eval")
        call = tree.body
        if not isinstance(call, ast.Call) or call.args:
            return None
        fn = call.func
        if func is not None and isinstance(fn, ast.Name) and fn.id == func:
            name = func
        elif (
            method is not None
            and isinstance(fn, ast.Attribute)
            and fn.attr == method
            and isinstance(fn.value, ast.Name)
        ):
            name = fn.value.id
        else:
            return None
        kwargs: dict[str, Any] = {}
        for kw in call.keywords:
            if kw.arg is None:
                return None
            kwargs[kw.arg] = ast.literal_eval(kw.value)
        return name, json.dumps(kwargs, ensure_ascii=False, allow_nan=False)
    except Exception:  # model output: any failure (syntax, depth, size, types) means "not a call"
        return None


# ---------------------------------------------------------------------------------------------
# Typing parameter values that a format sends as strings


def _json_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _loads(text: str) -> Any:
    """Strict JSON: no ``NaN`` / ``Infinity``, nested at most ``MAX_DEPTH`` levels (deeper
    text stays text on every stack). Raises ``ValueError``."""
    try:
        value = json.loads(text, parse_constant=_json_constant)
    except RecursionError:
        raise ValueError("JSON nested too deep to decode") from None
    check_depth(value, "a parameter value")  # NestingError is a ValueError
    return value


def json_value(text: str) -> Any:
    """``text`` read as one JSON value, or ``text`` itself when it is not JSON (or nested more
    than ``MAX_DEPTH`` levels). Never raises."""
    try:
        return _loads(text)
    except ValueError:
        return text


def _schema_types(schema: Mapping[str, Any]) -> list[str]:
    """The JSON types a parameter schema allows: ``type`` (a name or a list), else the types of
    the ``anyOf`` / ``oneOf`` branches. Empty when the schema does not say."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    found: list[str] = []
    for branches in (schema.get("anyOf"), schema.get("oneOf")):
        if isinstance(branches, list):
            for branch in branches:
                if isinstance(branch, Mapping):
                    found += _schema_types(branch)
    return found


def _as_type(kind: str, text: str) -> tuple[bool, Any]:
    """``(True, value)`` when ``text`` reads as a value of JSON type ``kind``."""
    s = text.strip()
    if kind == "boolean":
        low = s.lower()
        return (True, low == "true") if low in ("true", "false") else (False, None)
    if kind == "null":
        return (True, None) if s == "null" else (False, None)
    if kind not in ("integer", "number", "object", "array"):
        return False, None
    try:
        value = _loads(s)
    except ValueError:
        return False, None
    if kind == "integer":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "number":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok and math.isfinite(value)
    elif kind == "object":
        ok = isinstance(value, dict)
    else:
        ok = isinstance(value, list)
    return (True, value) if ok else (False, None)


def typed_value(schema: Mapping[str, Any] | None, text: str) -> Any:
    """A parameter value the format sent as text, typed by its JSON schema.

    The text becomes a number, boolean, object or array only where the schema allows that type
    and not ``string``, and only when it reads as one (``"42"`` for an ``integer`` is 42,
    ``"4.5"`` is not an integer); ``null`` becomes ``None`` wherever the schema allows null
    (a nullable string included, as vLLM and SGLang read it). Otherwise the value stays the
    string it was. Never raises.
    """
    if not schema:
        return text
    kinds = _schema_types(schema)
    if "null" in kinds and text.strip() == "null":
        return None
    if not kinds or "string" in kinds:
        return text
    for kind in kinds:
        ok, value = _as_type(kind, text)
        if ok:
            return value
    return text


def _function(tool: Any) -> Mapping[str, Any] | None:
    """The function part of a tool definition: ``{"type": "function", "function": {...}}``
    (Chat Completions) or ``{"type": "function", "name": ..., "parameters": ...}`` (Responses)."""
    if not isinstance(tool, Mapping):
        dump = getattr(tool, "model_dump", None)  # an SDK object
        tool = dump() if callable(dump) else None
        if not isinstance(tool, Mapping):
            return None
    inner = tool.get("function")
    return inner if isinstance(inner, Mapping) else tool


class ToolTypes:
    """Parameter schemas of OpenAI tool definitions, by tool and parameter name, for formats
    that send every value as text (GLM ``<arg_value>``, XML ``<parameter>``, ...).

    ``None`` or an empty list means no schemas: every value stays a string. Definitions that are
    not functions, or that carry no ``properties``, add nothing.

    Raises:
        TypeError: ``tools`` is not an iterable of tool definitions (a string, a mapping).
    """

    __slots__ = ("_params",)

    def __init__(self, tools: Iterable[Mapping[str, Any]] | None = None) -> None:
        if tools is not None and (
            isinstance(tools, str | bytes | Mapping) or not isinstance(tools, Iterable)
        ):
            raise TypeError(
                f"tools must be a list of OpenAI tool definitions, got {type(tools).__name__}"
            )
        self._params: dict[str, dict[str, Mapping[str, Any]]] = {}
        for tool in tools or ():
            fn = _function(tool)
            if fn is None or not isinstance(fn.get("name"), str):
                continue
            parameters = fn.get("parameters")
            props = parameters.get("properties") if isinstance(parameters, Mapping) else None
            if isinstance(props, Mapping):
                self._params[fn["name"]] = {
                    str(k): v for k, v in props.items() if isinstance(v, Mapping)
                }

    def __bool__(self) -> bool:
        return bool(self._params)

    def schema(self, tool: str, key: str) -> Mapping[str, Any] | None:
        """The JSON schema of parameter ``key`` of ``tool``, if the definitions give one."""
        return self._params.get(tool, {}).get(key)

    def value(self, tool: str, key: str, text: str) -> Any:
        """``text`` typed by the schema of ``tool``'s parameter ``key`` (:func:`typed_value`)."""
        return typed_value(self.schema(tool, key), text)

    def arguments(self, tool: str, pairs: Iterable[tuple[str, Any]]) -> str:
        """The JSON text of a call's arguments from ``(key, value)`` pairs: a ``str`` value is
        typed by its schema, any other value is taken as it is (a format that sent it typed).
        A repeated key keeps its last value."""
        obj = {k: self.value(tool, k, v) if isinstance(v, str) else v for k, v in pairs}
        return json.dumps(obj, ensure_ascii=False)
