"""The planner: inputs become units of work, each input registered in the report as it is met.

A file or stream is opened (gzip transparently), its head read and its format sniffed
(``--format auto``) or taken as given. JSONL is cut into units of whole lines of about
:data:`CHUNK_BYTES`, numbered from 1 within the unit (the report shifts them when it merges);
a Harmony or text file is one unit that streams it; consecutive in-memory transcripts are
grouped into units of :data:`MEMORY_CHUNK`.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO

from guard.audit._builder import ReportBuilder
from guard.audit._formats import FORMAT_DIALECT, JSON_FORMATS, classify, sniff
from guard.audit._sources import (
    HEAD_MAX,
    MAX_LINE_BYTES,
    READ_ERRORS,
    SKIP_PIECE,
    FileInput,
    MemoryInput,
    RawReader,
    Skipped,
    Source,
    Unreadable,
    describe_read_error,
    inputs,
    open_binary,
    read_head,
)
from guard.audit._units import Unit, error_unit, overlong
from guard.audit._wire import GRAMMARS, sniff_dialect

__all__ = ["CHUNK_BYTES", "MEMORY_CHUNK", "Planner"]

#: Size of one unit of work (whole lines of a JSONL file).
CHUNK_BYTES = 1 << 20
#: In-memory transcripts per unit of work.
MEMORY_CHUNK = 2000


@dataclass(slots=True)
class _MemoryGroup:
    """Consecutive in-memory transcripts: one input of the report once its format is known."""

    index: int | None = None
    format: str = ""
    dialect: str = ""
    items: list[tuple[int, object]] = field(default_factory=list)


class Planner:
    """Turns sources into units of work, registering each input in the report."""

    def __init__(
        self,
        fmt: str,
        dialect: str | None,
        report: ReportBuilder,
        max_line: int = MAX_LINE_BYTES,
        *,
        spans: bool = False,
    ) -> None:
        self.format = fmt
        self.dialect = dialect
        self.report = report
        self.max_line = max_line
        #: plan the lines of plain JSONL files as spans the workers read themselves (worker
        #: processes on this machine), not as bytes sent to them
        self.spans = spans

    def _dialect_for(self, fmt: str) -> str:
        return self.dialect or FORMAT_DIALECT[fmt]

    def plan(self, sources: Source | Iterable[Source]) -> Iterator[Unit]:
        memory: _MemoryGroup | None = None
        for item in inputs(sources):
            if isinstance(item, MemoryInput):
                if memory is None:
                    memory = _MemoryGroup()
                yield from self._memory(memory, item)
                continue
            if memory is not None:
                yield from self._flush_memory(memory)
                memory = None
            if isinstance(item, FileInput):
                yield from self._file(item.path)
            elif isinstance(item, Skipped):
                self.report.skip(item.path, item.reason)
            elif isinstance(item, Unreadable):
                yield error_unit(item.path, None, item.error)
            else:
                yield from self._stream(item.label, item.stream, None)
        if memory is not None:
            yield from self._flush_memory(memory)

    # -- in-memory transcripts --------------------------------------------------------------

    def _memory(self, memory: _MemoryGroup, item: MemoryInput) -> Iterator[Unit]:
        if self.format in ("harmony", "raw", "text"):
            raise ValueError(
                f"format {self.format!r} reads text: pass a file or a file object, not"
                " transcript objects"
            )
        if memory.index is None:
            fmt = self.format if self.format != "auto" else classify(item.transcript)
            if fmt is None:
                yield error_unit(
                    "<memory>",
                    item.position,
                    "not a transcript (expected messages, input/output items, or a message list)",
                )
                return
            memory.format, memory.dialect = fmt, self._dialect_for(fmt)
            memory.index = self.report.add_file(
                "<memory>", fmt, self.format == "auto", memory.dialect
            )
        memory.items.append((item.position, item.transcript))
        if len(memory.items) >= MEMORY_CHUNK:
            yield from self._flush_memory(memory)

    def _flush_memory(self, memory: _MemoryGroup) -> Iterator[Unit]:
        if memory.index is not None and memory.items:
            yield Unit(
                index=memory.index,
                path="<memory>",
                format=memory.format,
                dialect=memory.dialect,
                objects=memory.items,
            )
        memory.items = []

    # -- files and streams ------------------------------------------------------------------

    def _file(self, p: str) -> Iterator[Unit]:
        return self.opened(p, lambda: open(p, "rb"), p)

    def opened(
        self,
        label: str,
        open_: Callable[[], Any],
        reopen: str | None,
        errors: type[Exception] | tuple[type[Exception], ...] = OSError,
    ) -> Iterator[Unit]:
        """The units of the binary file ``open_`` opens (an error entry when it raises one of
        ``errors``), closed once they are planned; ``reopen``: its path, for units that read it
        again themselves."""
        try:
            raw = open_()
        except errors as exc:
            yield error_unit(label, None, f"cannot read: {describe_read_error(exc)}")
            return
        try:
            yield from self._stream(label, raw, reopen)
        finally:
            raw.close()

    def _stream(self, label: str, raw: Any, reopen: str | None) -> Iterator[Unit]:
        try:
            stream = open_binary(raw)
            head, at_eof = read_head(stream, min(HEAD_MAX, self.max_line + 1))
        except READ_ERRORS as exc:
            yield error_unit(label, None, f"cannot read: {describe_read_error(exc)}")
            return
        note = ""
        if self.format == "auto":
            fmt, note = sniff(head, at_eof)
            if fmt is None:
                if note == "empty":
                    yield error_unit(label, None, "empty file: no transcripts")
                else:
                    self.report.skip(label, note)
                return
        else:
            fmt = self.format
            if not head.strip():
                yield error_unit(label, None, "empty file: no transcripts")
                return
        dialect = self._dialect_for(fmt)
        if fmt == "raw":
            dialect = self.dialect or sniff_dialect(head) or ""
            if dialect not in GRAMMARS:
                known = ", ".join(GRAMMARS)
                yield error_unit(
                    label,
                    None,
                    f"format 'raw' needs the transcript's dialect: expected --dialect one of"
                    f" {known} (raw Harmony is format 'harmony'), got {dialect or 'none'}",
                )
                return
        index = self.report.add_file(
            label, fmt, self.format == "auto", dialect, "" if note == "sniffed" else note
        )
        base = Unit(index=index, path=label, format=fmt, dialect=dialect, max_line=self.max_line)
        if fmt in JSON_FORMATS:
            if self.spans and reopen is not None and stream is raw and not at_eof:
                yield from _span_units(base, reopen, stream)
            else:
                yield from _json_units(base, stream, head, at_eof)
        elif reopen is not None:
            yield replace(base, source=reopen)
        else:
            yield replace(base, stream=io.BufferedReader(RawReader(stream, prefix=head)))


#: how far past a span's nominal end its last line is looked for at a time
_SCAN_BLOCK = 1 << 16


def _span_units(base: Unit, path: str, stream: BinaryIO) -> Iterator[Unit]:
    """Whole lines of a plain (uncompressed, seekable) JSONL file as spans of about
    :data:`CHUNK_BYTES` that the workers read themselves: the planner reads only where each
    span's last line ends. Where no line ends within the cap past a span's nominal end (a line
    over the cap), the rest of the file is planned as :func:`_json_units` plans it (bounded
    memory, that line an error unit). Units are relative either way: line numbers are the
    same as with bytes."""
    try:
        size = stream.seek(0, io.SEEK_END)
        pos = 0
        while pos < size:
            end = pos + CHUNK_BYTES
            if end >= size:
                end = size
            else:
                found = _line_end(stream, end, end + base.max_line, size)
                if found is None:
                    stream.seek(pos)
                    yield from _json_units(base, stream, b"", False)
                    return
                end = found
            yield replace(base, source=path, span=(pos, end - pos))
            pos = end
    except READ_ERRORS as exc:
        u = error_unit(base.path, 1, f"cannot read further: {describe_read_error(exc)}")
        u.index, u.relative = base.index, True
        yield u


def _line_end(stream: BinaryIO, at: int, limit: int, size: int) -> int | None:
    """The offset just past the first line break at or after ``at`` (``size`` when the file
    ends first), or ``None`` when none comes before ``limit``."""
    stream.seek(at)
    while at < limit:
        block = stream.read(_SCAN_BLOCK)
        if not block:
            return size
        k = block.find(b"\n")
        if k >= 0:
            return at + k + 1
        at += len(block)
    return None


def _read_chunk(stream: BinaryIO) -> bytes:
    """About :data:`CHUNK_BYTES` of ``stream`` (less only at its end): a stream that returns
    less per read (a pipe, a decompressor) is read again, so units keep their size."""
    block = stream.read(CHUNK_BYTES)
    if not block or len(block) >= CHUNK_BYTES:
        return block
    parts = [block]
    got = len(block)
    while got < CHUNK_BYTES:
        more = stream.read(CHUNK_BYTES - got)
        if not more:
            break
        parts.append(more)
        got += len(more)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _json_units(base: Unit, stream: BinaryIO, head: bytes, at_eof: bool) -> Iterator[Unit]:
    """Whole lines of a JSONL stream in units of about :data:`CHUNK_BYTES`. Line numbers in a
    unit's result are relative to the unit; the report shifts them when it merges.

    A line over the cap (``base.max_line``) is never held: once the bytes without a line break
    pass the cap, the rest of the line is read in bounded pieces and dropped, and the line
    becomes an error unit of its own. Memory stays within about a chunk plus the cap."""
    cap = base.max_line

    def unit(data: bytes) -> Unit:
        return replace(base, data=data)

    def one_error(text: str, lines: int, size: int = 0) -> Unit:
        u = error_unit(base.path, 1, text, base.index)
        u.relative = True
        assert u.result is not None
        u.result.lines = lines
        u.result.bytes = size
        return u

    def failed(exc: BaseException) -> Unit:
        return one_error(f"cannot read further: {describe_read_error(exc)}", 0)

    carry: bytes | bytearray = b""  # the start of the line the last block left unfinished
    block = head
    while True:
        k = block.rfind(b"\n")
        if k >= 0:
            # the block's whole lines, after the line the previous block left unfinished:
            # one copy at most (none for a block that ends with its last line's break)
            if carry:
                data = b"".join((carry, memoryview(block)[: k + 1]))
            elif k + 1 == len(block):
                data = block
            else:
                data = block[: k + 1]
            carry = block[k + 1 :]
            yield unit(data)
        elif block:
            if not isinstance(carry, bytearray):
                carry = bytearray(carry)  # a line over many blocks grows in place
            carry += block
        if at_eof:
            if len(carry) > cap:
                yield one_error(overlong(len(carry), cap), 0, len(carry))
            elif carry:
                yield unit(bytes(carry))
            return
        if len(carry) > cap:  # the last line is over the cap: never held whole
            size = len(carry)
            carry = b""
            try:
                while True:
                    piece = stream.readline(SKIP_PIECE)
                    if not piece:
                        at_eof = True
                        break
                    if piece.endswith(b"\n"):
                        size += len(piece) - 1
                        break
                    size += len(piece)
            except READ_ERRORS as exc:
                yield failed(exc)
                return
            # the bytes read include its line break (the message gives the line without it)
            yield one_error(overlong(size, cap), 1, size + (0 if at_eof else 1))
            block = b""
            continue
        try:
            block = _read_chunk(stream)
        except READ_ERRORS as exc:
            yield failed(exc)
            return
        if not block:
            at_eof = True
