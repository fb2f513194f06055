"""The dialect table: the built-in records, dialects registered at run time, and dialects
installed through the ``guard.dialects`` entry point group, with their aliases, their model-name
keys and the ``all`` union.

Everything that reads dialects looks them up here (:func:`get_dialect`, :data:`DIALECTS`), so a
registered record is escaped, detected, scanned and matched by model name like a built-in one.
The generic registry (:class:`guard.models.Registry`) keys one name per entry; a dialect also
answers to its aliases, and a clash on any of them must name the dialect that holds it, so the
table keeps its own (small) store.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING

from guard.dialects._record import Dialect
from guard.dialects.anthropic import ANTHROPIC
from guard.dialects.chatglm3 import CHATGLM3
from guard.dialects.chatml import CHATML
from guard.dialects.deepseek import DEEPSEEK, DEEPSEEK_V32
from guard.dialects.gemini import GEMINI
from guard.dialects.gemma import GEMMA
from guard.dialects.glm import GLM
from guard.dialects.harmony import HARMONY
from guard.dialects.hunyuan import HUNYUAN
from guard.dialects.kimi import KIMI
from guard.dialects.kimi_k3 import KIMI_K3
from guard.dialects.lfm2 import LFM2
from guard.dialects.llama3 import LLAMA3
from guard.dialects.minimax import MINIMAX
from guard.dialects.mistral import MISTRAL
from guard.dialects.pythonic import PYTHONIC
from guard.dialects.qwen3_coder import QWEN3_CODER
from guard.errors import PluginError, UnknownNameError

if TYPE_CHECKING:  # importlib.metadata costs ~25 ms: imported when the entry points are read
    from importlib.metadata import EntryPoint

__all__ = [
    "ALL",
    "DIALECTS",
    "ENTRY_POINT_GROUP",
    "get_dialect",
    "load_entry_points",
    "register",
    "registered_dialects",
    "registered_models",
    "unregister",
]

ALL = "all"
#: The entry point group a package installs dialects into: name = the dialect's name, value =
#: a :class:`Dialect` record (or a callable taking no arguments that returns one).
ENTRY_POINT_GROUP = "guard.dialects"

_BUILTIN: dict[str, Dialect] = {
    d.name: d
    for d in (
        HARMONY,
        CHATGLM3,
        CHATML,
        QWEN3_CODER,
        LLAMA3,
        PYTHONIC,
        LFM2,
        DEEPSEEK,
        DEEPSEEK_V32,
        KIMI,
        KIMI_K3,
        GLM,
        GEMMA,
        GEMINI,
        MINIMAX,
        ANTHROPIC,
        MISTRAL,
        HUNYUAN,
    )
}
_RECORDS: dict[str, Dialect] = dict(_BUILTIN)
#: Every dialect by canonical name: built-ins in their order, then registrations. A read-only
#: view: it reflects :func:`register` and :func:`unregister`.
DIALECTS: Mapping[str, Dialect] = MappingProxyType(_RECORDS)

#: Records added by :func:`register` or an entry point, in the order they came.
_REGISTERED: dict[str, Dialect] = {}
_ALIASES: dict[str, str] = {}
_MODELS: dict[str, str] = {}
_LOCK = threading.RLock()
_loaded = False
_version = 0


def _key(name: str) -> str:
    return name.strip().lower()


def _rebuild() -> None:
    """Recompute the alias and model-name tables and drop the cached union."""
    _ALIASES.clear()
    for d in _RECORDS.values():
        for key in (d.name, *d.aliases):
            _ALIASES.setdefault(_key(key), d.name)
    _MODELS.clear()
    for d in _REGISTERED.values():
        for key in d.models:
            _MODELS.setdefault(_key(key), d.name)
    _union.cache_clear()
    global _version
    _version += 1


def table_version() -> int:
    """A number that changes whenever :func:`register` or :func:`unregister` changes the table,
    for caches that read every dialect (they key on it)."""
    return _version


def register(dialect: Dialect, *, replace: bool = False) -> None:
    """Add ``dialect`` to the table: :func:`get_dialect` finds it by name and aliases, ``all``
    includes its spellings, escaping and detection read it, :func:`guard.scanners.scanner`
    serves it (with the generic grammar scanner unless a scanner is registered for its name),
    and :func:`dialect_for_model` maps the keys in its ``models`` field to it.

    Args:
        dialect: the record.
        replace: replace the dialect of the same name (a built-in one too). Without it a name
            that is taken raises.

    Raises:
        PluginError: (a ``ValueError``) the name or an alias is already taken (by a dialect of
            the same name without ``replace=True``, or by another dialect at all), or the name
            is ``all``; (a ``TypeError``) ``dialect`` is not a :class:`Dialect`.
    """
    if not isinstance(dialect, Dialect):
        raise PluginError(f"register() expects a Dialect record, got {type(dialect).__name__}")
    name = dialect.name
    with _LOCK:
        for key in dict.fromkeys(_key(k) for k in (name, *dialect.aliases)):
            what = "name" if key == name else "alias"
            if key == ALL:
                raise PluginError(
                    f"dialect {name!r}: the {what} {ALL!r} is reserved for the union of every"
                    " dialect"
                )
            owner = _ALIASES.get(key)
            if owner is None or (owner == name and replace):
                continue
            if owner == name:
                raise PluginError(
                    f"dialect {name!r} already exists; pass replace=True to replace it"
                )
            raise PluginError(
                f"dialect {name!r}: the {what} {key!r} is already taken by the dialect {owner!r};"
                f" choose another {what}, or unregister({owner!r}) first (replace=True replaces"
                " only a dialect of the same name)"
            )
        _RECORDS[name] = dialect
        _REGISTERED[name] = dialect
        _rebuild()


def unregister(name: str) -> None:
    """Drop a dialect added by :func:`register` or an entry point (by name or alias); a
    built-in it replaced comes back. Built-ins and unknown names are left as they are."""
    with _LOCK:
        canonical = _ALIASES.get(_key(name), _key(name))
        if _REGISTERED.pop(canonical, None) is None:
            return
        if canonical in _BUILTIN:
            _RECORDS[canonical] = _BUILTIN[canonical]
        else:
            del _RECORDS[canonical]
        _rebuild()


def registered_dialects() -> tuple[str, ...]:
    """Names of the dialects that came from :func:`register` or an entry point (they have no
    built-in scanner; the generic grammar scanner serves them unless one is registered)."""
    load_entry_points()
    return tuple(_REGISTERED)


def registered_models() -> Mapping[str, str]:
    """Model-name key -> dialect, from the ``models`` field of the registered records, in the
    order they were registered (installed entry points loaded first)."""
    load_entry_points()
    return MappingProxyType(_MODELS)


# --- entry points -----------------------------------------------------------------------------


def discover() -> Iterable[EntryPoint]:
    """The installed entry points of :data:`ENTRY_POINT_GROUP` (tests replace this)."""
    from importlib.metadata import entry_points

    return entry_points(group=ENTRY_POINT_GROUP)


def _from_entry_point(ep: EntryPoint) -> Dialect:
    try:
        obj = ep.load()
        record = obj if isinstance(obj, Dialect) or not callable(obj) else obj()
    except Exception as exc:
        exc.add_note(f"while loading the dialect plugin {ep.name!r} ({ep.value})")
        raise
    if not isinstance(record, Dialect):
        raise PluginError(
            f"dialect plugin {ep.name!r} ({ep.value}) gave {type(record).__name__}, expected a"
            " Dialect record"
        )
    if record.name != _key(ep.name):
        raise PluginError(
            f"dialect plugin {ep.name!r} ({ep.value}) holds the dialect {record.name!r}; the entry"
            " point must be named after the dialect"
        )
    return record


def load_entry_points() -> None:
    """Register every dialect of the ``guard.dialects`` entry point group, once per process
    (a later call does nothing). A plugin that cannot load, or whose name is taken, raises
    :class:`PluginError` (or its own error, noting the plugin) and the next call tries again."""
    global _loaded
    if _loaded:
        return
    with _LOCK:
        if _loaded:
            return
        for ep in discover():
            record = _from_entry_point(ep)
            if _REGISTERED.get(record.name) != record:
                try:
                    register(record)
                except PluginError as exc:
                    exc.add_note(f"while loading the dialect plugin {ep.name!r} ({ep.value})")
                    raise
        _loaded = True


# --- look-up ----------------------------------------------------------------------------------


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


@cache
def _union() -> Dialect:
    ds = list(_RECORDS.values())
    return Dialect(
        name=ALL,
        reserved=_unique(s for d in ds for s in d.reserved if s not in d.unshared),
        reserved_patterns=_unique(p for d in ds for p in d.reserved_patterns),
        output_patterns=_unique(p for d in ds for p in d.output_patterns),
        # an unshared spelling is still escaped in untrusted input (escaping is reversible and
        # the model may be the family that reads it), only not judged in output
        escape_patterns=_unique(
            [
                *(p for d in ds for p in d.escape_patterns),
                *(re.escape(s) for d in ds for s in d.unshared),
            ]
        ),
        call_open=_unique(s for d in ds for s in d.call_open),
        call_close=_unique(s for d in ds for s in d.call_close),
        result_open=_unique(s for d in ds for s in d.result_open),
        result_open_patterns=_unique(p for d in ds for p in d.result_open_patterns),
        thinking=tuple(dict.fromkeys(t for d in ds for t in d.thinking)),
        stop=_unique(s for d in ds for s in d.stop),
        family="union of every known dialect (model unknown)",
    )


def get_dialect(name: str | Dialect) -> Dialect:
    """Return the dialect record called ``name`` (canonical name or alias, any case).

    A :class:`Dialect` passes through unchanged, so callers may hand in their own record. A
    name no table entry has loads the ``guard.dialects`` entry points (once) before giving up;
    ``"all"`` loads them too, so the union covers installed dialects.

    Raises:
        TypeError: ``name`` is neither a string nor a Dialect.
        ValueError: no dialect has that name; the message lists the known ones.
    """
    if isinstance(name, Dialect):
        return name
    if not isinstance(name, str):
        raise TypeError(f"dialect must be a str or Dialect, got {type(name).__name__}")
    key = _key(name)
    if key == ALL:
        load_entry_points()
        return _union()
    canonical = _ALIASES.get(key)
    if canonical is None:
        load_entry_points()
        canonical = _ALIASES.get(key)
    if canonical is None:
        known = ", ".join([*_RECORDS, ALL])
        raise UnknownNameError(f"unknown dialect {name!r}; expected one of: {known}")
    return _RECORDS[canonical]


_rebuild()
