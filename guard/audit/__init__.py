"""Audit stored transcripts: every message of every transcript through the detection pipeline.

``guard.audit(sources)`` reads JSONL transcripts (OpenAI chat, Responses items, ChatGLM3
histories, ShareGPT rows), raw Harmony text, raw transcripts of the other dialects, plain model
output, gzip- or zstd-compressed or not, from files, directories, streams or Python objects,
and returns an :class:`AuditReport`: model output (``text``, ``thinking``, ``tool_arg``,
``tool_name``) gets leak verdicts, user input and tool results get injection findings, and in raw
transcripts a tool result written where the assistant was writing is a ``forgery`` finding
(docs/audit.md).

Inputs are streamed: files are read in chunks of whole lines and never held whole (a ``text``
file is one message, and a ``raw`` file of another dialect is read whole). With ``workers > 1``
files and chunks of large files are judged in worker processes and merged in input order, so the
report is the same for any number of workers. A bad line, message or file becomes an error entry
with its path and line; the rest is still audited.

One module per job:

* ``_sources``: sources (paths, directories, streams, in-memory transcripts) and reading (gzip,
  zstd in ``_zstd``, the head of a file that sniffing looks at);
* ``_formats``: sniffing a format, and adapters that turn a transcript into parts to judge;
* ``_harmony``: the splitter of raw Harmony transcripts and its forgery rule;
* ``_wire``: turn grammars of the other dialects, their splitter and forgery rule;
* ``_engine``: collecting parts and judging them in batches behind the gate's prefilter;
  ``_evidence``: a finding's evidence and its masked context;
* ``_units``, ``_planner``, ``_executor``, ``_builder``: units of work, planned from the
  inputs, run in workers, merged in input order into the report;
* ``report``: the report models; ``_table``, ``_sarif``, ``_progress``: how the command line
  shows a report (JSON is the models' own ``model_dump_json``).

Importing this package is light (the command line builds its ``--help`` from :data:`FORMATS`
and :data:`FAIL_ON`): every other public name loads its module when first used (PEP 562).
"""

from __future__ import annotations

import sys as _sys
import types as _types
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from guard._lazy import lazy_exports as _lazy_exports
from guard.audit._choices import DEFAULT_FAIL_ON as DEFAULT_FAIL_ON
from guard.audit._choices import FAIL_ON as FAIL_ON
from guard.audit._choices import FORMATS as FORMATS
from guard.audit._choices import MAX_LINE_BYTES as MAX_LINE_BYTES
from guard.audit._choices import parse_fail_on as parse_fail_on

if _TYPE_CHECKING:
    from guard.audit._context import load_tools_option as load_tools_option
    from guard.audit._evidence import finding_for as finding_for
    from guard.audit._progress import ProgressBar as ProgressBar
    from guard.audit._rows import RowAuditor as RowAuditor
    from guard.audit._rows import audit_rows as audit_rows
    from guard.audit._run import audit as audit
    from guard.audit._sarif import to_sarif as to_sarif
    from guard.audit._sources import input_bytes as input_bytes
    from guard.audit._table import finding_rows as finding_rows
    from guard.audit._table import render as render
    from guard.audit.report import AuditError as AuditError
    from guard.audit.report import AuditReport as AuditReport
    from guard.audit.report import AuditSummary as AuditSummary
    from guard.audit.report import FileSummary as FileSummary
    from guard.audit.report import Finding as Finding
    from guard.audit.report import SkippedFile as SkippedFile

__getattr__, __dir__ = _lazy_exports(__name__, globals())


class _CallableModule(_types.ModuleType):
    """``guard.audit`` names both this package and its main function. Importing the package
    binds the package to ``guard.audit``, so the package itself forwards calls to
    :func:`audit`: ``guard.audit(paths)`` works whichever was bound first."""

    def __call__(self, *args: _Any, **kwargs: _Any) -> AuditReport:
        from guard.audit._run import audit

        return audit(*args, **kwargs)


_sys.modules[__name__].__class__ = _CallableModule
