"""The human report of ``guard audit``: the findings grouped by file, errors, inputs and
totals (or, with ``summary``, the totals alone)."""

from __future__ import annotations

import unicodedata

from guard.audit._annotations import Style, render_located
from guard.audit.report import AuditReport, Finding

__all__ = ["failed_line", "finding_rows", "format_size", "render"]

_MAX_INPUT_LINES = 20


def format_size(n: int) -> str:
    """A byte count for people: kB below 100 kB, else MB."""
    return f"{n / 1e6:,.1f} MB" if n >= 100_000 else f"{n / 1e3:,.1f} kB"


def _n(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{k} {v:,}" for k, v in d.items()) or "none"


def _shown(text: str) -> str:
    return text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def display_width(text: str) -> int:
    """Columns ``text`` takes on a terminal: wide and fullwidth East-Asian characters take
    two, combining marks and zero-width characters none, the rest one."""
    if text.isascii():
        return len(text)
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _pad(text: str, width: int, *, right: bool = False) -> str:
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill


def finding_rows(findings: list[Finding]) -> list[str]:
    """The findings as table rows under a heading line (columns aligned)."""
    head = ("LINE", "MSG", "ROLE", "SURFACE", "KIND", "SIGNALS", "CUT", "EVIDENCE", "CONTEXT")
    rows = [
        (
            str(f.line),
            str(f.message),
            f.role,
            f.surface.value,
            f.kind,
            "+".join(f.signals) or "-",
            "-" if f.cut is None else str(f.cut),
            _shown(f.evidence) or "-",
            _shown(f.context or f.preview),
        )
        for f in findings
    ]
    widths = [
        max(display_width(head[i]), *(display_width(r[i]) for r in rows))
        for i in range(len(head) - 1)
    ]
    right = {0, 1, 6}

    def fmt(row: tuple[str, ...]) -> str:
        cells = [_pad(row[i], widths[i], right=i in right) for i in range(len(widths))]
        return "  " + "  ".join([*cells, row[-1]]).rstrip()

    return [fmt(head), *(fmt(r) for r in rows)]


def _file_summary(findings: list[Finding]) -> str:
    kinds = {"leak": 0, "injection": 0, "forgery": 0}
    for f in findings:
        kinds[f.kind] += 1
    counts = [_n(kinds["leak"], "leak"), _n(kinds["injection"], "injection")]
    counts.append(f"{kinds['forgery']:,} forger{'y' if kinds['forgery'] == 1 else 'ies'}")
    return ", ".join(counts)


def _grouped(findings: list[Finding]) -> list[str]:
    """The findings table, one block per file (in report order) under a heading with the
    file's counts."""
    by_file: dict[str, list[Finding]] = {}
    for f in findings:
        by_file.setdefault(f.path, []).append(f)
    lines: list[str] = []
    for path, group in by_file.items():
        if lines:
            lines.append("")
        lines.append(f"{path}: {_file_summary(group)}")
        lines += finding_rows(group)
    return lines


def _totals(report: AuditReport) -> list[str]:
    s = report.summary
    rate = ""
    if s.elapsed > 0:
        rate = f" ({s.bytes / 1e6 / s.elapsed:,.1f} MB/s, {s.messages / s.elapsed:,.0f} messages/s)"
    return [
        f"transcripts {s.transcripts:,}, messages {s.messages:,}, {format_size(s.bytes)},"
        f" {s.elapsed:.2f} s{rate}, workers {s.workers}",
        f"leaks {s.leaks:,} (by signal: {_counts(s.leaks_by_signal)};"
        f" by surface: {_counts(s.leaks_by_surface)})",
        f"injections {s.injections:,}, forgeries {s.forgeries:,}, errors {s.errors:,}",
    ]


def failed_line(report: AuditReport, fail_on: str) -> str | None:
    """The line that says why the run fails at ``fail_on`` (``None`` when it passes)."""
    code, why = report.failure(fail_on)
    if code == 0:
        return None
    how = f", --fail-on {fail_on}" if code == 1 else ""
    return f"FAILED (exit {code}{how}): {why}"


def render(
    report: AuditReport,
    *,
    summary: bool = False,
    fail_on: str | None = None,
    style: Style = "table",
) -> str:
    """The human report: the findings grouped by file (each file's counts, then a row per
    finding with its evidence and masked context), errors, inputs and totals. ``summary``:
    the totals only. ``style="lines"`` or ``"github"``: one line per finding and error
    (:mod:`guard.audit._annotations`), then the totals. With ``fail_on`` (``guard audit
    --fail-on``), a run that fails opens with a line that says what failed and the exit code."""
    head = failed_line(report, fail_on) if fail_on is not None else None
    lines: list[str] = [] if head is None else [head]
    if summary:
        return "\n".join([*lines, *_totals(report)])
    if style != "table":
        return "\n".join([*lines, render_located(report, style, _totals(report))])
    s = report.summary
    if report.findings:
        lines += _grouped(report.findings)
    else:
        lines.append("no findings")
    if report.errors:
        lines += ["", f"errors ({len(report.errors):,}):"]
        lines += [
            f"  {e.path}{'' if e.line is None else f':{e.line}'}: {e.error}" for e in report.errors
        ]
    lines += ["", "inputs:"]
    for f in s.files[:_MAX_INPUT_LINES]:
        how = f.note or ("sniffed" if f.sniffed else "given")
        counts = [_n(f.transcripts, "transcript"), _n(f.messages, "message"), format_size(f.bytes)]
        if f.errors:
            counts.append(_n(f.errors, "error"))
        lines.append(f"  {f.path}: {f.format} ({how}), dialect {f.dialect}, {', '.join(counts)}")
    if len(s.files) > _MAX_INPUT_LINES:
        lines.append(f"  ... and {len(s.files) - _MAX_INPUT_LINES:,} more (see --json)")
    for skipped in s.skipped:
        lines.append(f"  {skipped.path}: skipped: {skipped.reason}")
    lines += ["", *_totals(report)]
    return "\n".join(lines)
