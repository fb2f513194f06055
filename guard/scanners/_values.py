"""The scanners' safe parsers of call bodies (:mod:`guard.scanners.base` re-exports them): JSON
objects read member by member with their offsets, JSON call objects and their arguments as JSON
text, Python-style
keyword calls, a value written between tags, and parameter values a format sends as strings
typed by the tool's JSON schema (:class:`ToolTypes`). Depth and size are capped; model output
never raises out of them."""

from __future__ import annotations

import ast
import json
import json.decoder
import keyword
import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from guard._depth import check_depth
from guard._json_walk import value_end
from guard.scanners._pysource import MAX_CALL_CODE, code_size

__all__ = [
    "ToolTypes",
    "json_call",
    "json_members",
    "json_value",
    "kwargs_call",
    "tag_value",
    "tool_arguments",
    "typed_value",
]


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


def tag_value(raw: str) -> str:
    """A value written between tags (``<parameter=...>``, MiniMax's parameter elements) as
    sent: one leading and one trailing newline (the layout around the text) trimmed."""
    if raw.startswith("\n"):
        raw = raw[1:]
    if raw.endswith("\n"):
        raw = raw[:-1]
    return raw


def parameters_fault(junk: bool, pairs: list[tuple[str, str]]) -> str:
    """What makes the parameter elements of an XML call unusable (text between them, or a
    repeated key); empty when nothing does."""
    if junk:
        return "text between parameters"
    keys = [k for k, _ in pairs]
    return "a repeated parameter" if len(set(keys)) != len(keys) else ""


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


def json_call(
    body: str, keys: tuple[str, ...] = ("arguments", "parameters"), *, need_arguments: bool = False
) -> tuple[str, str] | None:
    """``(name, arguments JSON)`` of a JSON call object ``{"name": ..., KEY: ...}`` (the
    arguments as :func:`tool_arguments` takes them from the first of ``keys`` present), or
    ``None`` when ``body`` is no object with a non-empty string ``name`` (or, with
    ``need_arguments``, has none of ``keys``)."""
    members = json_members(body)
    if members is None or "name" not in members:
        return None
    if need_arguments and not any(k in members for k in keys):
        return None
    name = members["name"][0]
    if not isinstance(name, str) or not name:
        return None
    return name, tool_arguments(body, members, keys) or "{}"


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
    simple = _simple_kwargs_call(code, func, method)
    if simple is not None:
        return simple
    return _ast_kwargs_call(code, func, method)


#: what Python's tokenizer reads as blanks (``\\s`` holds more, which ``ast`` refuses)
_BLANKS = r"[ \t\f\r\n]*"
#: the head of a call ``NAME(`` or ``NAME.NAME(`` (ASCII names: Python folds others by NFKC)
_CALL_HEAD = re.compile(
    _BLANKS + r"([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?\(" + _BLANKS
)
#: one keyword argument whose value is a plain literal: a string without escapes, line breaks,
#: NUL or surrogates, a short integer, True, False or None; then its comma or the closing
#: parenthesis
_PLAIN_KWARG = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*)"
    + _BLANKS
    + "="
    + _BLANKS
    + r"(?:'([^'\\\r\n\x00\ud800-\udfff]*)'|\"([^\"\\\r\n\x00\ud800-\udfff]*)\""
    r"|(-?(?:0|[1-9][0-9]{0,15}))(?![0-9.eEjJ_])|(True|False|None)(?![A-Za-z0-9_]))"
    + _BLANKS
    + r"(?:,"
    + _BLANKS
    + r"|(?=\)))"
)
_CLOSE = re.compile(r"\)" + _BLANKS)
_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None}


def _simple_kwargs_call(code: str, func: str | None, method: str | None) -> tuple[str, str] | None:
    """:func:`kwargs_call` of a call whose keyword values are all plain literals, read with
    regular expressions (a model's usual call, at a fraction of the cost of ``ast``); ``None``
    when the code is anything else, which then goes to ``ast``, whose answer this equals."""
    head = _CALL_HEAD.match(code)
    if head is None:
        return None
    first, second = head.group(1), head.group(2)
    if second is None:
        if func is None or first != func:
            return None
        name = func
    elif method is not None and second == method and not keyword.iskeyword(first):
        name = first
    else:
        return None
    kwargs: dict[str, Any] = {}
    i = head.end()
    while True:
        closed = _CLOSE.fullmatch(code, i)
        if closed is not None:
            return name, json.dumps(kwargs, ensure_ascii=False, allow_nan=False)
        m = _PLAIN_KWARG.match(code, i)
        if m is None:
            return None
        key, single, double, number, constant = m.groups()
        if key in kwargs or keyword.iskeyword(key):
            return None  # ast's error (a repeated or reserved name): it says None too
        if single is not None:
            kwargs[key] = single
        elif double is not None:
            kwargs[key] = double
        elif number is not None:
            kwargs[key] = int(number)
        else:
            kwargs[key] = _CONSTANTS[constant]
        i = m.end()


def _ast_kwargs_call(code: str, func: str | None, method: str | None) -> tuple[str, str] | None:
    """:func:`kwargs_call` by ``ast`` (any literal values)."""
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
