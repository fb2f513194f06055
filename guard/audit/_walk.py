"""Paths to files: each file is audited once however it is reached, and every path that is
not audited is named with the reason.

Symbolic links are followed, to files and to directories alike. A file is known by its device
and inode, so a file reached again (through a link, a second path argument, a directory given
twice) is listed as skipped, not audited twice; so is a directory reached again, which is also
how a link cycle ends. Hidden entries (a leading ``.``), links that lead nowhere and special
files found in a directory (FIFOs, sockets, devices: opening one could block) are listed as
skipped. A path given on its own is read whatever kind of file it is (``<(cmd)`` is a pipe).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FileInput", "Skipped", "Unreadable", "Walker"]


@dataclass(frozen=True, slots=True)
class FileInput:
    """A file to audit (given, or found in a directory)."""

    path: str


@dataclass(frozen=True, slots=True)
class Skipped:
    """A path not audited, and why (listed in the report's ``skipped``)."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A directory that could not be listed (an error entry)."""

    path: str
    error: str


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


class Walker:
    """Turns paths into files to audit; remembers what it has handed out, across paths."""

    def __init__(self) -> None:
        self._files: dict[tuple[int, int], str] = {}
        self._dirs: dict[tuple[int, int], str] = {}

    def path(self, p: str) -> Iterator[FileInput | Skipped | Unreadable]:
        """What one path argument names: the file itself, or the files under a directory."""
        try:
            st = os.stat(p)
        except OSError:
            if os.path.islink(p):
                yield Skipped(p, "a symbolic link that leads nowhere")
            else:
                yield FileInput(p)  # opening it reports why it cannot be read
            return
        if stat.S_ISDIR(st.st_mode):
            yield from self._directory(p, st)
        else:
            yield from self._file(p, st, given=True)

    def _file(self, p: str, st: os.stat_result, given: bool) -> Iterator[FileInput | Skipped]:
        key = (st.st_dev, st.st_ino)
        first = self._files.get(key)
        if first is not None:
            yield Skipped(p, f"the same file as {first}, audited once")
        elif not given and not stat.S_ISREG(st.st_mode):
            yield Skipped(p, f"{_kind(st.st_mode)}, not a file of transcripts")
        else:
            self._files[key] = p
            yield FileInput(p)

    def _directory(
        self, top: str, st: os.stat_result
    ) -> Iterator[FileInput | Skipped | Unreadable]:
        """Depth first in sorted order, a directory's files before its subdirectories."""
        stack: list[tuple[str, os.stat_result]] = [(top, st)]
        found = False
        while stack:
            directory, dst = stack.pop()
            key = (dst.st_dev, dst.st_ino)
            first = self._dirs.get(key)
            if first is not None:
                if directory == top:
                    found = True  # said once: not also "holds no files"
                if directory.startswith(first.rstrip(os.sep) + os.sep):
                    reason = f"a link back to {first} (a cycle), walked once"
                else:
                    reason = f"the same directory as {first}, walked once"
                yield Skipped(directory, reason)
                continue
            self._dirs[key] = directory
            try:
                with os.scandir(directory) as it:
                    names = sorted(entry.name for entry in it)
            except OSError as exc:
                yield Unreadable(directory, f"cannot list: {exc.strerror or exc}")
                continue
            subdirs: list[tuple[str, os.stat_result]] = []
            for name in names:
                path = str(Path(directory) / name)
                if name.startswith("."):
                    yield Skipped(path, "hidden")
                    continue
                try:
                    est = os.stat(path)
                except OSError as exc:
                    if os.path.islink(path):
                        yield Skipped(path, "a symbolic link that leads nowhere")
                    else:
                        yield Unreadable(path, f"cannot read: {exc.strerror or exc}")
                    continue
                if stat.S_ISDIR(est.st_mode):
                    if name == "__pycache__":
                        yield Skipped(path, "a Python bytecode cache")
                        continue
                    subdirs.append((path, est))
                    continue
                for item in self._file(path, est, given=False):
                    found = found or isinstance(item, FileInput)
                    yield item
            stack.extend(reversed(subdirs))
        if not found:
            yield Skipped(top, "directory holds no files to audit")


def files_under(p: str) -> Iterator[str]:
    """The files one path argument names (for sizing a progress bar)."""
    for item in Walker().path(p):
        if isinstance(item, FileInput):
            yield item.path
