"""Lazy public names (PEP 562) for guard's packages, listed once.

A package names its public names as re-exports (``from m import X as X``): the ones that load
on first use inside its ``if TYPE_CHECKING:`` block, so that type checkers see them and the
import itself stays light; the ones it needs at once as ordinary imports. :func:`lazy_exports`
reads those imports from the package's own source the first time a name is missing, so the list
type checkers read is the list the package loads from, and no table repeats it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_exports"]

_CHECKING = frozenset({"TYPE_CHECKING", "_TYPE_CHECKING"})


def _source(module: str) -> str:
    spec = sys.modules[module].__spec__
    get_source = getattr(spec and spec.loader, "get_source", None)
    source = None if get_source is None else get_source(module)
    if source is None:
        raise ImportError(f"{module}: its source is needed to list its lazy names", name=module)
    return str(source)


def read_exports(module: str) -> tuple[dict[str, str], frozenset[str]]:
    """A loaded module's lazy names (name -> defining module: each ``from m import name as
    name`` in its ``if TYPE_CHECKING:`` blocks, also spelled ``_TYPE_CHECKING`` or
    ``typing.TYPE_CHECKING``) and its eager re-exports (the same imports at its top level)."""
    import ast  # only once a name is missing: `import guard` stays light

    lazy: dict[str, str] = {}
    eager: dict[str, str] = {}
    for node in ast.parse(_source(module)).body:
        found, block = eager, [node]
        if isinstance(node, ast.If):
            test = node.test
            flag = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", None)
            found, block = lazy, node.body if flag in _CHECKING else []
        for stmt in block:
            if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
                for alias in stmt.names:
                    if alias.asname == alias.name:
                        found[alias.name] = stmt.module
    return lazy, frozenset(eager)


def lazy_exports(
    module: str, namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module's ``__getattr__`` and ``__dir__``. A lazy name is imported from its defining
    module on first use and kept in ``namespace``; ``__all__`` is every re-export, sorted. The
    source is read once, when the first missing name is asked for."""
    read: tuple[dict[str, str], frozenset[str]] | None = None

    def exports() -> tuple[dict[str, str], frozenset[str]]:
        nonlocal read
        if read is None:
            read = read_exports(module)
        return read

    def __getattr__(name: str) -> Any:
        lazy, eager = exports()
        if name == "__all__":
            value: Any = sorted({*lazy, *eager})
        elif name in lazy:
            value = getattr(importlib.import_module(lazy[name]), name)
        else:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *exports()[0]} - {"annotations"})

    return __getattr__, __dir__
