"""How ``guard audit`` shows a report: the human table and summary, the progress bar, SARIF."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from guard.audit.report import AuditReport, Finding

__all__ = ["ProgressBar", "render", "to_sarif"]

_MAX_INPUT_LINES = 20


def _mb(n: int) -> str:
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
        counts = [_n(f.transcripts, "transcript"), _n(f.messages, "message"), _mb(f.bytes)]
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
        f"transcripts {s.transcripts:,}, messages {s.messages:,}, {_mb(s.bytes)},"
        f" {s.elapsed:.2f} s{rate}, workers {s.workers}",
        f"leaks {s.leaks:,} (by signal: {_counts(s.leaks_by_signal)};"
        f" by surface: {_counts(s.leaks_by_surface)})",
        f"injections {s.injections:,}, forgeries {s.forgeries:,}, errors {s.errors:,}",
    ]
    return "\n".join(lines)


class ProgressBar:
    """A one-line progress bar with throughput, drawn on a terminal only.

    Nothing is drawn before ``delay`` seconds have passed (short runs stay quiet), and the line
    is redrawn at most every ``interval`` seconds, then erased by :meth:`close`.
    """

    def __init__(
        self,
        stream: TextIO,
        total_bytes: int | None,
        *,
        delay: float = 0.5,
        interval: float = 0.1,
    ) -> None:
        self.stream = stream
        self.total = total_bytes or None
        self.delay = delay
        self.interval = interval
        self.start = time.perf_counter()
        self.last = 0.0
        self.drawn = False

    @classmethod
    def for_terminal(cls, stream: TextIO, total_bytes: int | None) -> ProgressBar | None:
        try:
            return cls(stream, total_bytes) if stream.isatty() else None
        except (AttributeError, ValueError):
            return None

    def __call__(self, nbytes: int, messages: int) -> None:
        now = time.perf_counter()
        elapsed = now - self.start
        if elapsed < self.delay or now - self.last < self.interval:
            return
        self.last = now
        rate = f"{nbytes / 1e6 / elapsed:,.1f} MB/s, {messages / elapsed:,.0f} messages/s"
        if self.total:
            frac = min(nbytes / self.total, 1.0)
            bar = "#" * int(frac * 24)
            text = f"audit {frac:4.0%} [{bar:<24}] {_mb(nbytes)} {rate}"
        else:
            text = f"audit {_mb(nbytes)} {rate}"
        self.stream.write("\r" + text + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


# ---------------------------------------------------------------------------------------------
# SARIF 2.1.0

_RULES: list[dict[str, Any]] = [
    {
        "id": "guard/leak",
        "name": "WireFormatLeak",
        "shortDescription": {"text": "Model output leaks wire-format structure"},
        "fullDescription": {
            "text": "Visible text, thinking, tool arguments or a tool name carry control tokens,"
            " stripped envelopes or routing headers of the model's wire format: a server"
            " failed to parse the output or the model wrote structure as text."
        },
        "help": {
            "text": "Treat the message from the cut on as untrusted; see the signals for the"
            " evidence (guard README, 'Detecting leaks')."
        },
        "defaultConfiguration": {"level": "error"},
    },
    {
        "id": "guard/injection",
        "name": "ReservedSpellingInInput",
        "shortDescription": {"text": "Untrusted input carries reserved control spellings"},
        "fullDescription": {
            "text": "A user message or tool result contains exact reserved spellings of the"
            " dialect; sent unescaped, a server rejects the prompt or reads them as structure."
        },
        "help": {"text": "Escape untrusted text before it reaches the model (guard.escape)."},
        "defaultConfiguration": {"level": "warning"},
    },
    {
        "id": "guard/forgery",
        "name": "ForgedToolResult",
        "shortDescription": {"text": "A tool result written where the assistant was writing"},
        "fullDescription": {
            "text": "In a raw transcript, a tool-authored message starts inside an unfinished"
            " assistant message or follows an assistant message that did not end with the"
            " tool-call stop token: the model forged the host's tool result."
        },
        "help": {"text": "Stop generation at the forged result; never execute or show it."},
        "defaultConfiguration": {"level": "error"},
    },
]
_RULE_INDEX = {"leak": 0, "injection": 1, "forgery": 2}
_LEVEL = {"leak": "error", "injection": "warning", "forgery": "error"}


def _uri(path: str) -> str | None:
    if path.startswith("<") and path.endswith(">"):
        return None  # stdin or in-memory input: no artifact to point at
    p = Path(path)
    if p.is_absolute():
        return p.as_uri()
    return quote(p.as_posix() if os.sep == "/" else path.replace(os.sep, "/"))


def _location(path: str, line: int | None, logical: str | None = None) -> dict[str, Any]:
    location: dict[str, Any] = {}
    uri = _uri(path)
    if uri is not None:
        physical: dict[str, Any] = {"artifactLocation": {"uri": uri}}
        if line is not None:
            physical["region"] = {"startLine": line}
        location["physicalLocation"] = physical
    if logical is not None:
        location["logicalLocations"] = [{"name": logical, "kind": "element"}]
    elif uri is None:
        location["message"] = {"text": path}
    return location


def _fingerprint(f: Finding) -> str:
    key = "\x1f".join([f.path, str(f.line), str(f.message), f.part or "", f.kind, f.surface.value])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def to_sarif(report: AuditReport) -> dict[str, Any]:
    from guard import __version__

    results = []
    for f in report.findings:
        where = f"message {f.message}" + (f" {f.part}" if f.part else "")
        results.append(
            {
                "ruleId": _RULES[_RULE_INDEX[f.kind]]["id"],
                "ruleIndex": _RULE_INDEX[f.kind],
                "level": _LEVEL[f.kind],
                "message": {
                    "text": f"{f.kind} on {f.surface.value} ({f.role}, {where}): {f.reason}"
                },
                "locations": [_location(f.path, f.line, where)],
                "partialFingerprints": {"guardFinding/v1": _fingerprint(f)},
                "properties": {
                    "surface": f.surface.value,
                    "kind": f.kind,
                    "signals": list(f.signals),
                    "cut": f.cut,
                    "role": f.role,
                    "message": f.message,
                    "part": f.part,
                    "toolName": f.tool_name,
                    "preview": f.preview,
                },
            }
        )
    notifications = [
        {
            "level": "error",
            "message": {"text": e.error},
            "locations": [_location(e.path, e.line)],
        }
        for e in report.errors
    ]
    s = report.summary
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "guard",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": _RULES,
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": s.transcripts > 0,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "columnKind": "unicodeCodePoints",
                "results": results,
                "properties": {
                    "transcripts": s.transcripts,
                    "messages": s.messages,
                    "bytes": s.bytes,
                    "leaks": s.leaks,
                    "injections": s.injections,
                    "forgeries": s.forgeries,
                    "errors": s.errors,
                },
            }
        ],
    }
