"""One line per finding, for tools that read locations: ``lines`` is the compiler form
``path:line: kind signals evidence`` (what pre-commit, editors and terminals link to), and
``github`` is the same as GitHub workflow commands (``::error file=...,line=...::...``), which an
Actions runner turns into annotations on the file and line.

Only the evidence (the matched spelling or marker) is shown, never the surrounding text unless
the report was made with ``--show-text``. Evidence is model or user text, so in the ``github``
form it is escaped the way the runner decodes it: nothing in it can end the command or start
another one.
"""

from __future__ import annotations

from typing import Literal

from guard.audit.report import AuditError, AuditReport, Finding

__all__ = ["STYLES", "Style", "render_located"]

Style = Literal["table", "lines", "github"]
#: the report styles of ``guard audit --style``
STYLES: tuple[Style, ...] = ("table", "lines", "github")

#: how long the evidence of one line may be before it is shortened
_EVIDENCE_CHARS = 120


def _shown(text: str) -> str:
    text = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return text if len(text) <= _EVIDENCE_CHARS else text[: _EVIDENCE_CHARS - 1] + "…"


def _where(path: str, line: int | None) -> str:
    return path if line is None else f"{path}:{line}"


def _finding_line(f: Finding) -> str:
    signals = "+".join(f.signals) or "-"
    evidence = _shown(f.evidence) or "-"
    return f"{_where(f.path, f.line)}: {f.kind} {signals} {evidence} ({f.surface.value})"


def _error_line(e: AuditError) -> str:
    return f"{_where(e.path, e.line)}: error {_shown(e.error)}"


def _data(text: str) -> str:
    """A workflow command's message, escaped as the runner decodes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """A workflow command's property value (``file=``, ``title=``), escaped likewise."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _command(level: str, path: str, line: int | None, title: str, message: str) -> str:
    where = f"file={_property(path)}"
    if line is not None:
        where += f",line={line}"
    return f"::{level} {where},title={_property(title)}::{_data(message)}"


def _finding_command(f: Finding) -> str:
    level = "warning" if f.kind == "injection" else "error"
    signals = "+".join(f.signals) or "-"
    title = f"guard {f.kind} ({signals}, {f.surface.value})"
    return _command(level, f.path, f.line, title, f"{_shown(f.evidence) or '-'}: {f.reason}")


def _error_command(e: AuditError) -> str:
    return _command("error", e.path, e.line, "guard: unreadable input", _shown(e.error))


def render_located(report: AuditReport, style: Style, totals: list[str]) -> str:
    """The findings and errors one per line in ``style`` (``lines`` or ``github``), then the
    ``totals`` lines as they are."""
    if style == "github":
        rows = [_finding_command(f) for f in report.findings]
        rows += [_error_command(e) for e in report.errors]
    elif style == "lines":
        rows = [_finding_line(f) for f in report.findings]
        rows += [_error_line(e) for e in report.errors]
    else:
        raise ValueError(f"render_located takes the style 'lines' or 'github', got {style!r}")
    return "\n".join([*rows, *totals])
