"""The dialect record: a model family's in-band wire format, as data."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any, Literal

__all__ = ["Dialect", "TurnGrammar"]


@dataclass(frozen=True, slots=True)
class TurnGrammar:
    """How a dialect writes a whole conversation, for the audit of raw transcripts.

    ``turns``: ``(pattern, role)`` of each turn opening, a regular expression; ``role`` ``None``
    takes the role from the pattern's ``(?P<role>...)`` group. ``ends``: spellings that end a
    turn (stripped with the blanks around them). ``spans``: ``(opening, closer)`` of host text
    inside the assistant's turn (tool results). ``bos``: spellings that start a new transcript.
    ``end_before_tool``: the assistant's turn must end with one of ``ends`` before a result.
    ``result_bodies``: a user turn whose body starts with one of these is a tool result.
    ``results``: the host's wrapping of a tool result, patterns matching the whole segment whose
    ``body`` group is the tool's own text (a result that matches none is judged whole).
    ``quotes``: the format's own string delimiters inside a result (read as ``"``).
    ``marks``: spellings whose presence in a transcript's head picks this dialect over another
    whose turns open it too (Qwen3-Coder's ``<function=`` over ChatML), when ``guard audit``
    sniffs a file's dialect.
    """

    turns: tuple[tuple[str, str | None], ...]
    ends: tuple[str, ...] = ()
    spans: tuple[tuple[str, str], ...] = ()
    bos: tuple[str, ...] = ()
    end_before_tool: bool = True
    result_bodies: tuple[str, ...] = ()
    results: tuple[str, ...] = ()
    quotes: tuple[str, ...] = ()
    marks: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.turns:
            raise ValueError("a turn grammar needs at least one turn opening")


@dataclass(frozen=True, slots=True)
class Dialect:
    """A model family's in-band wire format, as data.

    Escaping, the control-token signal and the forgery check all read this record, so adding a
    dialect is adding data (plus a scanner). Conventions for the pattern fields (regex sources in
    ``regex`` module syntax): a bar that belongs to the spelling is written ``\\|`` (ASCII) or
    ``｜`` (U+FF5C) and never appears inside a character class, because the escaper derives its
    own patterns by placing optional backslash runs before every such bar.

    Attributes:
        name: canonical lower-case name (``harmony``, ``chatglm3``, ...).
        reserved: every exact control spelling of the family. Untrusted text must never carry
            one of these to the model unescaped.
        aliases: other names accepted by :func:`guard.get_dialect`.
        reserved_patterns: families of reserved spellings matched by pattern (Harmony's
            ``<|reserved_N|>`` and header forms, Llama's ``<|reserved_special_token_N|>``).
        output_patterns: shapes judged as reserved spellings in model output but never escaped
            in untrusted input: the special-token shape (``<|NAME|>``) of families the record
            does not list, which a stack serving their next generation under this dialect leaks,
            while a user's text quoting another family's tokens reaches the model untouched.
        escape_patterns: token-shaped spellings that are escaped in untrusted text for safety
            but are not known control tokens, so detection does not treat them as such.
        call_open / call_close: spellings that open and close a tool call in model output.
            A dialect with openings and no closings (Mistral) writes open-ended calls: each runs
            to the next opening, a stop, a result opening or the end of the output (where the
            server consumed the end-of-sequence token).
        call_args: spellings that end a call's name and start its arguments in a named body,
            ``NAME<call_args>{...}`` (Mistral's ``get_weather[ARGS]{"city": "Paris"}``).
        call_id: spellings that start a call id between a named body's name and its arguments
            (Mistral v11's ``NAME[CALL_ID]abc123XYZ[ARGS]{...}``).
        unshared: reserved spellings the union ``all`` does not judge in output (it still
            escapes them in input): everyday wrappers an application may ask any model to
            write (Hunyuan's ``<answer>``), a leak only from the family whose parser should
            have stripped them. Each is also in ``reserved``.
        result_open: spellings only the host may write (a tool result opening); in model
            output they mean a forged tool result.
        result_open_patterns: the same, as patterns (Harmony: ``<|start|>`` with an author
            other than ``assistant``).
        thinking: ``(open, close)`` pairs of reasoning markers.
        stop: generation stop spellings; one at the very end of output is the model stopping.
        family: a short human description with the models it covers.
        sources: where the facts came from.
        models: model-name keys that speak this dialect, as in
            :data:`guard.dialects.MODEL_DIALECTS` (a substring of the lower-cased model name,
            or a glob with ``*``, ``?`` or ``[``). Read when the record is registered with
            :func:`guard.dialects.register`; the built-in records keep theirs in that table.
        call_body: how a call is written between ``call_open[k]`` and ``call_close[k]``, for the
            generic scanner that serves a registered dialect without a scanner of its own:
            ``"json"`` is one JSON object ``{"name": ..., "arguments": ...}`` (arguments an
            object, or a JSON string holding one; an ``"id"`` string may ride along), a JSON
            list of such objects, or, where ``call_args`` is set, a named body
            ``NAME<call_args>{...}``; ``"pythonic"`` a Python list of calls with literal
            keyword arguments, ``[f(a=1), g(b="x")]``.
        transcript: how a whole conversation is written (turn openings, ends, tool-result
            wrapping), read by ``guard audit --format raw``; ``None``: raw transcripts of the
            dialect cannot be audited.
    """

    name: str
    reserved: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    reserved_patterns: tuple[str, ...] = ()
    output_patterns: tuple[str, ...] = ()
    escape_patterns: tuple[str, ...] = ()
    call_open: tuple[str, ...] = ()
    call_close: tuple[str, ...] = ()
    result_open: tuple[str, ...] = ()
    result_open_patterns: tuple[str, ...] = ()
    thinking: tuple[tuple[str, str], ...] = ()
    stop: tuple[str, ...] = ()
    family: str = ""
    sources: tuple[str, ...] = field(default=(), compare=False)
    models: tuple[str, ...] = ()
    call_body: Literal["json", "pythonic"] = "json"
    call_args: tuple[str, ...] = ()
    call_id: tuple[str, ...] = ()
    unshared: tuple[str, ...] = ()
    transcript: TurnGrammar | None = None
    #: the hash of the compared fields, computed once: a record keys the gate's caches, which
    #: hash it several times per scanned text (not pickled: hashes differ between processes)
    _hash: int = field(init=False, repr=False, compare=False, default=0)

    def __hash__(self) -> int:
        return self._hash

    def __getstate__(self) -> list[Any]:
        return [getattr(self, f.name) for f in fields(self) if f.init]

    def __setstate__(self, state: list[Any]) -> None:
        for f, value in zip([f for f in fields(self) if f.init], state, strict=True):
            object.__setattr__(self, f.name, value)
        self._set_hash()

    def _set_hash(self) -> None:
        compared = tuple(getattr(self, f.name) for f in fields(self) if f.compare)
        object.__setattr__(self, "_hash", hash(compared))

    def __post_init__(self) -> None:
        self._set_hash()
        if not self.name or self.name != self.name.lower():
            raise ValueError(f"dialect name must be non-empty lower case, got {self.name!r}")
        for spelling in self.reserved:
            if not spelling:
                raise ValueError(f"dialect {self.name!r}: empty reserved spelling")
            if "\\" in spelling:
                raise ValueError(
                    f"dialect {self.name!r}: reserved spelling {spelling!r} contains a backslash,"
                    " which the escaping scheme reserves for itself"
                )
        for spelling in self.unshared:
            if spelling not in self.reserved:
                raise ValueError(
                    f"dialect {self.name!r}: unshared spelling {spelling!r} must also be reserved"
                )
            if re.escape(spelling[:1]) != spelling[:1] or "|" in spelling or "\uff5c" in spelling:
                # the union escapes it through a pattern, which must open with a plain
                # character and hold no bar
                raise ValueError(
                    f"dialect {self.name!r}: unshared spelling {spelling!r} must open with a"
                    " plain character (a letter, a digit or '<') and hold no bar"
                )
        markers = (*self.call_open, *self.call_close, *self.call_args, *self.call_id)
        for spelling in (*markers, *self.result_open, *self.stop):
            if not spelling:
                raise ValueError(f"dialect {self.name!r}: empty marker spelling")
        for key in self.models:
            if not isinstance(key, str) or not key.strip():
                raise ValueError(f"dialect {self.name!r}: empty model-name key {key!r}")
        if self.call_body not in ("json", "pythonic"):
            raise ValueError(
                f"dialect {self.name!r}: call_body must be 'json' or 'pythonic',"
                f" got {self.call_body!r}"
            )
