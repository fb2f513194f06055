"""What ``guard.audit`` reads from: sources (paths, directories, streams, in-memory
transcripts) turned into inputs, and the reading helpers (gzip, any ``read(n)`` object as a binary
stream, the head of a stream that sniffing looks at)."""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

from guard.audit._choices import MAX_LINE_BYTES
from guard.audit._walk import FileInput, Skipped, Unreadable, Walker, files_under
from guard.audit._zstd import ZSTD_MAGIC, open_zstd

__all__ = [
    "MAX_LINE_BYTES",
    "READ_ERRORS",
    "FileInput",
    "MemoryInput",
    "RawReader",
    "Skipped",
    "Source",
    "StreamInput",
    "Unreadable",
    "capped_lines",
    "describe_read_error",
    "input_bytes",
    "inputs",
    "is_path",
    "looks_binary",
    "open_binary",
    "read_head",
    "skip_all",
    "skip_line",
]

#: One input: a path, a file object, or an in-memory transcript.
Source = str | os.PathLike[str] | BinaryIO | Mapping[str, Any] | list[Any]

#: Errors that reading a file or stream raises (gzip adds its own).
READ_ERRORS = (OSError, EOFError, zlib.error)

#: The head is read in blocks of this size, up to :data:`HEAD_MAX` (or the line cap) while no
#: line ends and the first block looks like text.
HEAD_BYTES = 1 << 16
HEAD_MAX = 1 << 26
#: Sniffing looks for a NUL byte this far into a file to tell binary data.
BINARY_PROBE = 8192
#: A line over the cap (:data:`MAX_LINE_BYTES`) is skipped in pieces of this size.
SKIP_PIECE = 1 << 20

_GZIP_MAGIC = b"\x1f\x8b"


# ---------------------------------------------------------------------------------------------
# Sources to inputs


@dataclass(frozen=True, slots=True)
class StreamInput:
    """An open file object (or stdin), read once."""

    label: str
    stream: Any


@dataclass(frozen=True, slots=True)
class MemoryInput:
    """An in-memory transcript, numbered by its 1-based position among the sources."""

    position: int
    transcript: Mapping[str, Any] | list[Any]


def is_path(item: object) -> bool:
    return isinstance(item, str | os.PathLike)


def is_stream(item: object) -> bool:
    return hasattr(item, "read") and not isinstance(item, str | bytes)


def inputs(
    sources: Source | Iterable[Source],
) -> Iterator[FileInput | StreamInput | Skipped | Unreadable | MemoryInput]:
    """The inputs that ``sources`` name, in order: directories are walked, ``-`` is stdin, each
    file comes once however it is reached (:mod:`guard.audit._walk`).

    Raises ``TypeError`` for a source that is none of a path, a file object or a transcript
    (lazily, when the iteration reaches it).
    """
    items: Iterable[Any]
    if is_path(sources) or is_stream(sources) or isinstance(sources, Mapping):
        items = [sources]  # one path, stream or in-memory transcript
    elif isinstance(sources, Iterable):
        items = sources
    else:
        raise TypeError(
            "audit() expects a path, a file object, or an iterable of paths, file objects"
            f" and transcripts, got {type(sources).__name__}"
        )
    walker = Walker()
    for position, item in enumerate(items, 1):
        if isinstance(item, Mapping | list):
            yield MemoryInput(position, item)
        elif is_path(item):
            p = os.fspath(item)
            if p == "-":
                yield StreamInput("<stdin>", sys.stdin.buffer)
            else:
                yield from walker.path(p)
        elif is_stream(item):
            yield StreamInput(str(getattr(item, "name", "<stream>")), item)
        else:
            raise TypeError(
                "each source must be a path, a file object, or a transcript (a mapping or a"
                f" list), got {type(item).__name__}"
            )


def input_bytes(paths: Iterable[str]) -> int | None:
    """Total size of the files that ``paths`` name (for a progress bar), or ``None`` when it
    cannot be known in advance (stdin, compressed files)."""
    total = 0
    for p in paths:
        if p == "-":
            return None
        for f in files_under(p):
            if f.endswith((".gz", ".zst")):
                return None
            try:
                total += os.stat(f).st_size
            except OSError:
                continue
    return total


# ---------------------------------------------------------------------------------------------
# Reading


def describe_read_error(exc: BaseException) -> str:
    """What went wrong reading, for an error entry (no traceback, no path: the entry has it)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


class RawReader(io.RawIOBase):
    """Adapts any object with ``read(n)`` (bytes or str) to a raw binary stream, optionally
    after ``prefix`` (bytes already read from it)."""

    def __init__(self, stream: Any, prefix: bytes = b"") -> None:
        self._stream = stream
        self._rest = prefix

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not self._rest:
            chunk = self._stream.read(len(buffer))
            if isinstance(chunk, str):
                chunk = chunk.encode("utf-8")
            self._rest = chunk or b""
        n = min(len(buffer), len(self._rest))
        buffer[:n] = self._rest[:n]
        self._rest = self._rest[n:]
        return n


def open_binary(stream: Any) -> BinaryIO:
    """``stream`` as a buffered binary stream, transparently decompressed when it starts with
    the gzip or the zstd magic number (:mod:`guard.audit._zstd`)."""
    buffered: Any = stream
    if not hasattr(buffered, "peek"):
        buffered = io.BufferedReader(RawReader(stream))
    magic = buffered.peek(4)[:4]
    if magic[:2] == _GZIP_MAGIC:
        return gzip.GzipFile(fileobj=buffered, mode="rb")  # type: ignore[return-value]
    if magic == ZSTD_MAGIC:
        return open_zstd(buffered)
    return buffered  # type: ignore[no-any-return]


def read_head(stream: BinaryIO, limit: int = HEAD_MAX) -> tuple[bytes, bool]:
    """The first bytes of ``stream``: at least one whole line when there is one (up to
    ``limit`` bytes), and whether the stream ended. Binary data (a NUL byte in the first
    block, no line break) ends the head at once: a huge file of NUL bytes costs one block."""
    head = stream.read(HEAD_BYTES)
    if len(head) < HEAD_BYTES:
        return head, True
    if b"\n" in head or looks_binary(head):
        return head, False
    blocks = [head]
    size = len(head)
    while size < limit:
        more = stream.read(HEAD_BYTES)
        if not more:
            return b"".join(blocks), True
        blocks.append(more)
        size += len(more)
        if b"\n" in more:
            break
    return b"".join(blocks), False


def capped_lines(stream: BinaryIO, cap: int) -> Iterator[tuple[bytes | None, int]]:
    """``(line, size)`` for each line of ``stream`` (with its line break). A line longer than
    ``cap`` bytes (not counting its line break) is never held: it is read on in pieces of at
    most :data:`SKIP_PIECE` and comes as ``(None, size)``."""
    while True:
        line = stream.readline(cap + 1)
        if not line:
            return
        if len(line) <= cap or line.endswith(b"\n"):
            yield line, len(line)
            continue
        yield None, len(line) + skip_line(stream)


def skip_all(stream: BinaryIO) -> int:
    """Read to the end of ``stream`` in bounded pieces; returns the number of bytes read."""
    skipped = 0
    while piece := stream.read(SKIP_PIECE):
        skipped += len(piece)
    return skipped


def skip_line(stream: BinaryIO) -> int:
    """Read past the rest of the current line (and its line break) in bounded pieces; returns
    the number of bytes skipped."""
    skipped = 0
    while True:
        piece = stream.readline(SKIP_PIECE)
        skipped += len(piece)
        if not piece or piece.endswith(b"\n"):
            return skipped


def looks_binary(head: bytes) -> bool:
    """A NUL byte near the start: binary data, not transcripts."""
    return b"\x00" in head[:BINARY_PROBE]
