"""Units of work: what one holds (whole lines of a JSONL file, a Harmony or text file to
stream, an open stream, in-memory transcripts), what it yields, and how it runs: its input is read
and parsed, the adapters hand the parts to a :class:`~guard.audit._engine.Collector`, which judges
them. Units are independent, so they can run in worker processes."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import compress, repeat
from typing import Any, BinaryIO

from guard._json import decode_line
from guard.audit._context import REASONING_FORMATS
from guard.audit._engine import Collector, internal_error
from guard.audit._fast import add_parts, split_lines, typed_records, valid_utf8
from guard.audit._formats import ADAPTERS, ShapeError, harmony_transcript
from guard.audit._sources import (
    MAX_LINE_BYTES,
    capped_lines,
    describe_read_error,
    open_binary,
    skip_all,
)
from guard.audit._wire import split, wire_transcript
from guard.audit.report import AuditError, Finding
from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY, Policy

__all__ = [
    "Unit",
    "UnitResult",
    "error_unit",
    "init_worker",
    "lost_result",
    "overlong",
    "run_in_worker",
    "run_unit",
]


@dataclass(slots=True)
class Unit:
    """A piece of one input: ``data`` (whole lines of a JSONL file, numbered from 1 within the
    unit: ``relative``), or a ``source`` path that the worker opens and streams (Harmony and
    text files), or an open ``stream`` (run in the calling process), or ``objects`` (in-memory
    transcripts, likewise)."""

    index: int  # the input's index in the report's file list
    path: str
    format: str
    dialect: str
    data: bytes | None = None
    source: str | None = None
    stream: BinaryIO | None = None
    objects: list[tuple[int, object]] | None = None
    #: a result known without work (a file-level error)
    result: UnitResult | None = None
    #: line numbers in the result count from the unit's first line (JSONL chunks)
    relative: bool = False
    #: a line longer than this is an error entry, not read whole
    max_line: int = MAX_LINE_BYTES
    #: the audit's declared tools (``tools=``), for records that declare none
    tools: frozenset[str] | None = None
    #: whole lines of the file ``source`` (offset, length) that the worker reads itself, so
    #: the bytes never travel through a pipe (JSONL files read by worker processes)
    span: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if self.data is not None or self.span is not None:
            self.relative = True

    @property
    def local(self) -> bool:
        """Must run in the calling process (holds an open stream or Python objects)."""
        return self.result is not None or self.stream is not None or self.objects is not None


@dataclass(slots=True)
class UnitResult:
    """What a unit yields; the report merges results in input order."""

    findings: list[Finding] = field(default_factory=list)
    errors: list[AuditError] = field(default_factory=list)
    transcripts: int = 0
    messages: int = 0
    bytes: int = 0
    #: line breaks in the unit's data (relative units)
    lines: int = 0


def error_unit(path: str, line: int | None, text: str, index: int = -1) -> Unit:
    """A unit whose result is one error, known without work (an unreadable file)."""
    error = AuditError(path=path, line=line, error=text)
    return Unit(index=index, path=path, format="", dialect="", result=UnitResult(errors=[error]))


def lost_result(unit: Unit, error: str) -> UnitResult:
    """The result of a unit that could not run: one internal error entry for the input it held
    (for lines of a JSONL file: at its first line, the line count kept so later lines keep
    their numbers)."""
    if unit.span is not None:  # read here only to count its lines
        read = _read_span(unit)
        if read.data is not None:
            unit = read
    lines = unit.data.count(b"\n") if unit.data is not None else 0
    line = 1 if unit.relative else None
    if unit.data is not None:
        n = lines + (0 if unit.data.endswith(b"\n") else 1)
        error += f" (this line and the next {n - 1})" if n > 1 else ""
    e = AuditError(path=unit.path, line=line, error=error, internal=True)
    return UnitResult(errors=[e], lines=lines)


def overlong(size: int, cap: int) -> str:
    return f"line of {size:,} bytes is over the cap of {cap:,} bytes (--max-line-bytes): not read"


def _json_error(exc: Exception, raw: bytes = b"") -> str:
    if b"\x00" in raw:
        return "not UTF-8 text: the line holds NUL bytes (UTF-16 text or binary data)"
    if isinstance(exc, UnicodeDecodeError):
        bad = exc.object[exc.start : exc.start + 1]
        byte = f" 0x{bad[0]:02x}" if bad else ""
        return f"invalid UTF-8: byte{byte} (column {exc.start + 1})"
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg} (column {exc.colno})"
    if isinstance(exc, RecursionError):
        return "invalid JSON: nested too deeply"
    return f"invalid JSON: {exc}"


def _collector(unit: Unit, policy: Policy) -> Collector:
    reasoning = unit.format in REASONING_FORMATS
    return Collector(unit.path, get_dialect(unit.dialect), policy, unit.tools, reasoning)


def _result(
    c: Collector, transcripts: int, messages: int, nbytes: int, lines: int = 0
) -> UnitResult:
    c.judge()
    if any(e.internal for e in c.errors):  # judging adds them after the reading's errors
        c.errors.sort(key=lambda e: e.line or 0)
    return UnitResult(c.findings, c.errors, transcripts, messages, nbytes, lines)


_UNPARSED = object()


def _salvage(raw: bytes, before: bytes) -> object:
    """A second try at a line that did not parse as UTF-8 JSON: without a UTF-8 byte order
    mark, or without the NUL byte that a UTF-16 line before it left at its start (its line
    break is two bytes, split after the first). ``_UNPARSED`` when that does not help either."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    elif raw.startswith(b"\x00") and before.endswith(b"\x00"):
        raw = raw[1:]
    else:
        return _UNPARSED
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return _UNPARSED


def read_record(adapter: Any, obj: object, c: Collector, line: int, what: str) -> int | None:
    """One record through its format's adapter into ``c`` (with the record's own declared
    tools): its message count, or ``None`` when it could not be read. A record of the wrong
    shape is an error entry; any other exception, a fault of guard, an internal error entry
    saying ``what`` was being done: the record is lost, not the report."""
    try:
        messages: int = adapter(obj, c, line)
        c.declare(line, obj)
    except ShapeError as exc:
        c.error(line, str(exc))
        return None
    except Exception as exc:
        c.internal(line, exc, what)
        return None
    return messages


def run_json_lines(unit: Unit, policy: Policy, *, fast: bool = True) -> UnitResult:
    """Each line of a JSONL chunk: decoded as UTF-8, parsed, handed to the format's adapter.
    Every fault of one line (undecodable, malformed, over the cap, of the wrong shape, or an
    unexpected exception) is an error entry for that line; the other lines are still read.
    ``fast``: OpenAI chat records are decoded typed, clean ones only counted
    (guard/audit/_fast.py; same report)."""
    assert unit.data is not None
    c = _collector(unit, policy)
    adapter = ADAPTERS[unit.format]
    cap = unit.max_line
    transcripts = messages = 0
    lines = split_lines(unit.data)
    typed = (
        typed_records(lines, cap, c, utf8=valid_utf8(unit.data))
        if fast and unit.format == "openai"
        else {}
    )
    numbers: Iterable[int] = range(1, len(lines) + 1)
    if typed:
        # the clean records (a message count) are counted at once and not visited: most
        # records of an audit are clean, and a Python step per line shows in its speed
        taken, known = list(typed), list(typed.values())
        clean = list(map(isinstance, known, repeat(int)))
        messages += sum(compress(known, clean))  # type: ignore[arg-type]
        transcripts += sum(clean)
        numbers = sorted(set(numbers).difference(compress(taken, clean)))
    for number in numbers:
        raw = lines[number - 1]
        if not raw or raw.isspace():
            continue
        if len(raw) > cap:
            c.error(number, overlong(len(raw), cap))
            continue
        if number in typed:
            planned = typed[number]
            assert not isinstance(planned, int)
            messages += add_parts(planned, c, number)
            transcripts += 1
            continue
        try:
            obj = decode_line(raw)
        except (ValueError, RecursionError) as exc:
            obj = _salvage(raw, lines[number - 2] if number > 1 else b"")
            if obj is _UNPARSED:
                c.error(number, _json_error(exc, raw))
                continue
        got = read_record(adapter, obj, c, number, "reading this line")
        if got is None:
            continue
        messages += got
        transcripts += 1
    return _result(c, transcripts, messages, len(unit.data), len(lines) - 1)


def run_objects(unit: Unit, policy: Policy) -> UnitResult:
    assert unit.objects is not None
    c = _collector(unit, policy)
    adapter = ADAPTERS[unit.format]
    transcripts = messages = 0
    for number, obj in unit.objects:
        got = read_record(adapter, obj, c, number, "reading this transcript")
        if got is None:
            continue
        messages += got
        transcripts += 1
        c.maybe_judge()
    return _result(c, transcripts, messages, 0)


def _decoded_lines(stream: BinaryIO, c: Collector, counter: list[int], cap: int) -> Iterator[str]:
    """The lines of a text stream, decoded; an undecodable line is an error entry and read with
    replacement characters, a line over the cap an error entry and read as an empty line."""
    for number, (raw, size) in enumerate(capped_lines(stream, cap), 1):
        counter[0] += size
        if raw is None:
            c.error(number, overlong(size - 1, cap))  # without its line break
            yield "\n"
            continue
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            c.error(number, f"invalid UTF-8: byte 0x{raw[exc.start]:02x} (column {exc.start + 1})")
            yield raw.decode("utf-8", "replace")


def _open_unit(unit: Unit) -> BinaryIO:
    if unit.stream is not None:
        return unit.stream
    assert unit.source is not None
    return open_binary(open(unit.source, "rb"))  # closed by the caller


def run_harmony(unit: Unit, policy: Policy) -> UnitResult:
    c = _collector(unit, policy)
    counter = [0]
    transcripts = messages = 0
    # the splitter (and the scanners it reads headers with) only for Harmony input
    from guard.audit._harmony import HarmonySplitter

    splitter = HarmonySplitter()

    def take(done: list[Any]) -> None:
        nonlocal transcripts, messages
        for t in done:
            for line, problem in t.problems:
                c.error(line, problem)
            if t.messages:
                transcripts += 1
                messages += harmony_transcript(t, c)
        c.maybe_judge()

    stream = _open_unit(unit)
    try:
        for text in _decoded_lines(stream, c, counter, unit.max_line):
            done = splitter.feed(text)
            if done:
                take(done)
        take(splitter.finish())
    except (OSError, EOFError) as exc:
        c.error(max(splitter.line, 1), f"cannot read further: {exc}")
        take(splitter.finish())
    finally:
        if unit.stream is None:
            stream.close()
    return _result(c, transcripts, messages, counter[0])


def _read_whole(unit: Unit, c: Collector) -> tuple[str, int] | None:
    """A text or raw file, read whole and decoded (``None``: it could not be read)."""
    stream = _open_unit(unit)
    try:
        data = stream.read(unit.max_line + 1)
        if len(data) > unit.max_line:
            size = len(data) + skip_all(stream)
            c.error(
                1,
                f"{size:,} bytes of model output are over the cap of {unit.max_line:,}"
                " bytes (--max-line-bytes): not read",
            )
            return None
    except (OSError, EOFError) as exc:
        c.error(1, f"cannot read: {exc}")
        return None
    finally:
        if unit.stream is None:
            stream.close()
    try:
        return data.decode("utf-8"), len(data)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        c.error(line, f"invalid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}")
        return data.decode("utf-8", "replace"), len(data)


def _run_whole(
    unit: Unit, policy: Policy, parts: Callable[[Unit, Collector, str], tuple[int, int]]
) -> UnitResult:
    """A file judged whole: read and decoded, then ``parts`` hands its parts to the collector
    and returns its numbers of transcripts and messages."""
    c = _collector(unit, policy)
    read = _read_whole(unit, c)
    if read is None:
        return _result(c, 0, 0, 0)
    text, nbytes = read
    transcripts, messages = parts(unit, c, text)
    return _result(c, transcripts, messages, nbytes)


def _raw_parts(unit: Unit, c: Collector, text: str) -> tuple[int, int]:
    transcripts = messages = 0
    for t in split(text, unit.dialect):
        transcripts += 1
        messages += wire_transcript(t, unit.dialect, c)
        c.maybe_judge()
    return transcripts, messages


def _text_parts(unit: Unit, c: Collector, text: str) -> tuple[int, int]:
    if not text.strip():
        c.error(1, "empty file: no model output")
        return 0, 0
    c.out.append((next(c.seq), "text", text, 1, 0, "assistant", "content", None))
    return 1, 1


def run_raw(unit: Unit, policy: Policy) -> UnitResult:
    """A raw transcript file of a dialect other than Harmony (guard/audit/_wire.py)."""
    return _run_whole(unit, policy, _raw_parts)


def run_text(unit: Unit, policy: Policy) -> UnitResult:
    """A ``text`` file: the whole file is one message of model output."""
    return _run_whole(unit, policy, _text_parts)


_WORKER_POLICY: list[Policy] = [DEFAULT_POLICY]


def init_worker(policy: Policy) -> None:
    """Set up a worker process: the policy its units are judged by."""
    _WORKER_POLICY[0] = policy


def run_in_worker(unit: Unit) -> UnitResult:
    """Run a unit in a worker process (set up by :func:`init_worker`)."""
    return run_unit(unit, _WORKER_POLICY[0])


@contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a unit runs.

    A unit allocates many small containers (parsed messages, one tuple per part) and creates no
    reference cycles; the collector would traverse them again and again (it halves the cost of
    auditing clean data). Reference counting still frees everything as usual.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _read_span(unit: Unit) -> Unit:
    """A span unit with its bytes read (or with the read error as its result)."""
    assert unit.source is not None and unit.span is not None
    offset, length = unit.span
    try:
        with open(unit.source, "rb") as f:
            f.seek(offset)
            data = f.read(length)
    except OSError as exc:
        return error_unit(unit.path, None, f"cannot read: {describe_read_error(exc)}", unit.index)
    return replace(unit, data=data, span=None, source=None)


def run_unit(unit: Unit, policy: Policy) -> UnitResult:
    """Read, collect and judge one unit. An unexpected exception (a fault of guard that the
    per-line guards did not catch) becomes one internal error entry for the unit's input."""
    if unit.result is not None:
        return unit.result
    if unit.span is not None:
        unit = _read_span(unit)
        if unit.result is not None:
            return unit.result
    try:
        with _no_gc():
            if unit.objects is not None:
                return run_objects(unit, policy)
            if unit.format == "harmony":
                return run_harmony(unit, policy)
            if unit.format == "text":
                return run_text(unit, policy)
            if unit.format == "raw":
                return run_raw(unit, policy)
            return run_json_lines(unit, policy)
    except Exception as exc:
        errors: list[AuditError] = []
        internal_error(errors, unit.path, None, exc, "auditing this input")
        return lost_result(unit, errors[0].error)
