"""The audit engine: read a unit of input, collect the parts of its transcripts, judge them.

Work is shaped so that clean data costs little beyond ``json.loads``. Parts are collected per
surface across many transcripts and judged in batches: the anchor signals (the only ones that can
start a finding: without an anchor hit the gate's verdict is clean) scan the batch's texts joined
by a separator once, and only the texts that an anchor hit touches are judged one by one with
:func:`guard.detect`, exactly as a caller would. That is sound because the built-in anchor
signals are local: none matches across a line break (``:`` for tool names, which may not contain
line breaks), none needs the end of the text, and a lookbehind at a text's start sees the
separator as it would see the start. The one rule that reads a text's start (signal K: a text
opening with ``analysis``) is checked per text. When a signal plugin adds other anchor signals,
batching is off and every text is judged alone.
"""

from __future__ import annotations

import gc
import gzip
import io
import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Literal

from guard._detect import detect
from guard._log import preview
from guard.audit._formats import ADAPTERS, Part, ShapeError, harmony_transcript
from guard.audit._harmony import HarmonySplitter
from guard.audit.report import AuditError, Finding
from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY, Policy, prefilter
from guard.models import Dialect, Surface

__all__ = ["Collector", "Unit", "UnitResult", "open_binary", "run_unit"]

#: Judge a batch once this many parts are collected (a JSONL unit is judged whole).
BATCH_PARTS = 50_000
_PREVIEW_SPAN = 64


#: Surfaces judged together: the texts of a group are prefiltered in one search for the
#: triggers of the anchor signals of its surfaces (extra triggers only add candidates).
_GROUPS: tuple[frozenset[Surface], ...] = (
    frozenset({Surface.TEXT, Surface.THINKING, Surface.TOOL_ARG}),
    frozenset({Surface.USER, Surface.TOOL_RESULT}),
    frozenset({Surface.TOOL_NAME}),
)


def candidates(
    texts: list[str], surfaces: frozenset[Surface], dialect: Dialect, policy: Policy
) -> list[int]:
    """Indices of the texts that may yield a finding on their surfaces (a superset)."""
    found = prefilter(dialect, surfaces, policy.disabled)
    if found is None:
        return list(range(len(texts)))
    return found.candidates(texts)


class Collector:
    """Collects the parts of the transcripts of one unit (the :class:`Sink` the adapters fill)
    and judges them in batches."""

    def __init__(self, path: str, dialect: Dialect, policy: Policy) -> None:
        self.path = path
        self.dialect = dialect
        self.policy = policy
        self.out: list[Part] = []
        self.inp: list[Part] = []
        self.names: list[Part] = []
        self.seq: Iterator[int] = itertools.count()
        #: (sequence number, finding): a forgery sorts before the body part that follows it
        self.forgeries: list[tuple[int, Finding]] = []
        self.findings: list[Finding] = []
        self.errors: list[AuditError] = []

    def error(self, line: int, text: str) -> None:
        self.errors.append(AuditError(path=self.path, line=line, error=text))

    def forgery(self, line: int, message: int, role: str, reason: str, preview_text: str) -> None:
        finding = Finding(
            path=self.path,
            line=line,
            message=message,
            role=role,
            surface=Surface.TOOL_RESULT,
            kind="forgery",
            signals=("R",),
            cut=None,
            reason=reason,
            part="header",
            preview=preview_text,
        )
        self.forgeries.append((next(self.seq), finding))

    def maybe_judge(self, limit: int = BATCH_PARTS) -> None:
        if len(self.out) + len(self.inp) + len(self.names) >= limit:
            self.judge()

    def judge(self) -> None:
        """Judge everything collected so far; findings go to ``self.findings`` in input order."""
        found: list[tuple[int, Finding]] = list(self.forgeries)
        for parts, surfaces in zip((self.out, self.inp, self.names), _GROUPS, strict=True):
            if not parts:
                continue
            for k in candidates([p[2] for p in parts], surfaces, self.dialect, self.policy):
                finding = self._judge_one(parts[k])
                if finding is not None:
                    found.append((parts[k][0], finding))
        if found:
            found.sort(key=lambda item: item[0])
            self.findings.extend(f for _, f in found)
        self.out, self.inp, self.names = [], [], []
        self.forgeries = []

    def _judge_one(self, part: Part) -> Finding | None:
        _seq, value, text, line, message, role, name, tool_name = part
        surface = Surface(value)
        verdict = detect(text, surface, self.dialect, self.policy, tool_name=tool_name)
        kind: Literal["leak", "injection"]
        if verdict.leak:
            kind = "leak"
            cut = verdict.cut
        elif verdict.injection:
            kind = "injection"
            spellings = set(verdict.injection)
            cut = next((h.start for h in verdict.hits if h.evidence in spellings), None)
        else:
            return None
        start = cut or 0
        return Finding(
            path=self.path,
            line=line,
            message=message,
            role=role,
            surface=surface,
            kind=kind,
            signals=verdict.signals,
            cut=cut,
            reason=verdict.reason,
            part=name,
            tool_name=tool_name,
            preview=preview(text[start : start + _PREVIEW_SPAN]),
        )


# ---------------------------------------------------------------------------------------------
# Units of work


@dataclass(slots=True)
class Unit:
    """A piece of one input: ``data`` (whole lines of a JSONL file, numbered from 1 within the
    unit: ``relative``),
    or a ``source`` path that the worker opens and streams (Harmony and text files), or an open
    ``stream`` (run in the calling process), or ``objects`` (in-memory transcripts, likewise)."""

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

    def __post_init__(self) -> None:
        if self.data is not None:
            self.relative = True

    @property
    def local(self) -> bool:
        """Must run in the calling process (holds an open stream or Python objects)."""
        return self.result is not None or self.stream is not None or self.objects is not None


@dataclass(slots=True)
class UnitResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[AuditError] = field(default_factory=list)
    transcripts: int = 0
    messages: int = 0
    bytes: int = 0
    #: line breaks in the unit's data (relative units)
    lines: int = 0


_GZIP_MAGIC = b"\x1f\x8b"


def open_binary(stream: BinaryIO) -> BinaryIO:
    """``stream``, transparently decompressed when it starts with the gzip magic number."""
    buffered: Any = stream
    if not hasattr(buffered, "peek"):
        buffered = io.BufferedReader(_RawReader(stream))
    if buffered.peek(2)[:2] == _GZIP_MAGIC:
        return gzip.GzipFile(fileobj=buffered, mode="rb")  # type: ignore[return-value]
    return buffered  # type: ignore[no-any-return]


class _RawReader(io.RawIOBase):
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


def _json_error(exc: Exception) -> str:
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
    return Collector(unit.path, get_dialect(unit.dialect), policy)


def _result(
    c: Collector, transcripts: int, messages: int, nbytes: int, lines: int = 0
) -> UnitResult:
    c.judge()
    return UnitResult(c.findings, c.errors, transcripts, messages, nbytes, lines)


def run_json_lines(unit: Unit, policy: Policy) -> UnitResult:
    assert unit.data is not None
    c = _collector(unit, policy)
    adapter = ADAPTERS[unit.format]
    loads = json.loads
    transcripts = messages = 0
    lines = unit.data.split(b"\n")
    for number, raw in enumerate(lines, 1):
        if not raw or raw.isspace():
            continue
        try:
            obj = loads(raw)
        except (ValueError, RecursionError) as exc:
            c.error(number, _json_error(exc))
            continue
        try:
            messages += adapter(obj, c, number)
        except ShapeError as exc:
            c.error(number, str(exc))
            continue
        transcripts += 1
    return _result(c, transcripts, messages, len(unit.data), len(lines) - 1)


def run_objects(unit: Unit, policy: Policy) -> UnitResult:
    assert unit.objects is not None
    c = _collector(unit, policy)
    adapter = ADAPTERS[unit.format]
    transcripts = messages = 0
    for number, obj in unit.objects:
        try:
            messages += adapter(obj, c, number)
        except ShapeError as exc:
            c.error(number, str(exc))
            continue
        transcripts += 1
        c.maybe_judge()
    return _result(c, transcripts, messages, 0)


def _decoded_lines(stream: BinaryIO, c: Collector, counter: list[int]) -> Iterator[str]:
    for number, raw in enumerate(stream, 1):
        counter[0] += len(raw)
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
        for text in _decoded_lines(stream, c, counter):
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


def run_text(unit: Unit, policy: Policy) -> UnitResult:
    c = _collector(unit, policy)
    stream = _open_unit(unit)
    try:
        data = stream.read()
    except (OSError, EOFError) as exc:
        c.error(1, f"cannot read: {exc}")
        return _result(c, 0, 0, 0)
    finally:
        if unit.stream is None:
            stream.close()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        c.error(line, f"invalid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}")
        text = data.decode("utf-8", "replace")
    if not text.strip():
        c.error(1, "empty file: no model output")
        return _result(c, 0, 0, len(data))
    c.out.append((next(c.seq), "text", text, 1, 0, "assistant", "content", None))
    return _result(c, 1, 1, len(data))


_WORKER_POLICY: list[Policy] = [DEFAULT_POLICY]


def init_worker(policy: Policy) -> None:
    _WORKER_POLICY[0] = policy


def run_in_worker(unit: Unit) -> UnitResult:
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


def run_unit(unit: Unit, policy: Policy) -> UnitResult:
    if unit.result is not None:
        return unit.result
    with _no_gc():
        if unit.objects is not None:
            return run_objects(unit, policy)
        if unit.format == "harmony":
            return run_harmony(unit, policy)
        if unit.format == "text":
            return run_text(unit, policy)
        return run_json_lines(unit, policy)
