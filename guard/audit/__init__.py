"""Audit stored transcripts: every message of every transcript through the detection pipeline.

``guard.audit(sources)`` reads JSONL transcripts (OpenAI chat, Responses items, ChatGLM3
histories), raw Harmony text, plain model output, gzip-compressed or not, from files,
directories, streams or Python objects, and returns an :class:`AuditReport`: model output
(``text``, ``thinking``, ``tool_arg``, ``tool_name``) gets leak verdicts, user input and tool
results get injection findings, and in raw Harmony transcripts a tool result written where the
assistant was writing is a ``forgery`` finding. Formats and mappings: :mod:`guard._audit_formats`;
the Harmony splitter and its forgery rule: :mod:`guard._audit_harmony`; how batching keeps clean
data cheap: :mod:`guard._audit_engine`.

Inputs are streamed: files are read in chunks of whole lines and never held whole (a ``text``
file is one message and is read whole). With ``workers > 1`` files and chunks of large files are
judged in worker processes and merged in input order, so the report is the same for any number
of workers. A bad line, message or file becomes an error entry with its path and line; the rest
is still audited.
"""

from __future__ import annotations

import io
import os
import sys
import time
import types
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from guard._log import get_logger
from guard.audit._engine import (
    Unit,
    UnitResult,
    _RawReader,
    init_worker,
    open_binary,
    run_in_worker,
    run_unit,
)
from guard.audit._formats import FORMAT_DIALECT, JSON_FORMATS, classify, sniff
from guard.audit.report import (
    FAIL_ON,
    FORMATS,
    AuditError,
    AuditReport,
    AuditSummary,
    FileSummary,
    Finding,
    SkippedFile,
)
from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY, Policy
from guard.models import Dialect, Surface

__all__ = [
    "FAIL_ON",
    "FORMATS",
    "AuditError",
    "AuditReport",
    "AuditSummary",
    "FileSummary",
    "Finding",
    "SkippedFile",
    "audit",
    "input_bytes",
]

_log = get_logger("guard.audit")

#: Size of one unit of work (whole lines of a JSONL file).
CHUNK_BYTES = 1 << 20
_HEAD_BYTES = 1 << 16
_HEAD_MAX = 1 << 26
_MEMORY_CHUNK = 2000
_READ_ERRORS = (OSError, EOFError, zlib.error)

#: One input: a path, a file object, or an in-memory transcript.
Source = str | os.PathLike[str] | BinaryIO | Mapping[str, Any] | list[Any]


# ---------------------------------------------------------------------------------------------
# Inputs


def _walk(directory: Path) -> Iterator[Path]:
    """Regular files under ``directory``, sorted; hidden files and directories are not read."""
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                yield Path(root) / name


def input_bytes(paths: Iterable[str]) -> int | None:
    """Total size of the files that ``paths`` name (for a progress bar), or ``None`` when it
    cannot be known in advance (stdin, compressed files)."""
    total = 0
    for p in paths:
        if p == "-":
            return None
        path = Path(p)
        files = _walk(path) if path.is_dir() else [path]
        for f in files:
            if f.suffix == ".gz":
                return None
            try:
                total += f.stat().st_size
            except OSError:
                continue
    return total


def _is_path(item: object) -> bool:
    return isinstance(item, str | os.PathLike)


def _is_stream(item: object) -> bool:
    return hasattr(item, "read") and not isinstance(item, str | bytes)


_SIGNAL_ORDER = "HKMNCGSBRT"
_SURFACE_ORDER = [s.value for s in Surface]


def _signal_rank(code: str) -> tuple[int, str]:
    """Signals in the order of the README's table; plugin codes after, alphabetically."""
    i = _SIGNAL_ORDER.find(code)
    return (i if i >= 0 else len(_SIGNAL_ORDER), code)


class _Report:
    """Builds the report as unit results arrive, in input order."""

    def __init__(self, workers: int) -> None:
        self.report = AuditReport(summary=AuditSummary(workers=workers))
        self.files = self.report.summary.files
        #: lines of each input read so far (JSONL units number their lines from 1)
        self.lines: dict[int, int] = {}

    def add_file(self, path: str, fmt: str, sniffed: bool, dialect: str, note: str = "") -> int:
        self.files.append(
            FileSummary(path=path, format=fmt, sniffed=sniffed, dialect=dialect, note=note)
        )
        _log.info("guard.audit.input", format=fmt, sniffed=sniffed, dialect=dialect)
        return len(self.files) - 1

    def skip(self, path: str, reason: str) -> None:
        self.report.summary.skipped.append(SkippedFile(path=path, reason=reason))

    def merge(self, unit: Unit, result: UnitResult) -> None:
        r = self.report
        if unit.relative:
            offset = self.lines.get(unit.index, 0)
            self.lines[unit.index] = offset + result.lines
            if offset:
                r.findings.extend(_shift(f, offset) for f in result.findings)
                r.errors.extend(_shift(e, offset) for e in result.errors)
            else:
                r.findings.extend(result.findings)
                r.errors.extend(result.errors)
        else:
            r.findings.extend(result.findings)
            r.errors.extend(result.errors)
        s = r.summary
        s.transcripts += result.transcripts
        s.messages += result.messages
        s.bytes += result.bytes
        if unit.index >= 0:
            f = self.files[unit.index]
            f.transcripts += result.transcripts
            f.messages += result.messages
            f.bytes += result.bytes
            f.errors += len(result.errors)

    def finish(self, elapsed: float) -> AuditReport:
        r = self.report
        s = r.summary
        by_signal: dict[str, int] = {}
        by_surface: dict[str, int] = {}
        for f in r.findings:
            if f.kind == "leak":
                s.leaks += 1
                for code in f.signals:
                    by_signal[code] = by_signal.get(code, 0) + 1
                by_surface[f.surface.value] = by_surface.get(f.surface.value, 0) + 1
            elif f.kind == "injection":
                s.injections += 1
            else:
                s.forgeries += 1
        s.leaks_by_signal = dict(sorted(by_signal.items(), key=lambda kv: _signal_rank(kv[0])))
        s.leaks_by_surface = dict(
            sorted(by_surface.items(), key=lambda kv: _SURFACE_ORDER.index(kv[0]))
        )
        s.findings = len(r.findings)
        s.errors = len(r.errors)
        s.elapsed = round(elapsed, 3)
        return r


_Lined = TypeVar("_Lined", Finding, AuditError)


def _shift(item: _Lined, offset: int) -> _Lined:
    if item.line is None:
        return item
    return item.model_copy(update={"line": item.line + offset})


def _error_unit(path: str, line: int | None, text: str, index: int = -1) -> Unit:
    error = AuditError(path=path, line=line, error=text)
    return Unit(index=index, path=path, format="", dialect="", result=UnitResult(errors=[error]))


def _read_error(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


class _Planner:
    """Turns sources into units of work, registering each input in the report."""

    def __init__(self, fmt: str, dialect: str | None, report: _Report) -> None:
        self.format = fmt
        self.dialect = dialect
        self.report = report

    def _dialect_for(self, fmt: str) -> str:
        return self.dialect or FORMAT_DIALECT[fmt]

    def plan(self, sources: Source | Iterable[Source]) -> Iterator[Unit]:
        if _is_path(sources) or _is_stream(sources):
            items: Iterable[Any] = [sources]
        elif isinstance(sources, Mapping):
            items = [sources]  # one in-memory transcript
        elif isinstance(sources, Iterable):
            items = sources
        else:
            raise TypeError(
                "audit() expects a path, a file object, or an iterable of paths, file objects"
                f" and transcripts, got {type(sources).__name__}"
            )
        memory: list[Any] | None = None  # [index or None, chunk]
        for position, item in enumerate(items, 1):
            if isinstance(item, Mapping | list):
                if memory is None:
                    memory = [None, []]
                yield from self._memory(memory, position, item)
                continue
            if memory is not None:
                yield from self._flush_memory(memory)
                memory = None
            if _is_path(item):
                yield from self._path(os.fspath(item))
            elif _is_stream(item):
                label = str(getattr(item, "name", "<stream>"))
                yield from self._stream(label, item, None)
            else:
                raise TypeError(
                    "each source must be a path, a file object, or a transcript (a mapping or a"
                    f" list), got {type(item).__name__}"
                )
        if memory is not None:
            yield from self._flush_memory(memory)

    # -- in-memory transcripts --------------------------------------------------------------

    def _memory(self, memory: list[Any], position: int, obj: object) -> Iterator[Unit]:
        if self.format in ("harmony", "text"):
            raise ValueError(
                f"format {self.format!r} reads text: pass a file or a file object, not"
                " transcript objects"
            )
        if memory[0] is None:
            fmt = self.format if self.format != "auto" else classify(obj)
            if fmt is None:
                yield _error_unit(
                    "<memory>",
                    position,
                    "not a transcript (expected messages, input/output items, or a message list)",
                )
                return
            memory[0] = self.report.add_file(
                "<memory>", fmt, self.format == "auto", self._dialect_for(fmt)
            )
        memory[1].append((position, obj))
        if len(memory[1]) >= _MEMORY_CHUNK:
            yield from self._flush_memory(memory)

    def _flush_memory(self, memory: list[Any]) -> Iterator[Unit]:
        if memory[0] is not None and memory[1]:
            f = self.report.files[memory[0]]
            yield Unit(
                index=memory[0],
                path="<memory>",
                format=f.format,
                dialect=f.dialect,
                objects=memory[1],
            )
        memory[1] = []

    # -- files and streams ------------------------------------------------------------------

    def _path(self, p: str) -> Iterator[Unit]:
        if p == "-":
            yield from self._stream("<stdin>", sys.stdin.buffer, None)
            return
        path = Path(p)
        if path.is_dir():
            empty = True
            for file in _walk(path):
                empty = False
                yield from self._file(str(file))
            if empty:
                self.report.skip(p, "directory holds no files")
            return
        yield from self._file(p)

    def _file(self, p: str) -> Iterator[Unit]:
        try:
            raw = open(p, "rb")  # noqa: SIM115 - closed below, after its units are planned
        except OSError as exc:
            yield _error_unit(p, None, f"cannot read: {_read_error(exc)}")
            return
        try:
            yield from self._stream(p, raw, p)
        finally:
            raw.close()

    def _stream(self, label: str, raw: Any, reopen: str | None) -> Iterator[Unit]:
        try:
            stream = open_binary(raw)
            head, at_eof = _head(stream)
        except _READ_ERRORS as exc:
            yield _error_unit(label, None, f"cannot read: {_read_error(exc)}")
            return
        note = ""
        if self.format == "auto":
            fmt, note = sniff(head, at_eof)
            if fmt is None:
                if note == "empty":
                    yield _error_unit(label, None, "empty file: no transcripts")
                else:
                    self.report.skip(label, note)
                return
        else:
            fmt = self.format
            if not head.strip():
                yield _error_unit(label, None, "empty file: no transcripts")
                return
        dialect = self._dialect_for(fmt)
        index = self.report.add_file(
            label, fmt, self.format == "auto", dialect, "" if note == "sniffed" else note
        )
        if fmt in JSON_FORMATS:
            yield from _json_units(index, label, fmt, dialect, stream, head, at_eof)
        elif reopen is not None:
            yield Unit(index=index, path=label, format=fmt, dialect=dialect, source=reopen)
        else:
            rest = io.BufferedReader(_RawReader(stream, prefix=head))
            yield Unit(index=index, path=label, format=fmt, dialect=dialect, stream=rest)


def _head(stream: BinaryIO) -> tuple[bytes, bool]:
    """The first bytes of ``stream``: at least one whole line when there is one, and whether the
    stream ended."""
    head = stream.read(_HEAD_BYTES)
    if len(head) < _HEAD_BYTES:
        return head, True
    while b"\n" not in head and len(head) < _HEAD_MAX:
        more = stream.read(_HEAD_BYTES)
        if not more:
            return head, True
        head += more
    return head, False


def _json_units(
    index: int, label: str, fmt: str, dialect: str, stream: BinaryIO, head: bytes, at_eof: bool
) -> Iterator[Unit]:
    """Whole lines of a JSONL stream in units of about :data:`CHUNK_BYTES`. Line numbers in a
    unit's result are relative to the unit; the report shifts them when it merges."""

    def unit(data: bytes) -> Unit:
        return Unit(index=index, path=label, format=fmt, dialect=dialect, data=data)

    def failed(exc: BaseException) -> Unit:
        u = _error_unit(label, 1, f"cannot read further: {_read_error(exc)}", index)
        u.relative = True
        return u

    pending = head
    while True:
        if not at_eof and len(pending) < CHUNK_BYTES:
            try:
                block = stream.read(CHUNK_BYTES)
            except _READ_ERRORS as exc:
                cut = pending.rfind(b"\n") + 1
                if cut:
                    yield unit(pending[:cut])
                yield failed(exc)
                return
            if block:
                pending += block
                continue
            at_eof = True
        if at_eof:
            if pending:
                yield unit(pending)
            return
        cut = pending.rfind(b"\n") + 1
        if cut == 0:  # one line longer than a chunk: read on
            try:
                block = stream.read(CHUNK_BYTES)
            except _READ_ERRORS as exc:
                yield failed(exc)
                return
            if block:
                pending += block
            else:
                at_eof = True
            continue
        yield unit(pending[:cut])
        pending = pending[cut:]


# ---------------------------------------------------------------------------------------------
# Running


def _execute(
    units: Iterator[Unit], workers: int, policy: Policy
) -> Iterator[tuple[Unit, UnitResult]]:
    """Run units, in worker processes when ``workers > 1``; results come back in input order."""
    if workers <= 1:
        for unit in units:
            yield unit, run_unit(unit, policy)
        return
    pool: ProcessPoolExecutor | None = None
    window: deque[tuple[Unit, Future[UnitResult]]] = deque()
    limit = 2 * workers + 2
    try:
        for unit in units:
            if unit.local:
                done: Future[UnitResult] = Future()
                done.set_result(run_unit(unit, policy))
                window.append((unit, done))
            else:
                if pool is None:
                    pool = ProcessPoolExecutor(
                        max_workers=workers, initializer=init_worker, initargs=(policy,)
                    )
                window.append((unit, pool.submit(run_in_worker, unit)))
            while len(window) >= limit or (window and window[0][1].done()):
                head, future = window.popleft()
                yield head, future.result()
        while window:
            head, future = window.popleft()
            yield head, future.result()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _policy(value: Policy | str | os.PathLike[str] | None) -> Policy:
    if value is None:
        return DEFAULT_POLICY
    if isinstance(value, Policy):
        return value
    if _is_path(value):
        return Policy.load(os.fspath(value))
    raise TypeError(f"policy must be a guard.Policy, a path or None, got {type(value).__name__}")


def audit(
    sources: Source | Iterable[Source],
    *,
    format: str = "auto",
    dialect: str | Dialect | None = None,
    policy: Policy | str | os.PathLike[str] | None = None,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> AuditReport:
    """Audit transcripts and return the report.

    Args:
        sources: a path (file or directory, recursed; ``-`` is stdin; ``.gz`` files are
            decompressed), a binary or text file object, or an iterable of those and of
            in-memory transcripts (a mapping such as ``{"messages": [...]}``, or a message or
            item list). In-memory transcripts are numbered by their 1-based position in the
            iterable; they are read lazily, so a generator streams.
        format: ``auto`` (sniff each input), ``openai``, ``responses``, ``harmony``,
            ``chatglm3`` or ``text``.
        dialect: the wire format to judge against; default ``chatglm3`` for ChatGLM3
            histories, ``harmony`` otherwise.
        policy: the gate's rules (a :class:`~guard.Policy` or a policy file path).
        workers: processes to judge files and chunks of large files in; the report is the
            same for any number.
        progress: called with the bytes and messages done so far, after each unit of work.

    Raises:
        TypeError / ValueError: bad arguments (unknown format or dialect, ``workers < 1``).
        Unreadable or malformed input never raises: it is reported in ``errors``.
    """
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; expected one of: {', '.join(FORMATS)}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an int >= 1, got {workers!r}")
    dialect_name: str | None = None
    if dialect is not None:
        record = get_dialect(dialect)
        if get_dialect(record.name) is not record:
            raise ValueError(f"dialect {record.name!r} is not a registered dialect")
        dialect_name = record.name
    policy_ = _policy(policy)
    start = time.perf_counter()
    builder = _Report(workers)
    planner = _Planner(format, dialect_name, builder)
    _log.info("guard.audit.start", format=format, workers=workers)
    for unit, result in _execute(planner.plan(sources), workers, policy_):
        builder.merge(unit, result)
        if progress is not None:
            s = builder.report.summary
            progress(s.bytes, s.messages)
    report = builder.finish(time.perf_counter() - start)
    s = report.summary
    _log.info(
        "guard.audit.done",
        transcripts=s.transcripts,
        messages=s.messages,
        bytes=s.bytes,
        leaks=s.leaks,
        injections=s.injections,
        forgeries=s.forgeries,
        errors=s.errors,
        elapsed=s.elapsed,
    )
    return report


class _CallableModule(types.ModuleType):
    """``guard.audit`` names both this package and its main function. Importing the package
    binds the package to ``guard.audit``, so the package itself forwards calls to
    :func:`audit`: ``guard.audit(paths)`` works whichever was bound first."""

    def __call__(self, *args: Any, **kwargs: Any) -> AuditReport:
        return audit(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
