"""The audit engine: collect the parts of transcripts, judge them in batches.

Work is shaped so that clean data costs little beyond ``json.loads``. Parts are collected per
surface across many transcripts and judged in batches: the anchor signals (the only ones that can
start a finding: without an anchor hit the gate's verdict is clean) scan the batch's texts joined
by a separator once, and only the texts that an anchor hit touches are judged one by one with
:func:`guard.detect`, exactly as a caller would. That is sound because the built-in anchor
signals are local: none matches across a line break (``:`` for tool names, which may not contain
line breaks), none needs the end of the text, and a lookbehind at a text's start sees the
separator as it would see the start. The one rule that reads a text's start (signal K: a text
opening with ``analysis``) is checked per text. When a signal plugin adds other anchor signals,
batching is off and every text is judged alone.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from guard._log import get_logger, preview
from guard.audit._context import reasoned_messages, record_tools
from guard.audit._evidence import finding_for
from guard.audit._formats import Part
from guard.audit._memo import MEMO
from guard.audit.report import AuditError, Finding
from guard.gate import Policy, prefilter
from guard.models import Dialect, Surface

__all__ = ["BATCH_PARTS", "Collector", "candidates", "internal_error"]

_log = get_logger("guard.audit")

#: Judge a batch once this many parts are collected (a JSONL unit is judged whole).
BATCH_PARTS = 50_000
_TEXT = Surface.TEXT.value


#: Surfaces judged together: the texts of a group are prefiltered in one search for the
#: triggers of the anchor signals of its surfaces (extra triggers only add candidates).
_GROUPS: tuple[frozenset[Surface], ...] = (
    frozenset({Surface.TEXT, Surface.THINKING, Surface.TOOL_ARG}),
    frozenset({Surface.USER, Surface.TOOL_RESULT}),
    frozenset({Surface.TOOL_NAME}),
)


def internal_error(
    errors: list[AuditError], path: str, line: int | None, exc: BaseException, what: str
) -> None:
    """Record an unexpected exception as an internal error entry, and log it (type only)."""
    name = type(exc).__name__
    _log.error("guard.audit.internal_error", error=name, where=what)
    errors.append(
        AuditError(
            path=path,
            line=line,
            error=f"internal error ({name}) {what}: not audited; please report this",
            internal=True,
        )
    )


def candidates(
    texts: list[str],
    surfaces: frozenset[Surface],
    dialect: Dialect,
    policy: Policy,
    *,
    tools_known: bool,
) -> list[int]:
    """Indices of the texts that may yield a finding on their surfaces (a superset);
    ``tools_known`` says whether they are judged with declared tools."""
    found = prefilter(dialect, surfaces, policy.disabled, tools_known=tools_known)
    if found is None:
        return list(range(len(texts)))
    return found.candidates(texts)


class Collector:
    """Collects the parts of the transcripts of one unit (the :class:`Sink` the adapters fill)
    and judges them in batches."""

    def __init__(
        self,
        path: str,
        dialect: Dialect,
        policy: Policy,
        tools: frozenset[str] | None = None,
        reasoning: bool = False,
    ) -> None:
        self.path = path
        self.dialect = dialect
        self.policy = policy
        #: the audit's declared tools (``--tools``), for records that declare none
        self.tools = tools
        #: records' own declared tools, by line (guard/audit/_context.py)
        self.record_tools: dict[int, frozenset[str] | None] = {}
        #: whether the format says which answers carried a reasoning part (signal V)
        self.reasoning = reasoning and bool(dialect.thinking)
        self._reasoned: set[tuple[int, int]] | None = None
        #: the lines of the text parts being judged (the only records signal V's context is
        #: worked out for)
        self._text_lines: set[int] | None = None
        self.out: list[Part] = []
        self.inp: list[Part] = []
        self.names: list[Part] = []
        self.seq: Iterator[int] = itertools.count()
        #: (sequence number, finding): a forgery sorts before the body part that follows it
        self.forgeries: list[tuple[int, Finding]] = []
        self.findings: list[Finding] = []
        self.errors: list[AuditError] = []

    def error(self, line: int, text: str) -> None:
        self.errors.append(AuditError(path=self.path, line=line, error=text))

    def internal(self, line: int | None, exc: BaseException, what: str) -> None:
        """An unexpected exception while reading or judging ``what``: a fault of guard, not of
        the input. It becomes an error entry (only the exception's type: its message may quote
        the data) and the rest is still audited."""
        internal_error(self.errors, self.path, line, exc, what)

    def forgery(self, line: int, message: int, role: str, reason: str, marker: str) -> None:
        """A forged tool result; ``marker`` is the forging message's opening as it stands (its
        start marker and header: format, shown as evidence)."""
        finding = Finding(
            path=self.path,
            line=line,
            message=message,
            role=role,
            surface=Surface.TOOL_RESULT,
            kind="forgery",
            signals=("R",),
            cut=None,
            reason=reason,
            part="header",
            preview=preview(marker),
            evidence=marker,
            context=marker,
            context_text=marker,
        )
        self.forgeries.append((next(self.seq), finding))

    def declare(self, line: int, record: object) -> None:
        """Note the tools that the transcript record at ``line`` declares (if any)."""
        present, names, problem = record_tools(record)
        if present:
            self.record_tools[line] = names
            if problem is not None:
                self.error(line, problem)

    def maybe_judge(self, limit: int = BATCH_PARTS) -> None:
        if len(self.out) + len(self.inp) + len(self.names) >= limit:
            self.judge()

    def judge(self) -> None:
        """Judge everything collected so far; findings go to ``self.findings`` in input order."""
        found: list[tuple[int, Finding]] = list(self.forgeries)
        self._reasoned = None
        for parts, surfaces in zip((self.out, self.inp, self.names), _GROUPS, strict=True):
            if not parts:
                continue
            chosen = self._candidates(parts, surfaces)
            if parts is self.out:
                self._text_lines = {parts[k][3] for k in chosen if parts[k][1] == _TEXT}
            for k in chosen:
                part = parts[k]
                try:
                    finding = self._judge_one(part)
                except Exception as exc:  # a fault of guard: one error entry, not a lost report
                    self.internal(part[3], exc, f"judging message {part[4]} {part[6]}")
                    continue
                if finding is not None:
                    found.append((parts[k][0], finding))
        if found:
            found.sort(key=lambda item: item[0])
            self.findings.extend(f for _, f in found)
        self.out, self.inp, self.names = [], [], []
        self.forgeries = []
        self.record_tools = {}
        self._reasoned = None
        self._text_lines = None

    def _candidates(self, parts: list[Part], surfaces: frozenset[Surface]) -> list[int]:
        """The parts to judge: the prefilter without declared tools, and with them for the
        parts of records that have declared tools (signals such as U fire on any text then)."""
        texts = [p[2] for p in parts]
        if self.tools is None and not self.record_tools:
            return candidates(texts, surfaces, self.dialect, self.policy, tools_known=False)
        declared = self.record_tools
        known = [i for i, p in enumerate(parts) if declared.get(p[3], self.tools) is not None]
        if len(known) == len(parts):
            return candidates(texts, surfaces, self.dialect, self.policy, tools_known=True)
        found = set(candidates(texts, surfaces, self.dialect, self.policy, tools_known=False))
        if known:
            subset = [texts[i] for i in known]
            more = candidates(subset, surfaces, self.dialect, self.policy, tools_known=True)
            found.update(known[j] for j in more)
        return sorted(found)

    def _context(
        self, surface: Surface, line: int, message: int
    ) -> tuple[frozenset[str] | None, bool | None]:
        """``tools`` and ``reasoning`` for :func:`guard.detect` (guard/audit/_context.py)."""
        tools = self.record_tools.get(line, self.tools)
        reasoning: bool | None = None
        if self.reasoning and surface is Surface.TEXT:
            if self._reasoned is None:
                self._reasoned = reasoned_messages(self.out, self.inp, self._text_lines)
            reasoning = (line, message) in self._reasoned
        return tools, reasoning

    def _judge_one(self, part: Part) -> Finding | None:
        _seq, value, text, line, message, role, name, tool_name = part
        surface = Surface(value)
        tools, reasoning = self._context(surface, line, message)
        verdict = MEMO.detect(
            text,
            surface,
            self.dialect,
            self.policy,
            tool_name=tool_name,
            tools=tools,
            reasoning=reasoning,
        )
        return finding_for(
            verdict,
            text,
            path=self.path,
            line=line,
            message=message,
            role=role,
            part=name,
            tool_name=tool_name,
        )
