"""A value derived from text files, kept on disk with the very texts it came from, as byte-code
is kept beside a module: a process whose files are unchanged loads it instead of deriving it.

For the built-in dialect records: importing tomllib and parsing their 17 files costs some 6 ms
of every process's start, where loading the kept value costs a fraction of one. The files stay
the only source: the kept value is used only when every file's text equals the text it was
derived from (compared whole, not by date), and it is never shipped or committed. It is written
the way Python writes byte-code: not under ``PYTHONDONTWRITEBYTECODE``, under
``sys.pycache_prefix`` when that is set, atomically (a reader sees the old file or the new),
and silently not at all where the folder cannot be written.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from collections.abc import Callable, Mapping
from importlib.util import cache_from_source
from typing import Any, TypeVar, cast

__all__ = ["cache_path", "derived"]

_T = TypeVar("_T")


def cache_path(folder: str | os.PathLike[str], name: str) -> str | None:
    """Where the value ``name`` derived from ``folder``'s files is kept (its ``__pycache__``,
    or the mirror under ``sys.pycache_prefix``); ``None`` where this Python keeps no byte-code."""
    try:
        pyc = cache_from_source(os.path.join(folder, f"{name}.py"))
    except NotImplementedError:  # no cache tag (sys.implementation.cache_tag is None)
        return None
    return pyc.removesuffix(".pyc") + ".marshal"


def derived(
    texts: Mapping[str, str],
    derive: Callable[[], _T],
    path: str | None,
    valid: Callable[[object], bool] = lambda value: True,
) -> _T:
    """``derive()``, or the value kept at ``path`` if it was derived from exactly ``texts`` and
    is ``valid`` (a kept file damaged or written by another version is derived and kept anew).

    ``derive`` must read nothing but the files whose texts are given, and return what
    :mod:`marshal` can hold (dicts, lists, strings, numbers, booleans); a value it cannot hold
    is returned but not kept.
    """
    texts = dict(texts)
    if path is not None:
        with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
            with open(path, "rb") as file:
                kept = marshal.load(file)
            if type(kept) is tuple and len(kept) == 2 and kept[0] == texts and valid(kept[1]):
                return cast(_T, kept[1])
    value = derive()
    if path is not None and not sys.dont_write_bytecode:
        _keep(path, (texts, value))
    return value


def _keep(path: str, value: tuple[dict[str, str], Any]) -> None:
    try:
        data = marshal.dumps(value)
    except ValueError:  # something marshal cannot hold (a TOML date, say): not kept
        return
    part = f"{path}.{os.getpid()}.part"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(part, "wb") as file:
            file.write(data)
        os.replace(part, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(part)
