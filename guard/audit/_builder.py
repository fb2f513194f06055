"""The report as it is built: inputs registered by the planner, unit results merged in input
order (line numbers of JSONL chunks shifted to the file's), totals counted at the end."""

from __future__ import annotations

from typing import TypeVar

import guard.signals as signals
from guard._log import get_logger
from guard.audit._units import Unit, UnitResult
from guard.audit.report import (
    AuditError,
    AuditReport,
    AuditSummary,
    FileSummary,
    Finding,
    SkippedFile,
)
from guard.models import Surface

__all__ = ["ReportBuilder", "signal_ranks"]

_log = get_logger("guard.audit")

_SURFACE_ORDER = [s.value for s in Surface]


def signal_ranks() -> dict[str, int]:
    """Each signal code's place in the signals' ``order`` (:func:`signals.load_signals`: the
    built-ins in their table's order, plugins by their own ``order``, after built-ins of the
    same order)."""
    return {signal.code: rank for rank, signal in enumerate(signals.load_signals())}


class ReportBuilder:
    """Builds the report as unit results arrive, in input order."""

    def __init__(self, workers: int) -> None:
        self.report = AuditReport(summary=AuditSummary(workers=workers))
        self.files = self.report.summary.files
        #: lines of each input read so far (JSONL units number their lines from 1)
        self.lines: dict[int, int] = {}

    def add_file(self, path: str, fmt: str, sniffed: bool, dialect: str, note: str = "") -> int:
        """Register an input; returns its index in the report's file list."""
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
        if by_signal:
            ranks = signal_ranks()
            unknown = len(ranks)  # a code no loaded signal has: last, alphabetically
            s.leaks_by_signal = dict(
                sorted(by_signal.items(), key=lambda kv: (ranks.get(kv[0], unknown), kv[0]))
            )
        s.leaks_by_surface = dict(
            sorted(by_surface.items(), key=lambda kv: _SURFACE_ORDER.index(kv[0]))
        )
        s.findings = len(r.findings)
        s.errors = len(r.errors)
        s.internal_errors = sum(e.internal for e in r.errors)
        s.elapsed = round(elapsed, 3)
        return r


_Lined = TypeVar("_Lined", Finding, AuditError)


def _shift(item: _Lined, offset: int) -> _Lined:
    if item.line is None:
        return item
    return item.model_copy(update={"line": item.line + offset})
