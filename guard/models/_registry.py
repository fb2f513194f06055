"""One registry pattern for every kind of plugin: signals, scanners, parse boundaries and
recovery strategies.

A :class:`Registry` holds named entries of one kind, from three sources, in this order of
precedence: entries registered at run time, the built-ins, and entries installed through a Python
entry point group (loaded only when needed; they add names, and replacing a built-in takes an
explicit registration). Names are normalised by the registry's ``key``
function; values pass the registry's ``check`` function when they arrive, so a bad plugin fails
with a clear :class:`~guard.errors.PluginError` where it is registered or loaded.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Generic, TypeVar

from guard.errors import PluginError, UnknownNameError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = ["Registry"]

T = TypeVar("T")


@cache
def _installed() -> dict[str, tuple[EntryPoint, ...]]:
    """Every installed entry point, by group: one scan of the installed distributions serves
    every registry (a scan reads each distribution's metadata, about 10 ms in an environment of
    a hundred and fifty packages, and ``importlib.metadata`` itself is imported only here)."""
    from importlib.metadata import entry_points

    found = entry_points()  # every group (`.groups` and `.select` on Python 3.11 and later)
    return {group: tuple(found.select(group=group)) for group in found.groups}


def _lower(name: str) -> str:
    return name.strip().lower()


def _as_is(name: str, value: object) -> object:
    return value


class Registry(Generic[T]):
    """Named entries of one kind (see the module docstring).

    Args:
        kind: what the entries are, for messages (``"scanner"``, ``"signal"``, ...).
        group: the entry point group third parties install into (``"guard.scanners"``).
        builtin: the built-in entries, in order.
        key: normalises a name (default: stripped, lower case).
        check: turns what was registered or loaded into an entry, or raises ``PluginError``.
        replace: whether a runtime registration may replace an existing name (scanners: yes,
            so a user can swap a built-in; signals: no, codes name signals in policies).
    """

    def __init__(
        self,
        kind: str,
        group: str,
        builtin: Mapping[str, T],
        *,
        key: Callable[[str], str] = _lower,
        check: Callable[[str, object], T] | None = None,
        replace: bool = True,
    ) -> None:
        self.kind = kind
        self.group = group
        self._key = key
        self._check: Callable[[str, object], T] = check or _as_is  # type: ignore[assignment]
        self._replace = replace
        self._builtin = {key(k): v for k, v in builtin.items()}
        self._registered: dict[str, T] = {}
        self._loaded: dict[str, T] | None = None  # every entry point, once loaded
        self._lock = threading.RLock()
        self._cache: tuple[tuple[str, T], ...] | None = None

    # --- discovery (tests replace `discover`) -------------------------------------------------

    def discover(self) -> Iterable[EntryPoint]:
        """The installed entry points of this registry's group (read once per process for every
        group; :meth:`clear` reads them again)."""
        return _installed().get(self.group, ())

    def _entry_point(self, name: str) -> EntryPoint | None:
        for ep in self.discover():
            if self._key(ep.name) == name:
                return ep
        return None

    def _load(self, ep: EntryPoint) -> T:
        try:
            obj = ep.load()
        except Exception as exc:
            # keep the type (an ImportError stays one); say which plugin it was
            exc.add_note(f"while loading the {self.kind} plugin {ep.name!r} ({ep.value})")
            raise
        return self._check(self._key(ep.name), obj)

    def _all_entry_points(self) -> dict[str, T]:
        if self._loaded is None:
            loaded: dict[str, T] = {}
            for ep in self.discover():
                name = self._key(ep.name)
                if name in self._builtin and not self._replace:
                    raise PluginError(
                        f"{self.kind} plugin {ep.name!r} uses the name {name!r}, already taken"
                        " by a built-in"
                    )
                loaded[name] = self._load(ep)
            self._loaded = loaded
        return self._loaded

    # --- the public surface ----------------------------------------------------------------------

    def register(self, name: str, value: object) -> None:
        """Add ``value`` under ``name``; it takes precedence over built-ins and entry points
        when the registry allows replacing, else a taken name raises ``PluginError``."""
        if not isinstance(name, str) or not name.strip():
            raise PluginError(f"{self.kind} name must be a non-empty str, got {name!r}")
        key = self._key(name)
        entry = self._check(key, value)
        with self._lock:
            if not self._replace and key in self.names():
                raise PluginError(f"{self.kind} name {key!r} is already taken")
            self._registered[key] = entry
            self._cache = None

    def unregister(self, name: str) -> None:
        """Drop a runtime registration (built-ins and entry points stay)."""
        with self._lock:
            self._registered.pop(self._key(name), None)
            self._cache = None

    def clear(self) -> None:
        """Forget runtime registrations and loaded entry points (they are found again, from a
        fresh scan of the installed distributions)."""
        _installed.cache_clear()
        with self._lock:
            self._registered.clear()
            self._loaded = None
            self._cache = None

    def find(self, name: str) -> T | None:
        """The entry for ``name``, loading only that entry point if needed; ``None`` if none."""
        key = self._key(name)
        found = self._registered.get(key)
        if found is None:
            found = self._builtin.get(key)
        if found is None and self._loaded is not None:
            found = self._loaded.get(key)
        elif found is None:
            ep = self._entry_point(key)
            if ep is not None:
                found = self._load(ep)
        return found

    def get(self, name: str) -> T:
        """The entry for ``name``; an unknown name raises ``UnknownNameError`` (a
        ``ValueError``) listing the known ones."""
        found = self.find(name)
        if found is None:
            known = ", ".join(self.names())
            raise UnknownNameError(f"unknown {self.kind} {name!r}; expected one of: {known}")
        return found

    def names(self) -> tuple[str, ...]:
        """Every name, built-ins first in their order, then entry points, then registrations
        (entry points are listed, not loaded)."""
        names = dict.fromkeys(self._builtin)
        names.update(dict.fromkeys(self._key(ep.name) for ep in self.discover()))
        names.update(dict.fromkeys(self._registered))
        return tuple(names)

    def items(self) -> tuple[tuple[str, T], ...]:
        """Every entry, loaded, in the order of :meth:`names` (built-ins first). Cached until
        the next registration or :meth:`clear`."""
        cache = self._cache
        if cache is not None:
            return cache
        with self._lock:
            merged = dict(self._builtin)
            for name, entry in self._all_entry_points().items():
                merged.setdefault(name, entry)
            merged.update(self._registered)
            self._cache = tuple(merged.items())
            return self._cache

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None
