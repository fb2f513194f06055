"""The report models of ``guard audit`` (public through :mod:`guard.audit`).

Only findings, errors and summaries are pydantic models: a clean message never becomes an
object, so auditing clean data costs little beyond parsing it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from guard.audit._choices import FAIL_ON, FORMATS
from guard.models import Surface

__all__ = [
    "FAIL_ON",
    "FORMATS",
    "AuditError",
    "AuditReport",
    "AuditSummary",
    "FileSummary",
    "Finding",
    "SkippedFile",
]

Kind = Literal["leak", "injection", "forgery"]


class Finding(BaseModel):
    """One finding in one message of one transcript.

    ``line`` is the 1-based line of the transcript in its file (for in-memory transcripts, the
    1-based position in the iterable), ``message`` the 0-based index of the message in the
    transcript. ``kind`` is ``leak`` (model output carrying wire-format evidence), ``injection``
    (untrusted input carrying reserved spellings that must be escaped) or ``forgery`` (in a raw
    transcript, a tool result written where the assistant was writing). ``cut`` is the offset in
    the part's text from which it is untrusted (for an injection: the first spelling to escape).
    ``preview`` is redacted: letters and digits are masked, only the shape remains.
    ``evidence`` is the matched reserved spelling or marker, exactly as it stands in the text
    (format, not user data); ``context`` shows it with up to 24 characters on each side, in
    which the surrounding text is masked like ``preview`` (other spellings and markers stay).
    The unmasked context is kept in ``context_text`` for :meth:`AuditReport.with_text` but is
    never serialised.
    """

    model_config = ConfigDict(frozen=True)

    path: str
    line: int = Field(ge=1)
    message: int = Field(ge=0)
    role: str
    surface: Surface
    kind: Kind
    signals: tuple[str, ...]
    cut: int | None
    reason: str
    part: str | None = None
    tool_name: str | None = None
    preview: str = ""
    evidence: str = ""
    context: str = ""
    context_text: str = Field(default="", exclude=True, repr=False)


class AuditError(BaseModel):
    """Input that could not be audited: a file (``line`` is ``None``), a line, or a message.

    ``internal`` marks a fault of guard itself rather than of the input (an unexpected exception
    while reading or judging it, a worker process lost): the input it names was not audited,
    and the command exits with code 3.
    """

    model_config = ConfigDict(frozen=True)

    path: str
    line: int | None
    error: str
    internal: bool = False


class FileSummary(BaseModel):
    """What one input was read as, and how much of it."""

    path: str
    format: str
    #: True when ``--format auto`` chose the format by looking at the file.
    sniffed: bool
    dialect: str
    #: how the format was chosen when it was a guess (no line parsed)
    note: str = ""
    transcripts: int = 0
    messages: int = 0
    bytes: int = 0
    errors: int = 0


class SkippedFile(BaseModel):
    """A path that was not audited, and why: a file ``--format auto`` did not recognise as
    transcripts, a file already audited under another path, a hidden or special file, a link
    that leads nowhere or back into a directory being walked."""

    path: str
    reason: str


class AuditSummary(BaseModel):
    transcripts: int = 0
    messages: int = 0
    bytes: int = 0
    findings: int = 0
    leaks: int = 0
    #: each leak counted once under every signal code among its tripping hits
    leaks_by_signal: dict[str, int] = Field(default_factory=dict)
    leaks_by_surface: dict[str, int] = Field(default_factory=dict)
    injections: int = 0
    forgeries: int = 0
    errors: int = 0
    #: errors that are faults of guard itself (``AuditError.internal``)
    internal_errors: int = 0
    elapsed: float = 0.0
    workers: int = 1
    files: list[FileSummary] = Field(default_factory=list)
    skipped: list[SkippedFile] = Field(default_factory=list)


class AuditReport(BaseModel):
    """Everything ``guard audit`` found: ``summary``, ``findings`` and ``errors``.

    Findings are in input order: file by file as given (directories in sorted order), line by
    line, message by message, part by part, whatever the number of workers.
    """

    summary: AuditSummary = Field(default_factory=AuditSummary)
    findings: list[Finding] = Field(default_factory=list)
    errors: list[AuditError] = Field(default_factory=list)

    def exit_code(self, fail_on: str = "leak") -> int:
        """0 clean, 1 findings at the ``fail_on`` threshold, 2 when no transcript was read, 3
        when guard itself failed on some input (an internal error: the report is incomplete).

        ``leak`` fails on leaks and forgeries (model output gone wrong); ``injection`` fails on
        any finding; ``none`` never fails on findings. Code 3 wins over the others: a report
        with a hole in it is never called clean.
        """
        if fail_on not in FAIL_ON:
            raise ValueError(f"fail_on must be one of {', '.join(FAIL_ON)}, got {fail_on!r}")
        if any(e.internal for e in self.errors):
            return 3
        if self.summary.transcripts == 0:
            return 2
        if fail_on == "none":
            return 0
        kinds = {"leak", "forgery"} if fail_on == "leak" else {"leak", "forgery", "injection"}
        return 1 if any(f.kind in kinds for f in self.findings) else 0

    def with_text(self) -> AuditReport:
        """A copy whose findings' ``context`` is unmasked (``guard audit --show-text``): for
        people auditing their own logs. The copy's JSON and SARIF then carry raw text."""
        findings = [
            f.model_copy(update={"context": f.context_text or f.context}) for f in self.findings
        ]
        return self.model_copy(update={"findings": findings})

    def sarif(self, *, root: str | None = None, stdin_uri: str = "stdin") -> dict[str, Any]:
        """The report as a SARIF 2.1.0 log (a JSON-ready dict) for code-scanning UIs: paths
        under ``root`` (default: the working directory) relative to ``%SRCROOT%``, standard
        input named ``stdin_uri``."""
        from guard.audit._sarif import to_sarif

        return to_sarif(self, root=root, stdin_uri=stdin_uri)
