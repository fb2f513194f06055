"""A TOML value checked against a record dataclass's own field types, strictly, and built.

The dialect files are read through the record types themselves (a schema of its own would
drift from the record), and the handful of shapes those fields use is all this reads: ``str``,
``bool``, ``int``, ``tuple[X, ...]``, ``tuple[X, Y]``, ``Literal[...]``, ``X | None`` and a
nested dataclass. Strict: a number is no string, a boolean no number. A stdlib walk rather than
msgspec, which an escape-only process would otherwise load for 17 small files (~11 ms).
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any, Literal

__all__ = ["CheckError", "build"]


class CheckError(Exception):
    """A value that does not fit: ``where`` is the dotted path to it (``""`` for the record)."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where + ': ' if where else ''}{message}")
        self.where = where
        self.message = message


#: how a value's type is named in a message (msgspec's words, which the messages kept)
_NAMES = {str: "str", int: "int", bool: "bool", float: "float", list: "array", dict: "object"}


#: a checker: the value and where it is (for the message) to the built value
_Check = Callable[[Any, str], Any]


def build(value: Any, kind: Any, where: str = "", *, besides: tuple[str, ...] = ()) -> Any:
    """``value`` (as TOML gives it: lists, dicts, scalars) as ``kind``: a tuple for an array,
    the dataclass for a table (whose keys ``besides`` are left out, the caller's own). Raises
    :class:`CheckError`, naming the field, what was expected and what came; a ``ValueError`` of
    a record's own checks becomes one too."""
    return (_record(kind, besides) if besides else _checker(kind))(value, where)


@cache
def _checker(kind: Any) -> _Check:
    """The checker of ``kind``, made once per type (a file holds thousands of strings)."""
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return _record(kind)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is tuple:
        return _array(args[0]) if args[1:] == (Ellipsis,) else _pair(args)
    if origin is Literal:
        return _choice(args)
    if origin in (types.UnionType, typing.Union):  # the fields' unions are all `X | None`
        (option,) = [_checker(k) for k in args if k is not type(None)]
        return lambda value, where: None if value is None else option(value, where)
    return _scalar(kind)


def _scalar(kind: type) -> _Check:
    def check(value: Any, where: str) -> Any:
        if type(value) is not kind:  # strict: a boolean is no number, a number no string
            raise CheckError(where, f"expected {_name(kind)}, got {_got(value)}")
        return value

    return check


def _name(kind: type) -> str:
    return f"`{_NAMES.get(kind, kind.__name__)}`"


def _got(value: Any) -> str:
    return _name(type(value))


def _list(value: Any, where: str) -> list[Any]:
    if type(value) is not list:
        raise CheckError(where, f"expected `array`, got {_got(value)}")
    return value


def _array(item: Any) -> _Check:
    """``tuple[item, ...]``; an array of plain scalars is checked in one pass."""
    check = _checker(item)
    plain = item in _NAMES

    def array(value: Any, where: str) -> tuple[Any, ...]:
        value = _list(value, where)
        if plain and all(type(v) is item for v in value):
            return tuple(value)
        return tuple(check(v, f"{where}[{i}]") for i, v in enumerate(value))

    return array


def _pair(kinds: tuple[Any, ...]) -> _Check:
    """``tuple[X, Y]``: an array of exactly that length."""
    checks = [_checker(k) for k in kinds]

    def pair(value: Any, where: str) -> tuple[Any, ...]:
        value = _list(value, where)
        if len(value) != len(checks):
            length = f"`array` of length {len(value)}"
            raise CheckError(where, f"expected `array` of length {len(checks)}, got {length}")
        return tuple(
            c(v, f"{where}[{i}]") for i, (c, v) in enumerate(zip(checks, value, strict=True))
        )

    return pair


def _choice(choices: tuple[Any, ...]) -> _Check:
    """``Literal[...]``: one of the values, of their type."""
    of_type = _scalar(type(choices[0]))
    expected = ", ".join(map(repr, choices))

    def choice(value: Any, where: str) -> Any:
        if value not in choices:
            of_type(value, where)  # a value of another type says so
            raise CheckError(where, f"invalid enum value {value!r}; expected one of {expected}")
        return value

    return choice


def _evaluated(annotations: set[Any], cls: type) -> dict[Any, Any]:
    """Each distinct annotation of ``cls``'s fields evaluated once: the record modules postpone
    them, and ``typing.get_type_hints`` compiles every field's string (some 30 of them)."""
    namespace = vars(sys.modules[cls.__module__])
    return {a: eval(a, namespace) if isinstance(a, str) else a for a in annotations}


@cache
def _record(cls: type, besides: tuple[str, ...] = ()) -> _Check:
    """A dataclass from a table: its init fields by their types; its own checks run."""
    init = [f for f in dataclasses.fields(cls) if f.init]
    kinds = _evaluated({f.type for f in init}, cls)
    checks = {f.name: _checker(kinds[f.type]) for f in init}
    missing = dataclasses.MISSING
    required = [f.name for f in init if f.default is missing and f.default_factory is missing]
    expected = ", ".join(sorted([*checks, *besides]))

    def record(value: Any, where: str) -> Any:
        if type(value) is not dict:
            raise CheckError(where, f"expected `object`, got {_got(value)}")
        at = f"{where}." if where else ""
        for name in required:
            if name not in value:
                raise CheckError(at + name, "missing (required)")
        for key in sorted(value.keys() - checks.keys() - set(besides))[:1]:
            raise CheckError(at + key, f"unknown key {key!r}; expected {expected}")
        args = {k: checks[k](v, at + k) for k, v in value.items() if k not in besides}
        try:
            return cls(**args)
        except ValueError as exc:
            raise CheckError(where, str(exc)) from None

    return record
