"""The human report of ``guard audit``: the findings table, errors, inputs and summary."""

from __future__ import annotations

from guard.audit.report import AuditReport, Finding

__all__ = ["format_size", "render"]

_MAX_INPUT_LINES = 20


def format_size(n: int) -> str:
    """A byte count for people: kB below 100 kB, else MB."""
    return f"{n / 1e6:,.1f} MB" if n >= 100_000 else f"{n / 1e3:,.1f} kB"


def _n(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{k} {v:,}" for k, v in d.items()) or "none"


def _table(findings: list[Finding]) -> list[str]:
    head = ("FILE", "LINE", "MSG", "ROLE", "SURFACE", "KIND", "SIGNALS", "CUT", "PREVIEW")
    rows = [
        (
            f.path,
            str(f.line),
            str(f.message),
            f.role,
            f.surface.value,
            f.kind,
            "+".join(f.signals) or "-",
            "-" if f.cut is None else str(f.cut),
            f.preview.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t"),
        )
        for f in findings
    ]
    widths = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(len(head) - 1)]
    right = {1, 2, 7}

    def fmt(row: tuple[str, ...]) -> str:
        cells = [
            row[i].rjust(widths[i]) if i in right else row[i].ljust(widths[i])
            for i in range(len(widths))
        ]
        return "  ".join([*cells, row[-1]]).rstrip()

    return [fmt(head), *(fmt(r) for r in rows)]


def render(report: AuditReport) -> str:
    """The human report: findings table, errors, inputs and summary."""
    s = report.summary
    lines: list[str] = []
    if report.findings:
        lines += _table(report.findings)
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
    rate = ""
    if s.elapsed > 0:
        rate = f" ({s.bytes / 1e6 / s.elapsed:,.1f} MB/s, {s.messages / s.elapsed:,.0f} messages/s)"
    lines += [
        "",
        f"transcripts {s.transcripts:,}, messages {s.messages:,}, {format_size(s.bytes)},"
        f" {s.elapsed:.2f} s{rate}, workers {s.workers}",
        f"leaks {s.leaks:,} (by signal: {_counts(s.leaks_by_signal)};"
        f" by surface: {_counts(s.leaks_by_surface)})",
        f"injections {s.injections:,}, forgeries {s.forgeries:,}, errors {s.errors:,}",
    ]
    return "\n".join(lines)
