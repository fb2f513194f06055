"""Requests, deny by default: read a request body of a guarded API route and produce the bytes
to send upstream, or refuse it.

Every string of the body is escaped, keys included, at any depth and whatever the ``type`` of
the object holding it: a server may render any field it likes, so the guard does not guess which
ones it will. Only the fields of :data:`VERBATIM_FIELDS` (top-level ``model`` and ``stop``) are
sent as written, since escaping them would change what they mean; they are checked instead, and a
reserved spelling in one refuses the request.

Keys are compared as the laxest real parser compares them (Go's ``encoding/json`` matches keys
case-insensitively and folds ``ſ`` to ``s`` and the Kelvin sign to ``k``): two keys of one object
that fold to the same spelling refuse the request, since parsers disagree on which one wins.

The body is re-serialised exactly: numbers keep the digits they were written with (no limit on
their length), ``NaN`` / ``Infinity`` are refused, and no key is added or dropped.

Before any of this, the body is counted: more containers than ``max_elements`` or deeper nesting
than ``max_depth`` refuses it, at the cost of one regular-expression scan.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from guard._escape import escaper_for
from guard.dialects import ALL, DIALECTS, Dialect, dialect_for_model, get_dialect

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_ELEMENTS",
    "VERBATIM_FIELDS",
    "RequestRefused",
    "SentRequest",
    "fold_key",
    "prepare_request",
    "request_dialect",
]

#: top-level fields sent as written (checked to hold no reserved spelling instead of escaped)
VERBATIM_FIELDS = frozenset({"model", "stop", "stop_sequences"})
DEFAULT_MAX_ELEMENTS = 200_000
DEFAULT_MAX_DEPTH = 64
#: the most choices a request's ``n`` is taken to ask for (OpenAI's own bound)
MAX_CHOICES = 128

# one token per string (skipped whole) or bracket; only brackets are counted
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*+"|[\[\]{}]', re.DOTALL)


class RequestRefused(ValueError):
    """A request body the guard will not forward; ``code`` names the reason for the 400."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class SentRequest:
    """What goes upstream: the body bytes, the parsed request as plain JSON values (numbers as
    floats/ints for readers such as the tool table), and whether anything was escaped."""

    raw: bytes
    body: dict[str, Any]
    escaped: bool
    dialect: Dialect

    @property
    def choices(self) -> int:
        """How many choices the answer holds: the request's ``n`` (any key case, as servers
        read it), at most :data:`MAX_CHOICES`; 1 when absent or not a positive whole number."""
        n = next((v for k, v in self.body.items() if fold_key(k) == "n"), 1)
        if type(n) is float and n.is_integer():
            n = int(n)
        return min(n, MAX_CHOICES) if type(n) is int and n >= 1 else 1

    @property
    def answer_dialect(self) -> str:
        """The dialect its answer is judged for: the spellings the request was escaped for; a
        pinned dialect the model's name adds to is judged as the union of every dialect (a
        superset)."""
        name = self.dialect.name
        return name if name in (ALL, *DIALECTS) else ALL


#: a string as a JSON literal, non-ASCII kept (the C encoder where the build has it)
_quoted: Callable[[str], str] = (
    getattr(json.encoder, "c_encode_basestring", None) or json.encoder.py_encode_basestring
)


class _Number:
    """A JSON number kept as written."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def fold_key(key: str) -> str:
    """A key as case-insensitive parsers compare it (``casefold`` covers ``ſ`` and ``K``)."""
    return key.casefold()


def _count(raw: bytes, max_elements: int, max_depth: int) -> None:
    if raw.count(b"{") + raw.count(b"[") <= max_elements:
        return  # an upper bound; depth is checked while writing
    depth = 0
    elements = 0
    for m in _TOKENS.finditer(raw):
        c = m.group()
        if c in (b"{", b"["):
            depth += 1
            elements += 1
            if depth > max_depth:
                raise RequestRefused(
                    f"request body nests deeper than {max_depth} levels", "nesting_too_deep"
                )
            if elements > max_elements:
                raise RequestRefused(
                    f"request body holds more than {max_elements} objects and arrays",
                    "too_many_elements",
                )
        elif c in (b"}", b"]"):
            depth -= 1


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        folded = fold_key(key)
        if folded in seen:
            raise RequestRefused(
                f"request body repeats the key {key!r} (keys compared case-insensitively)",
                "duplicate_key",
            )
        seen.add(folded)
    return dict(pairs)


def _constant(name: str) -> Any:
    raise RequestRefused(f"request body holds {name}, which is not JSON", "invalid_json")


def _decode(raw: bytes) -> Any:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RequestRefused("request body must be UTF-8 encoded JSON", "invalid_unicode") from None
    try:
        return json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_int=_Number,
            parse_float=_Number,
            parse_constant=_constant,
        )
    except RecursionError:
        raise RequestRefused("request body nests too deeply", "nesting_too_deep") from None
    except RequestRefused:
        raise
    except ValueError:
        raise RequestRefused("request body must be a JSON object", "invalid_json") from None


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class _Writer:
    """Escapes and serialises one parsed body, and builds its plain twin."""

    def __init__(self, dialect: Dialect, max_depth: int) -> None:
        self.escaper = escaper_for(dialect)
        self.max_depth = max_depth
        self.parts: list[str] = []
        self.changed = False

    def text(self, s: str) -> str:
        if _has_surrogate(s):
            raise RequestRefused(
                "request body holds a lone UTF-16 surrogate (\\ud800-\\udfff)", "invalid_unicode"
            )
        out, count = self.escaper.escape(s)
        if count:
            self.changed = True
        return out

    def verbatim(self, name: str, value: Any) -> Any:
        for s in _strings(value):
            if self.escaper.escape(s)[1]:
                raise RequestRefused(
                    f"request field {name!r} holds a reserved spelling; it is sent as written,"
                    " so it must not",
                    "reserved_spelling",
                )
        return self.value(value, escape_strings=False)

    def value(self, v: Any, escape_strings: bool = True, depth: int = 1) -> Any:
        out = self.parts
        if depth > self.max_depth:
            raise RequestRefused(
                f"request body nests deeper than {self.max_depth} levels", "nesting_too_deep"
            )
        if isinstance(v, str):
            s = self.text(v) if escape_strings else v
            if not escape_strings and _has_surrogate(s):
                raise RequestRefused(
                    "request body holds a lone UTF-16 surrogate (\\ud800-\\udfff)",
                    "invalid_unicode",
                )
            out.append(_quoted(s))
            return s
        if isinstance(v, _Number):
            out.append(v.text)
            return _plain_number(v.text)
        if isinstance(v, dict):
            out.append("{")
            plain: dict[str, Any] = {}
            for i, (k, item) in enumerate(v.items()):
                if i:
                    out.append(",")
                key = self.text(k) if escape_strings else k
                out.append(_quoted(key))
                out.append(":")
                plain[key] = self.value(item, escape_strings, depth + 1)
            out.append("}")
            return plain
        if isinstance(v, list):
            out.append("[")
            items: list[Any] = []
            for i, item in enumerate(v):
                if i:
                    out.append(",")
                items.append(self.value(item, escape_strings, depth + 1))
            out.append("]")
            return items
        out.append(json.dumps(v))  # True / False / None
        return v


def _plain_number(text: str) -> int | float:
    if any(c in text for c in ".eE"):
        return float(text)
    if len(text) > 4000:
        return float("inf") if not text.startswith("-") else float("-inf")
    return int(text)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@cache
def _merged(ds: tuple[Dialect, ...]) -> Dialect:
    if len(ds) == 1:
        return ds[0]

    def u(attr: str) -> tuple[Any, ...]:
        return tuple(dict.fromkeys(x for d in ds for x in getattr(d, attr)))

    return Dialect(
        name="+".join(d.name for d in ds),
        reserved=u("reserved"),
        reserved_patterns=u("reserved_patterns"),
        output_patterns=u("output_patterns"),
        escape_patterns=u("escape_patterns"),
        call_open=u("call_open"),
        call_close=u("call_close"),
        result_open=u("result_open"),
        result_open_patterns=u("result_open_patterns"),
        thinking=u("thinking"),
        stop=u("stop"),
        family="union of " + ", ".join(d.name for d in ds),
    )


def _operator_entry(model: str | None, table: Mapping[str, str]) -> str | None:
    name = (model or "").lower()
    for key, dialect in table.items():
        k = key.lower()
        glob = any(c in k for c in "*?[")
        if fnmatch.fnmatchcase(name, k) if glob else k in name:
            return dialect
    return None


def request_dialect(
    model: str | None, pinned: str | None = None, table: Mapping[str, str] | None = None
) -> Dialect:
    """The spellings a body is escaped and judged for: every dialect's, unless the operator
    pinned one (``pinned``, or an entry of the operator's own ``table`` that ``model`` matches);
    the dialect the client's ``model`` names by the built-in table adds its spellings to a pinned
    one, never takes any away."""
    operator = pinned if pinned is not None else _operator_entry(model, table or {})
    if operator is None or get_dialect(operator).name == ALL:
        return get_dialect(ALL)
    names = [get_dialect(operator).name]
    hinted = get_dialect(dialect_for_model(model)).name
    if hinted not in names and hinted != ALL:
        names.append(hinted)
    return _merged(tuple(get_dialect(n) for n in names))


def prepare_request(
    raw: bytes,
    dialect: str | Dialect | Callable[[str | None], Dialect] = ALL,
    *,
    max_elements: int = DEFAULT_MAX_ELEMENTS,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> SentRequest:
    """The body to send for request bytes ``raw``, every string escaped for ``dialect`` but the
    top-level fields of :data:`VERBATIM_FIELDS`.

    Raises:
        RequestRefused: the body is not a JSON object, is too large in elements or depth,
            repeats a key (case-folded), holds a lone surrogate or a non-JSON constant, or a
            verbatim field holds a reserved spelling.
    """
    _count(raw, max_elements, max_depth)
    parsed = _decode(raw)
    if not isinstance(parsed, dict):
        raise RequestRefused("request body must be a JSON object", "invalid_json")
    model = next((v for k, v in parsed.items() if fold_key(k) == "model"), None)
    if callable(dialect):
        chosen = dialect(model if isinstance(model, str) else None)
    else:
        chosen = get_dialect(dialect)
    writer = _Writer(chosen, max_depth)
    writer.parts.append("{")
    plain: dict[str, Any] = {}
    for i, (key, value) in enumerate(parsed.items()):
        if i:
            writer.parts.append(",")
        if fold_key(key) in VERBATIM_FIELDS:
            writer.parts.append(_quoted(key) + ":")
            plain[key] = writer.verbatim(key, value)
            continue
        out_key = writer.text(key)
        writer.parts.append(_quoted(out_key) + ":")
        plain[out_key] = writer.value(value)
    writer.parts.append("}")
    return SentRequest(
        raw="".join(writer.parts).encode("utf-8"),
        body=plain,
        escaped=writer.changed,
        dialect=chosen,
    )
