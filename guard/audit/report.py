"""The report models of ``guard audit`` (public through :mod:`guard.audit`).

Only findings, errors and summaries are pydantic models: a clean message never becomes an
object, so auditing clean data costs little beyond parsing it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from guard.audit._choices import DEFAULT_FAIL_ON, FAIL_ON, FORMATS, parse_fail_on
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

    ``line`` is the 1-based line of the transcript in its file for JSONL (for in-memory
    transcripts, the 1-based position in the iterable), and for raw transcripts (Harmony and
    the other dialects) the line where the message opens; ``message`` is the 0-based index of
    the message in the transcript. ``kind`` is ``leak`` (model output carrying wire-format
    evidence), ``injection`` (untrusted input carrying reserved spellings that must be escaped)
    or ``forgery`` (in a raw transcript, a tool result written where the assistant was
    writing). ``cut`` is the offset in
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

    def exit_code(self, fail_on: str | tuple[str, ...] | frozenset[str] = DEFAULT_FAIL_ON) -> int:
        """0 clean, 1 a failing condition of ``fail_on``, 2 input not read, 3 when guard itself
        failed on some input (an internal error: the report is incomplete).

        ``fail_on`` is a comma-separated set (``leak,error``, the default): ``leak`` fails on
        leaks and forgeries (model output gone wrong), ``injection`` on any finding, ``error``
        on any line or message that could not be read; ``none`` alone never fails on findings
        or errors. Code 2 does not depend on ``fail_on``: no transcript read at all, an input
        that could not be read (a missing or unreadable path, an empty file, an error entry
        without a line), or a file of a format forced by ``format=`` that yielded no record.
        Code 3 wins over the others: a report with a hole in it is never called clean.
        """
        return self.failure(fail_on)[0]

    def unread_inputs(self) -> list[str]:
        """The inputs that were not read at all: those with an error entry that has no line,
        and the files of a forced (not sniffed) format from which no transcript was read."""
        unread = [e.path for e in self.errors if e.line is None and not e.internal]
        unread += [f.path for f in self.summary.files if not f.sniffed and f.transcripts == 0]
        return list(dict.fromkeys(unread))

    def failure(
        self, fail_on: str | tuple[str, ...] | frozenset[str] = DEFAULT_FAIL_ON
    ) -> tuple[int, str]:
        """The exit code (as :meth:`exit_code`) and what failed, in words (``""`` when 0)."""
        conditions = parse_fail_on(fail_on)
        internal = sum(e.internal for e in self.errors)
        if internal:
            return 3, f"guard failed on {_n(internal, 'input')}: the report is incomplete"
        unread = self.unread_inputs()
        if self.summary.transcripts == 0:
            return 2, "no transcript could be read from the input"
        if unread:
            more = f" and {len(unread) - 3:,} more" if len(unread) > 3 else ""
            shown = ", ".join(unread[:3]) + more
            return 2, f"{_n(len(unread), 'input')} could not be read: {shown}"
        failed: list[str] = []
        kinds = {"leak": 0, "injection": 0, "forgery": 0}
        for f in self.findings:
            kinds[f.kind] += 1
        if conditions & {"leak", "injection"}:
            if kinds["leak"]:
                failed.append(_n(kinds["leak"], "leak"))
            if kinds["forgery"]:
                n = kinds["forgery"]
                failed.append(f"{n:,} forger{'y' if n == 1 else 'ies'}")
        if "injection" in conditions and kinds["injection"]:
            failed.append(_n(kinds["injection"], "injection"))
        if "error" in conditions and self.errors:
            n = len(self.errors)
            failed.append(f"{n:,} error entr{'y' if n == 1 else 'ies'} (input not read)")
        if not failed:
            return 0, ""
        return 1, ", ".join(failed)

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


def _n(count: int, word: str, plural: str = "s") -> str:
    return f"{count:,} {word}" + ("" if count == 1 else plural)
