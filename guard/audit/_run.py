"""``guard.audit(...)``: check the arguments, plan the units, run them, merge the results.

Every engine runs the same three stages with :func:`run`: the planner reads the inputs into
units, an executor judges them (the local process pool here, Ray actors in
:mod:`guard.integrations.ray`) and gives them back in input order, and the report builder merges
their results into the report."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from guard._log import Logger, get_logger
from guard.audit._builder import ReportBuilder
from guard.audit._choices import check_count, check_format
from guard.audit._context import declared_tools
from guard.audit._executor import execute
from guard.audit._memo import one_run
from guard.audit._planner import Planner
from guard.audit._sources import MAX_LINE_BYTES, Source
from guard.audit._units import Unit, UnitResult
from guard.audit.report import AuditReport
from guard.dialects import get_dialect
from guard.gate import Policy, check_policy_or_path
from guard.models import Dialect

__all__ = ["Executor", "audit", "run"]

_log = get_logger("guard.audit")

#: Judges units and gives each back with its result, in input order.
Executor = Callable[[Iterator[Unit]], Iterator[tuple[Unit, UnitResult]]]


def audit(
    sources: Source | Iterable[Source],
    *,
    format: str = "auto",
    dialect: str | Dialect | None = None,
    policy: Policy | str | os.PathLike[str] | None = None,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    tools: Any = None,
) -> AuditReport:
    """Audit transcripts and return the report.

    Args:
        sources: a path (file or directory, recursed; ``-`` is stdin; ``.gz`` files are
            decompressed), a binary or text file object, or an iterable of those and of
            in-memory transcripts (a mapping such as ``{"messages": [...]}``, or a message or
            item list). In-memory transcripts are numbered by their 1-based position in the
            iterable; they are read lazily, so a generator streams.
        format: ``auto`` (sniff each input), ``openai``, ``responses``, ``harmony``,
            ``chatglm3``, ``raw`` (another dialect's transcripts) or ``text``.
        dialect: the wire format to judge against; default ``chatglm3`` for ChatGLM3
            histories, the sniffed dialect for ``raw`` files, ``harmony`` otherwise.
        policy: the gate's rules (a :class:`~guard.Policy` or a policy file path).
        workers: processes to judge files and chunks of large files in; the report is the
            same for any number.
        progress: called with the bytes and messages done so far, after each unit of work.
        max_line_bytes: a line longer than this (a JSONL line, a line of raw Harmony, a whole
            ``text`` file) is an error entry and is never held in memory whole.
        tools: the tools the requests declared (names or OpenAI tool definitions), for the
            records that declare none of their own (a record's ``tools`` list); with declared
            tools, a call of another tool is a leak (signal U) and a tool call written as text
            counts when it names one of them (J).

    Raises:
        TypeError / ValueError: bad arguments (unknown format or dialect, ``workers < 1``).
        Unreadable or malformed input never raises: it is reported in ``errors``, and so is
        a fault of guard itself on one input (an unexpected exception, a lost worker process),
        as an entry with ``internal`` set.
    """
    check_format(format)
    check_count("workers", workers)
    check_count("max_line_bytes", max_line_bytes)
    dialect_name: str | None = None
    if dialect is not None:
        record = get_dialect(dialect)
        if get_dialect(record.name) is not record:
            raise ValueError(f"dialect {record.name!r} is not a registered dialect")
        dialect_name = record.name
    policy_ = check_policy_or_path(policy)
    declared = None if tools is None else declared_tools(tools)
    start = time.perf_counter()
    builder = ReportBuilder(workers)
    planner = Planner(format, dialect_name, builder, max_line_bytes, spans=workers > 1)
    _log.info("guard.audit.start", format=format, workers=workers)
    return run(
        planner.plan(sources),
        lambda units: execute(units, workers, policy_),
        builder,
        tools=declared,
        progress=progress,
        start=start,
    )


def run(
    units: Iterable[Unit],
    executor: Executor,
    builder: ReportBuilder,
    *,
    tools: frozenset[str] | None,
    progress: Callable[[int, int], None] | None,
    start: float,
    log: Logger = _log,
    event: str = "guard.audit.done",
) -> AuditReport:
    """Judge the planned units with ``executor``, each told the declared ``tools``, merge
    their results into ``builder``'s report as they come and finish it; ``progress`` is called
    after each unit, and the report's elapsed time counts from ``start``. The verdict memo
    (:mod:`guard.audit._memo`) serves this run alone."""
    with one_run():
        for unit, result in executor(_declaring(units, tools)):
            builder.merge(unit, result)
            if progress is not None:
                s = builder.report.summary
                progress(s.bytes, s.messages)
    report = builder.finish(time.perf_counter() - start)
    s = report.summary
    log.info(
        event,
        transcripts=s.transcripts,
        messages=s.messages,
        bytes=s.bytes,
        findings=s.findings,
        leaks=s.leaks,
        injections=s.injections,
        forgeries=s.forgeries,
        errors=s.errors,
        elapsed=s.elapsed,
    )
    return report


def _declaring(units: Iterable[Unit], tools: frozenset[str] | None) -> Iterator[Unit]:
    """The planned units, each told the audit's declared tools."""
    for unit in units:
        unit.tools = tools
        yield unit
