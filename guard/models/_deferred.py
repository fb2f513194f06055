"""A compiled pattern built on first use (``guard.models.lazy_re``, ``guard.models.lazy_regex``).

Signal modules compile their patterns at import, and a program that imports them (every
``detect``, every ``guard audit``) paid for all of them, about 25 ms, though a clean text is
never scanned by most. A deferred pattern keeps the source and flags, answers ``pattern`` and
``flags`` at once, and compiles on the first other attribute asked of it; each method is then
kept on the object, so later calls cost what calls on the compiled pattern cost.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Deferred"]


class Deferred:
    """Stands for ``compile(source, flags, **options)`` until first used."""

    def __init__(
        self, compile: Callable[..., Any], source: Any, flags: Any, options: dict[str, Any]
    ) -> None:
        self._compile = compile
        self._args = (source, flags)
        self._options = options
        self._compiled: Any = None
        self.pattern = source

    @property
    def compiled(self) -> Any:
        """The compiled pattern (built now if it was not yet)."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = self._compile(*self._args, **self._options)
        return compiled

    @property
    def flags(self) -> Any:
        return self.compiled.flags

    def __getattr__(self, name: str) -> Any:
        # called only for names the object lacks: the compiled pattern's methods and attributes
        if name.startswith("__") or name in ("_compile", "_args", "_options", "_compiled"):
            raise AttributeError(name)
        value = getattr(self.compiled, name)
        if callable(value):
            setattr(self, name, value)  # a bound method of the compiled pattern, kept
        return value

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled (to a worker process) as the pattern itself
        return (self._compile, self._args, None, None, None)

    def __repr__(self) -> str:
        return f"Deferred({self._args[0]!r})"
