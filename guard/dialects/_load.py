"""Dialect records as data: one TOML file per record, validated through the record types.

The built-in records are ``guard/dialects/data/NAME.toml``; :func:`load_dialect` reads a user's
file (or its text) the same way, for :func:`guard.dialects.register`. The format
(docs/dialects.md, "A dialect as a TOML file"): the record's fields at the top level, a
``[transcript]`` table for its :class:`TurnGrammar`, a ``[sets]`` table of named lists. An array
item ``{ use = "REF" }`` is replaced by the items of the list ``REF`` names: ``sets.NAME`` (or any
dotted key) of the same file, or ``DIALECT:KEY`` of a built-in file (``chatml:reserved``); an
array that splices keeps each item once, first come. A turn opening is ``[pattern]`` (the role
from the pattern's ``role`` group) or ``[pattern, role]``, and ``${role}`` in its pattern stands
for :data:`ROLE`.

The types are checked against the record dataclasses' own field types (strict: a number is no
string; :mod:`guard.dialects._check`), so the record's own checks run too, and no schema of its
own drifts from the record. The built-in files' parsed tables are kept between processes, keyed
by the files' texts (:mod:`guard.dialects._cache`): a start parses no TOML unless one changed.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guard._regex_source import opens_plain
from guard.dialects._cache import cache_path, derived
from guard.dialects._check import CheckError, build
from guard.errors import GuardError
from guard.models import Dialect

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = ["DATA", "ROLE", "DialectData", "DialectFileError", "builtin", "load_dialect"]

#: the built-in records' files
DATA = Path(__file__).with_name("data")
#: A role name inside a turn opening: anything up to 64 characters but blanks, ``<``, ``>``, ``|``.
ROLE = r"(?P<role>[^\s<>|]{1,64})"
_ROLE_MARK = "${role}"
_TABLES = ("sets", "transcript")
_NAMED = tuple[str, ...]
#: where the built-in files' parsed tables are kept between processes
_CACHE = cache_path(DATA, "records")
#: at most this many items spliced in by the ``use`` items of one file (a few thousand in the
#: built-in ones), and arrays, tables and ``use`` references nested at most this deep
_MAX_ITEMS = 100_000
_MAX_DEPTH = 64


class DialectFileError(GuardError, ValueError):
    """A dialect file (or TOML text) that does not describe a valid record: the message names
    the file, the field, what was expected and what came."""


class DialectData:
    """A file's record and its named lists (``[sets]``), which the modules export as constants.

    A plain class: a frozen dataclass costs half a millisecond to create at every start."""

    __slots__ = ("record", "sets")

    def __init__(self, record: Dialect, sets: Mapping[str, tuple[str, ...]]) -> None:
        self.record = record
        self.sets = sets


class _File:
    """One file's raw table while its ``use`` items are resolved."""

    def __init__(self, raw: dict[str, Any], source: str) -> None:
        self.raw = raw
        self.source = source
        self._open: list[str] = []
        #: each reference's expanded list, spliced once however often it is used
        self._done: dict[str, list[Any]] = {}
        self._spliced = 0

    def fail(self, where: str, message: str) -> DialectFileError:
        return DialectFileError(f"{self.source}: {where + ': ' if where else ''}{message}")

    def expand(self, value: Any, where: str, depth: int = 0) -> Any:
        """``value`` with every ``{ use = ... }`` item of its arrays spliced in."""
        if depth > _MAX_DEPTH:
            raise self.fail(where, f"nested more than {_MAX_DEPTH} deep")
        if isinstance(value, dict):
            return {
                k: self.expand(v, f"{where}.{k}" if where else k, depth + 1)
                for k, v in value.items()
            }
        if not isinstance(value, list) or all(type(item) is str for item in value):
            return value  # most arrays are plain spellings: nothing to splice, shared as read
        items: list[Any] = []
        spliced = False
        for i, item in enumerate(value):
            if isinstance(item, dict) and "use" in item:
                items.extend(self.use(item, f"{where}[{i}]", depth + 1))
                spliced = True
            else:
                items.append(self.expand(item, f"{where}[{i}]", depth + 1))
        return _unique(items) if spliced else items

    def use(self, item: dict[str, Any], where: str, depth: int) -> list[Any]:
        ref = item["use"]
        if len(item) != 1 or not isinstance(ref, str):
            raise self.fail(where, f'expected {{ use = "REF" }} alone, got {item!r}')
        items = self._done.get(ref)
        if items is None:
            items = self._done[ref] = self._resolve(ref, where, depth)
        self._spliced += len(items)
        if self._spliced > _MAX_ITEMS:
            raise self.fail(where, f"use {ref!r}: the file splices more than {_MAX_ITEMS} items")
        return items

    def _resolve(self, ref: str, where: str, depth: int) -> list[Any]:
        name, _, key = ref.rpartition(":")
        if name:
            if name not in _builtin_names():
                known = ", ".join(_builtin_names())
                raise self.fail(where, f"use {ref!r}: no built-in dialect {name!r} ({known})")
            if name in _loading():
                raise self.fail(where, f"use {ref!r}: the built-in files use each other")
            return self._walk(_expanded(name), ref, key, where)
        if ref in self._open:
            raise self.fail(where, f"use {ref!r}: the list uses itself")
        self._open.append(ref)
        try:
            return list(self.expand(self._walk(self.raw, ref, key, where), key, depth))
        finally:
            self._open.pop()

    def _walk(self, table: Any, ref: str, key: str, where: str) -> list[Any]:
        for part in key.split("."):
            if not isinstance(table, dict) or part not in table:
                raise self.fail(where, f"use {ref!r}: no such list")
            table = table[part]
        if not isinstance(table, list):
            raise self.fail(where, f"use {ref!r}: expected an array, got {_kind(table)}")
        return table


def _unique(items: list[Any]) -> list[Any]:
    seen: dict[Any, Any] = {}
    for item in items:
        seen.setdefault(_frozen(item), item)
    return list(seen.values())


def _frozen(item: Any) -> Any:
    """``item`` as a key: arrays and tables (of a bad file, refused later) are unhashable."""
    if isinstance(item, list):
        return tuple(map(_frozen, item))
    if isinstance(item, dict):
        return (dict, tuple((k, _frozen(v)) for k, v in item.items()))
    return item


def _kind(value: Any) -> str:
    names = {list: "an array", dict: "a table", str: "a string", bool: "a boolean"}
    return names.get(type(value), type(value).__name__)


@cache
def _data() -> Traversable:
    """The built-in files' folder: :data:`DATA` where it is one (importlib.resources costs some
    6 ms of start-up), else as the package's loader serves it (guard imported from a zip)."""
    if os.path.isdir(DATA):
        return DATA
    from importlib.resources import files

    return files(__package__) / "data"


@cache
def _builtin_names() -> tuple[str, ...]:
    data = _data()
    found = os.listdir(data) if isinstance(data, Path) else [f.name for f in data.iterdir()]
    return tuple(sorted(f.removesuffix(".toml") for f in found if f.endswith(".toml")))


def _builtin_text(name: str) -> str:
    data = _data()
    if isinstance(data, Path):
        return _read(os.path.join(data, f"{name}.toml"))
    return data.joinpath(f"{name}.toml").read_text(encoding="utf-8")


#: the built-in files being expanded, per thread (a file that uses another fails on a circle);
#: one thread expands at a time, so a file is expanded whole before another thread reads it
_LOADING = threading.local()
_EXPANDING = threading.RLock()


def _loading() -> list[str]:
    names: list[str] | None = getattr(_LOADING, "names", None)
    if names is None:
        names = _LOADING.names = []
    return names


@cache
def _expanded(name: str) -> dict[str, Any]:
    source = str(DATA / f"{name}.toml")
    with _EXPANDING:
        file = _File(_parse(_builtin_text(name), source), source)
        loading = _loading()
        loading.append(name)
        try:
            return dict(file.expand(file.raw, ""))
        finally:
            loading.pop()


def _parse(text: str, source: str) -> dict[str, Any]:
    import tomllib  # ~3 ms: only a user's file or a changed built-in one is parsed

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DialectFileError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise DialectFileError(f"{source}: not valid TOML: nested too deeply") from None


def _turns(transcript: dict[str, Any]) -> dict[str, Any]:
    """The transcript table with ``[pattern]`` as ``[pattern, None]`` and ``${role}`` as
    :data:`ROLE` in its turn openings."""
    turns = transcript.get("turns")
    if not isinstance(turns, list):
        return transcript
    opened = []
    for turn in turns:
        if isinstance(turn, list) and turn and isinstance(turn[0], str):
            turn = [turn[0].replace(_ROLE_MARK, ROLE), *turn[1:]] + [None] * (len(turn) == 1)
        opened.append(turn)
    return {**transcript, "turns": opened}


def _build(raw: dict[str, Any], source: str) -> DialectData:
    file = _File(raw, source)
    for table in _TABLES:
        if not isinstance(value := raw.get(table, {}), dict):
            raise file.fail(table, f"expected a table, got {_kind(value)}")
    data = {**raw, "transcript": _turns(raw["transcript"])} if "transcript" in raw else raw
    try:
        record = build(data, Dialect, besides=("sets",))
        sets = {k: build(v, _NAMED, f"sets.{k}") for k, v in raw.get("sets", {}).items()}
    except CheckError as exc:
        raise file.fail(exc.where, exc.message) from None
    return DialectData(record, sets)


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as file:
        return file.read()


@cache
def _builtins(fresh: bool = False) -> dict[str, dict[str, Any]]:
    """Every built-in file as a table with its ``use`` items spliced in: parsed, or as kept by
    :mod:`guard.dialects._cache` from the same texts (checked and built by :func:`builtin`);
    ``fresh``: parsed, whatever is kept, and kept anew. This module's own source is one of the
    texts: a change to the splicing is a change too. Nothing is kept for files that are not in
    a folder (a zip)."""
    names = _builtin_names()
    texts = {f"{name}.toml": _builtin_text(name) for name in names}
    kept = _CACHE if isinstance(_data(), Path) else None
    try:
        texts[os.path.basename(__file__)] = _read(__file__)
    except (OSError, UnicodeDecodeError):  # no source to key on (byte-code only): not kept
        kept = None

    def valid(value: object) -> bool:
        return (
            not fresh
            and type(value) is dict
            and value.keys() == set(names)
            and all(type(table) is dict for table in value.values())
        )

    return derived(texts, lambda: {name: _expanded(name) for name in names}, kept, valid)


@cache
def builtin(name: str) -> DialectData:
    """The built-in file ``name`` (``data/NAME.toml``), read once."""
    source = str(DATA / f"{name}.toml")
    try:
        return _build(_builtins()[name], source)
    except Exception:  # a kept table that fits no record (a damaged file): the files decide
        return _build(_builtins(fresh=True)[name], source)


def load_dialect(source: str | os.PathLike[str]) -> Dialect:
    """A :class:`Dialect` record from a TOML file: a path (a ``PathLike``, or a ``str`` without
    a line break) or the TOML text itself (a ``str`` with line breaks).

    Raises:
        DialectFileError: (a ``ValueError``) the text is not TOML, a key is unknown, a field has
            the wrong type or value, or a ``use`` names no list; the message names the file
            and the field.
        OSError: the file cannot be read.
    """
    if isinstance(source, str) and "\n" in source:
        text, where = source, "<dialect text>"
    else:
        where = os.fspath(source)
        try:
            text = Path(source).read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise DialectFileError(f"{where}: not UTF-8 text: {exc}") from None
    file = _File(_parse(text, where), where)
    record = _build(file.expand(file.raw, ""), where).record
    _check_patterns(record, file)
    return record


def _check_patterns(record: Dialect, file: _File) -> None:
    """Each pattern field compiled as its readers compile it, so that a bad one fails here,
    naming the field, rather than in the first scan that reads it (the built-in files' patterns
    are compiled by the tests): the escaper's with ``regex``, the forged-result signal's and the
    raw transcript audit's with ``re``."""
    import re

    import regex

    grammar = record.transcript
    fields: list[tuple[str, tuple[str, ...], Any]] = [
        ("reserved_patterns", record.reserved_patterns, regex.compile),
        ("output_patterns", record.output_patterns, regex.compile),
        ("escape_patterns", record.escape_patterns, regex.compile),
        (
            "result_open_patterns",
            tuple(p.replace("\uff5c", r"\|") for p in record.result_open_patterns),
            re.compile,
        ),
    ]
    if grammar is not None:
        fields.append(("transcript.turns", tuple(p for p, _ in grammar.turns), re.compile))
        fields.append(("transcript.results", grammar.results, lambda p: re.compile(p, re.DOTALL)))
    for name, patterns, compile_ in fields:
        for i, pattern in enumerate(patterns):
            try:
                compile_(pattern)
            except (re.error, regex.error, RecursionError, OverflowError) as exc:
                raise file.fail(f"{name}[{i}]", f"invalid regex: {exc}") from None
    # the escaper writes its backslash before each bar, or after the plain first character of
    # a pattern without one (guard._escaper)
    # (an output pattern is not escaped, but signal H finds it the same way: through its bar or
    # its plain first character)
    for name, patterns in (
        ("reserved_patterns", record.reserved_patterns),
        ("output_patterns", record.output_patterns),
        ("escape_patterns", record.escape_patterns),
    ):
        for i, pattern in enumerate(patterns):
            if "\\|" not in pattern and "\uff5c" not in pattern and not opens_plain(pattern):
                raise file.fail(
                    f"{name}[{i}]",
                    "a pattern without a bar (\\| or \uff5c) that opens with a plain character"
                    f" (not a class, group, escape or quantified one), got {pattern!r}",
                )
