"""Audit rows: transcripts that a dataframe engine holds, judged batch by batch, with the
findings aligned to the rows (one list per row).

``guard.audit`` reads files; engines that already hold the data (Hugging Face ``datasets``,
Spark, Dask, Ray Data) hand over batches of rows instead. A row is one transcript: a mapping
(``{"messages": [...]}``, ``{"input": ..., "output": ...}``, a ChatGLM3 history), a message or
item list, or one JSONL line as ``str`` or ``bytes``. Rows are read by the same adapters and
judged by the same batched engine as the lines of a JSONL file, so a row yields the findings
and error entries its line would yield in a file (its ``line`` is its position: ``first_line``
plus its index in the batch).

:class:`RowAuditor` checks its arguments, loads the policy and warms the compiled signals once:
build one per worker (a Ray actor, a Spark executor) and call it on every batch.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from guard._json import decode_line
from guard._log import get_logger
from guard.audit._choices import FORMATS, MAX_LINE_BYTES, check_count
from guard.audit._context import REASONING_FORMATS, declared_tools
from guard.audit._engine import _GROUPS, Collector, candidates
from guard.audit._formats import ADAPTERS, FORMAT_DIALECT, JSON_FORMATS, classify
from guard.audit._memo import one_run
from guard.audit._units import (
    _UNPARSED,
    UnitResult,
    _json_error,
    _no_gc,
    _salvage,
    overlong,
    read_record,
)
from guard.audit.report import AuditError, Finding
from guard.dialects import get_dialect
from guard.gate import Policy, check_policy_or_path
from guard.models import Dialect

__all__ = ["ROW_FORMATS", "RowAuditor", "audit_rows"]

_log = get_logger("guard.audit")

#: Formats a row can be in (rows are JSON values: no raw text formats).
ROW_FORMATS: tuple[str, ...] = ("auto", *sorted(JSON_FORMATS))

_NOT_A_TRANSCRIPT = "not a transcript (expected messages, input/output items, or a message list)"
#: a blank JSONL line: skipped, as in a file
_BLANK = object()


def _check_dialect(dialect: str | Dialect | None) -> str | None:
    if dialect is None:
        return None
    record = get_dialect(dialect)
    if get_dialect(record.name) is not record:
        raise ValueError(f"dialect {record.name!r} is not a registered dialect")
    return record.name


class RowAuditor:
    """Audits batches of rows with one policy, dialect and tool list, set up once.

    Args:
        format: ``auto`` (each row's format is told from its keys, as for in-memory
            transcripts), ``openai``, ``responses`` or ``chatglm3``.
        dialect: the wire format to judge against; default ``chatglm3`` for ChatGLM3 histories,
            ``harmony`` otherwise.
        policy: the gate's rules (a :class:`~guard.Policy` or a policy file path).
        tools: the tools the transcripts' requests declared (names or OpenAI tool definitions);
            ``None`` when unknown.
        max_line_bytes: a ``str``/``bytes`` row longer than this is an error entry.

    Raises:
        ValueError: an unknown format or dialect, a bad policy, or ``tools`` of the wrong shape
            (a ``TypeError``).
    """

    def __init__(
        self,
        *,
        format: str = "auto",
        dialect: str | Dialect | None = None,
        policy: Policy | str | os.PathLike[str] | None = None,
        tools: Any = None,
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        if format not in ROW_FORMATS:
            known = ", ".join(ROW_FORMATS)
            if format in FORMATS:
                raise ValueError(
                    f"format {format!r} reads text files, not rows: expected one of {known}"
                )
            raise ValueError(f"unknown format {format!r}; expected one of: {known}")
        check_count("max_line_bytes", max_line_bytes)
        self.format = format
        self.dialect = _check_dialect(dialect)
        self.policy: Policy = check_policy_or_path(policy)
        self.tools = None if tools is None else declared_tools(tools)
        self.max_line = max_line_bytes
        self._dialects: dict[str, Dialect] = {}
        for fmt in JSON_FORMATS if format == "auto" else (format,):
            self._warm(self.dialect or FORMAT_DIALECT[fmt])

    def _warm(self, name: str) -> Dialect:
        """The dialect record, its compiled prefilters built on first use (once per worker)."""
        record = self._dialects.get(name)
        if record is None:
            record = get_dialect(name)
            for surfaces in _GROUPS:
                candidates([""], surfaces, record, self.policy, tools_known=self.tools is not None)
            self._dialects[name] = record
        return record

    def dialect_for(self, fmt: str) -> str:
        """The dialect that rows of format ``fmt`` are judged against."""
        return self.dialect or FORMAT_DIALECT[fmt]

    def _parse(self, row: object, before: object) -> tuple[object, str | None]:
        """A row as a JSON value, or an error text (``_BLANK``: a blank line, skipped)."""
        if isinstance(row, str):
            row = row.encode("utf-8", "surrogatepass")
        if not isinstance(row, bytes | bytearray | memoryview):
            return row, None
        raw = bytes(row)
        if not raw or raw.isspace():
            return _BLANK, None
        if len(raw) > self.max_line:
            return None, overlong(len(raw), self.max_line)
        try:
            return decode_line(raw), None  # as a JSONL line of a file is decoded
        except (ValueError, RecursionError) as exc:
            prev = before if isinstance(before, bytes) else b""
            obj = _salvage(raw, prev)
            if obj is _UNPARSED:
                return None, _json_error(exc, raw)
            return obj, None

    def run(
        self, rows: Iterable[object], *, path: str = "<rows>", first_line: int = 1
    ) -> UnitResult:
        """Audit a batch; the result holds its findings and error entries in row order (each
        at ``first_line`` plus the row's index), its counts, and in ``lines`` the number of
        rows."""
        check_count("first_line", first_line)
        collectors: dict[str, Collector] = {}
        errors: list[AuditError] = []
        transcripts = messages = count = 0
        before: object = b""
        with _no_gc(), one_run():
            for count, row in enumerate(rows, 1):
                line = first_line + count - 1
                obj, problem = self._parse(row, before)
                before = row.encode("utf-8", "surrogatepass") if isinstance(row, str) else row
                if problem is not None:
                    errors.append(AuditError(path=path, line=line, error=problem))
                    continue
                if obj is _BLANK:
                    continue
                fmt = self.format if self.format != "auto" else classify(obj)
                if fmt is None:
                    errors.append(AuditError(path=path, line=line, error=_NOT_A_TRANSCRIPT))
                    continue
                c = collectors.get(fmt)
                if c is None:  # one per format: its dialect, and whether it marks reasoning
                    record = self._warm(self.dialect_for(fmt))
                    reasoning = fmt in REASONING_FORMATS
                    c = Collector(path, record, self.policy, self.tools, reasoning)
                    collectors[fmt] = c
                got = read_record(ADAPTERS[fmt], obj, c, line, "reading this row")
                if got is None:
                    continue
                messages += got
                transcripts += 1
            findings: list[Finding] = []
            for c in collectors.values():
                c.judge()
                findings.extend(c.findings)
                errors.extend(c.errors)
        if len(collectors) > 1:  # stable: within a row, the adapter's order stays
            findings.sort(key=lambda f: f.line)
        errors.sort(key=lambda e: e.line or 0)
        return UnitResult(findings, errors, transcripts, messages, 0, count)

    def audit(
        self, rows: Iterable[object], *, path: str = "<rows>", first_line: int = 1
    ) -> list[list[Finding | AuditError]]:
        """One list per row: its findings in order, then its error entries (a row that could
        not be read has one :class:`~guard.audit.AuditError` and no finding)."""
        batch = rows if isinstance(rows, Sequence) else list(rows)
        result = self.run(batch, path=path, first_line=first_line)
        out: list[list[Finding | AuditError]] = [[] for _ in range(len(batch))]
        for f in result.findings:
            out[f.line - first_line].append(f)
        for e in result.errors:
            out[(e.line or first_line) - first_line].append(e)
        return out


def audit_rows(
    rows: Iterable[object],
    *,
    format: str = "auto",
    dialect: str | Dialect | None = None,
    policy: Policy | str | os.PathLike[str] | None = None,
    tools: Any = None,
) -> list[list[Finding | AuditError]]:
    """Audit a batch of rows; returns one list per row, aligned with ``rows``.

    A row is one transcript: a mapping (``{"messages": [...]}``, Responses ``input``/``output``
    items, a ChatGLM3 history), a message or item list, or one JSONL line (``str``/``bytes``).
    Each row's list holds its :class:`~guard.audit.Finding` objects in order (``line`` is the
    row's 1-based position in ``rows``), then an :class:`~guard.audit.AuditError` if the row
    could not be read (invalid JSON, not a transcript, a malformed message); a blank line is
    skipped. Use :class:`RowAuditor` to set the policy up once for many batches.

    Raises:
        ValueError / TypeError: an unknown format or dialect, a bad policy or tool list.
    """
    auditor = RowAuditor(format=format, dialect=dialect, policy=policy, tools=tools)
    return auditor.audit(rows)
