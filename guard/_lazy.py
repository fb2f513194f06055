"""Lazy public names (PEP 562) for guard's packages, listed once.

A package names its public names as re-exports (``from m import X as X``): the ones that load
on first use inside its ``if TYPE_CHECKING:`` block, so that type checkers see them and the
import itself stays light; the ones it needs at once as ordinary imports. :func:`lazy_exports`
reads those imports from the package's own source (or its byte-code) the first time a name is
missing, so the list type checkers read is the list the package loads from, and no table
repeats it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from types import CodeType
from typing import Any

__all__ = ["lazy_exports"]

_CHECKING = frozenset({"TYPE_CHECKING", "_TYPE_CHECKING"})


def read_exports(module: str) -> tuple[dict[str, str], frozenset[str]]:
    """A loaded module's lazy names (name -> defining module: each ``from m import name as
    name`` in its ``if TYPE_CHECKING:`` blocks, also spelled ``_TYPE_CHECKING`` or
    ``typing.TYPE_CHECKING``) and its eager re-exports (the same imports at its top level).

    Read from the module's source, or, where it was installed without one (byte-code only, a
    zip of ``.pyc`` files), from its code object: the block is compiled though never run."""
    spec = sys.modules[module].__spec__
    loader = spec and spec.loader
    get_source = getattr(loader, "get_source", None)
    source = None if get_source is None else get_source(module)
    if source is not None:
        return _from_source(str(source))
    get_code = getattr(loader, "get_code", None)
    code = None if get_code is None else get_code(module)
    if code is None:
        raise ImportError(f"{module}: neither its source nor its code can be read", name=module)
    return _from_code(code)


def _from_source(source: str) -> tuple[dict[str, str], frozenset[str]]:
    import ast  # only once a name is missing: `import guard` stays light

    lazy: dict[str, str] = {}
    eager: dict[str, str] = {}
    for node in ast.parse(source).body:
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


def _from_code(code: CodeType) -> tuple[dict[str, str], frozenset[str]]:
    """The same names from the module's byte-code: ``IMPORT_NAME m`` (level 0), then
    ``IMPORT_FROM X`` / ``STORE_NAME X`` pairs, inside the jump that skips a block guarded by a
    load of a flag name, or at the top level. Byte-code keeps no ``as``: a plain
    ``from m import X`` reads as ``X as X``, so the two plain imports the convention itself
    needs (``from __future__ import ...``, ``from typing import TYPE_CHECKING``) are left out."""
    import dis

    lazy: dict[str, str] = {}
    eager: dict[str, str] = {}
    ops = list(dis.get_instructions(code))
    block_end = -1  # the offset where the current TYPE_CHECKING block ends
    module: str | None = None
    for i, op in enumerate(ops):
        if op.offset >= block_end:
            block_end = -1
        if op.argval in _CHECKING and op.opname in ("LOAD_NAME", "LOAD_GLOBAL", "LOAD_ATTR"):
            jump = ops[i + 1] if i + 1 < len(ops) else None
            if jump is not None and "IF_FALSE" in jump.opname:
                block_end = jump.argval
        elif op.opname == "IMPORT_NAME":
            level = ops[i - 2].argval if i >= 2 else 0
            module = op.argval if level == 0 and op.argval != "__future__" else None
        elif op.opname == "IMPORT_FROM" and module is not None:
            store = ops[i + 1] if i + 1 < len(ops) else None
            name = op.argval
            if store is not None and store.opname == "STORE_NAME" and store.argval == name:
                if block_end >= 0:
                    lazy[name] = module
                elif name not in _CHECKING:
                    eager[name] = module
        elif op.opname not in ("STORE_NAME", "LOAD_CONST", "POP_TOP"):
            module = None
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
        try:
            lazy, eager = exports()
        except Exception as exc:  # no names to read: still no such attribute (`hasattr`)
            raise AttributeError(f"module {module!r} has no attribute {name!r} ({exc})") from exc
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
