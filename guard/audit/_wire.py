"""Raw transcripts of the dialects other than Harmony (format ``raw``): whole conversations as
each model's chat template writes them, every role included (docs/audit.md, "Raw transcripts of
other dialects").

A dialect record's ``transcript`` (:class:`guard.models.TurnGrammar`) says how the dialect
opens turns. The splitter cuts a transcript into segments at those openings; a host span
(DeepSeek's tool outputs, DSML's ``<function_results>``, Gemma 4's ``<|tool_response>``) runs
to its closer, after which the assistant goes on. An assistant segment is read by the dialect's
scanner, as a stream of that model's output would be: its text, reasoning and calls become parts
on their surfaces, what does not parse is judged as text, and a result opening the scanner meets
is a forgery. Other segments are input (``user`` or ``tool_result``). One rule between segments,
as for raw Harmony: a tool result that follows an assistant segment which made no call, or did
not end with the dialect's end-of-turn spelling, is a forged tool result.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from guard._log import preview
from guard.audit._format_parts import add_part
from guard.dialects import DIALECTS
from guard.models import (
    Malformed,
    ResultForgery,
    Scanner,
    Surface,
    Text,
    ThinkingDelta,
    ToolArgs,
    ToolStart,
    TurnGrammar,
)

if TYPE_CHECKING:  # _formats imports this module at run time
    from guard.audit._formats import Sink

__all__ = [
    "GRAMMARS",
    "Grammar",
    "Segment",
    "Transcript",
    "sniff_dialect",
    "split",
    "wire_transcript",
]


_ASSISTANT = frozenset({"assistant", "ai", "model"})
_INPUT = frozenset({"system", "developer", "user"})


class _Grammars(Mapping[str, TurnGrammar]):
    """Every dialect's turn grammar by canonical name, read live from the dialect records (a
    registered dialect with a ``transcript`` is audited like a built-in one)."""

    def _table(self) -> dict[str, TurnGrammar]:
        return {n: d.transcript for n, d in DIALECTS.items() if d.transcript is not None}

    def __getitem__(self, name: str) -> TurnGrammar:
        return self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


GRAMMARS: Mapping[str, TurnGrammar] = _Grammars()
#: The record type of a turn grammar (kept under the audit's old name).
Grammar = TurnGrammar


@dataclass(slots=True)
class Segment:
    """One turn (or host span) of a raw transcript."""

    role: str  # the role word as written (``assistant``, ``ipython``, ``get_weather``, ...)
    kind: str  # ``assistant``, ``user`` or ``tool``
    body: str
    ended: bool = False  # the body ended with one of the grammar's end spellings
    opening: str = ""
    #: the body as written, end spelling included (what the scanner reads)
    raw: str = ""
    #: 1-based line of the file where the segment opens (its opening spelling, or its body)
    line: int = 1


@dataclass(slots=True)
class Transcript:
    line: int
    segments: list[Segment] = field(default_factory=list)


def _compiled(dialect: str) -> tuple[re.Pattern[str], list[tuple[str, str | None]]]:
    return _compiled_for(GRAMMARS[dialect])


@cache
def _compiled_for(g: TurnGrammar) -> tuple[re.Pattern[str], list[tuple[str, str | None]]]:
    """One regular expression for every opening of a grammar; per alternative, its kind
    (``bos``, ``span``, ``turn``) and its closer (span) or fixed role (turn)."""
    alts: list[str] = []
    table: list[tuple[str, str | None]] = []
    for spelling in g.bos:
        alts.append(re.escape(spelling))
        table.append(("bos", None))
    for opening, closer in g.spans:
        alts.append(re.escape(opening))
        table.append(("span", closer))
    for pattern, role in g.turns:
        alts.append(pattern.replace("(?P<role>", f"(?P<r{len(table)}>"))
        table.append(("turn", role))
    regex = re.compile("|".join(f"(?P<a{i}>{a})" for i, a in enumerate(alts)))
    return regex, table


def _results(dialect: str) -> tuple[re.Pattern[str], ...]:
    return _results_for(GRAMMARS[dialect])


@cache
def _results_for(g: TurnGrammar) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.DOTALL) for p in g.results)


def result_text(body: str, dialect: str) -> str:
    """The tool's own text of a result segment: the host's wrapping removed when it matches
    one of the grammar's result patterns, else the segment whole."""
    for pattern in _results(dialect):
        m = pattern.fullmatch(body)
        if m is not None:
            text = m.group("body")
            for quote in GRAMMARS[dialect].quotes:
                text = text.replace(quote, '"')
            return text
    return body


def _kind(role: str, body: str, g: TurnGrammar) -> str:
    low = role.lower()
    if low in _ASSISTANT:
        return "assistant"
    if low in _INPUT:
        if g.result_bodies and body.lstrip().startswith(g.result_bodies):
            return "tool"
        return "user"
    return "tool"


def _strip_end(body: str, g: TurnGrammar) -> tuple[str, bool]:
    """The body without its end spellings (and the blanks around them), and whether it had
    one."""
    if not g.ends:
        return body, False
    text = body.rstrip()
    ended = False
    while text.endswith(g.ends):
        end = next(e for e in g.ends if text.endswith(e))
        text = text[: -len(end)].rstrip()
        ended = True
    return text, ended


def _role_of(m: re.Match[str], i: int, fixed: str | None) -> str:
    return fixed if fixed is not None else m.group(f"r{i}")


def split(text: str, dialect: str) -> Iterator[Transcript]:
    """The transcripts of ``text``: a new one starts at the dialect's begin-of-text spelling,
    or at a system turn that follows turns of other roles."""
    g = GRAMMARS[dialect]
    regex, table = _compiled(dialect)
    current = Transcript(1)
    pos = 0
    role, kind_hint, start, opening = "system", "", 0, ""
    opened = 0  # where the segment being read opens (its opening spelling)
    line_at = _LineCounter(text)
    #: whether ``current`` holds a segment of a role other than ``system`` (a flag, so a run of
    #: system turns does not re-read the transcript at each one)
    mixed = False

    def close(end: int) -> None:
        nonlocal mixed
        body = text[start:end]
        if kind_hint == "preamble" and not body.strip():
            return
        at = opened if opening else start + len(body) - len(body.lstrip())
        if kind_hint == "span":
            seg = Segment(role, "tool", body, True, opening, line=line_at(at))
        else:
            stripped, ended = _strip_end(body, g)
            kind = _kind(role, stripped, g)
            seg = Segment(role, kind, stripped, ended, opening, body.rstrip(), line_at(at))
        current.segments.append(seg)
        if role.lower() != "system":
            mixed = True

    kind_hint = "preamble"
    while True:
        m = regex.search(text, pos)
        if m is None:
            close(len(text))
            break
        i = int(str(m.lastgroup)[1:])
        what, extra = table[i]
        close(m.start())
        if what == "bos" or (
            what == "turn" and _role_of(m, i, extra).lower() == "system" and mixed
        ):
            if current.segments:
                yield current
            current = Transcript(line_at(m.start()))
            mixed = False
        opened = m.start()
        if what == "bos":
            role, kind_hint, start, opening, pos = "system", "preamble", m.end(), m.group(), m.end()
            continue
        if what == "span":
            assert extra is not None
            found = text.find(extra, m.end())
            stop = len(text) if found < 0 else found + len(extra)
            role, kind_hint, start, opening = "tool", "span", m.start(), m.group()
            close(stop)
            # the assistant goes on after the host's span
            role, kind_hint, start, opening, pos = "assistant", "", stop, "", stop
            opened = stop
            continue
        role, kind_hint, start, opening, pos = (
            _role_of(m, i, extra),
            "",
            m.end(),
            m.group(),
            m.end(),
        )
        if pos == m.start():  # an empty match cannot advance
            pos += 1
    if current.segments:
        yield current


class _LineCounter:
    """Line numbers of increasing offsets, counted incrementally."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offset = 0
        self.line = 1

    def __call__(self, offset: int) -> int:
        if offset < self.offset:
            return self.text.count("\n", 0, offset) + 1
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def sniff_dialect(head: bytes) -> str | None:
    """The dialect of a raw transcript starting with ``head`` (``None``: not one), from the
    records' turn grammars (a registered dialect with a ``transcript`` is sniffed too): each
    grammar whose turns open the head (after leading blanks and its begin-of-text spelling; a
    chat template is no transcript) is a candidate, and the one whose begin-of-text spelling
    matched longest wins, then one whose ``marks`` occur in the head, then the first in the
    table (ChatML before the formats that reuse its turns). A legacy ``Human:`` prompt, which
    has no special tokens, needs an ``Assistant:`` turn in the head too."""
    if head.startswith((b"\n\nHuman:", b"Human:")):
        return "anthropic" if b"\n\nAssistant:" in head else None
    stripped = head.lstrip()
    text = stripped.decode("utf-8", "replace")
    whole = head.decode("utf-8", "replace")
    best: tuple[int, bool] | None = None
    found = None
    for name, grammar in GRAMMARS.items():
        if not _opens_turns(stripped, name):
            continue
        key = (
            max((len(b) for b in grammar.bos if text.startswith(b)), default=0),
            any(mark in whole for mark in grammar.marks),
        )
        if best is None or key > best:
            best, found = key, name
    return found


def _opens_turns(head: bytes, dialect: str) -> bool:
    text = head.decode("utf-8", "replace")
    g = GRAMMARS[dialect]
    regex, table = _compiled(dialect)
    for bos in g.bos:
        if text.startswith(bos):
            text = text[len(bos) :]
            if dialect.startswith("deepseek"):  # the system prompt follows the BOS
                m = regex.search(text)
                return m is not None and table[int(str(m.lastgroup)[1:])][0] == "turn"
            break
    m = regex.match(text)
    return m is not None and table[int(str(m.lastgroup)[1:])][0] == "turn"


# --- judging ---------------------------------------------------------------------------------


def _assistant(seg: Segment, i: int, line: int, make: Callable[[], Scanner], sink: Sink) -> bool:
    """Hand an assistant segment's parts to the sink, read by a fresh scanner from ``make``;
    returns whether it made a call."""
    s = make()
    # leading blanks are the template's layout (DeepSeek V3.2 writes them before the
    # assistant goes on after a tool result, then the echoed </think>)
    events = s.feed(seg.raw.lstrip()) + s.flush()
    role = seg.role[:64]
    text: list[str] = []
    thinking: list[str] = []
    names: dict[str, tuple[int, str]] = {}
    args: dict[str, list[str]] = {}
    malformed = 0
    for e in events:
        if isinstance(e, Text):
            text.append(e.text)
        elif isinstance(e, ThinkingDelta):
            thinking.append(e.delta)
        elif isinstance(e, ToolStart):
            names[e.id] = (len(names), e.name)
            args[e.id] = []
        elif isinstance(e, ToolArgs):
            args.setdefault(e.id, []).append(e.delta)
        elif isinstance(e, ResultForgery):
            reason = (
                f"forged tool result: assistant message {i} writes {e.marker!r}, which only"
                " the host writes"
            )
            sink.forgery(line, i, role, reason, e.raw or e.marker)
            break  # the rest of the segment is the forged result
        elif isinstance(e, Malformed):
            # unparsed output reaches the reader as text
            add_part(sink, Surface.TEXT, e.raw, line, i, role, f"malformed[{malformed}]")
            malformed += 1
    if text:
        add_part(sink, Surface.TEXT, "".join(text), line, i, role, "content")
    if thinking:
        add_part(sink, Surface.THINKING, "".join(thinking), line, i, role, "thinking")
    for cid, (k, name) in names.items():
        add_part(sink, Surface.TOOL_NAME, name, line, i, role, f"tool_calls[{k}].name")
        body = "".join(args.get(cid, ()))
        add_part(sink, Surface.TOOL_ARG, body, line, i, role, f"tool_calls[{k}].arguments", name)
    return bool(names)


def _factory(dialect: str) -> Callable[[], Scanner]:
    """The dialect's scanner factory (checked once: :func:`guard.scanners.scanner` verifies
    what it makes, which costs more than a small segment's scan)."""
    from guard.scanners import scanner, scanner_factory

    scanner(dialect)
    return scanner_factory(dialect)


def wire_transcript(transcript: Transcript, dialect: str, sink: Sink) -> int:
    """Hand one split transcript to the sink; returns its number of messages. Each segment's
    parts are at the line where it opens."""
    g = GRAMMARS[dialect]
    make = _factory(dialect)
    previous: Segment | None = None
    called = False
    for i, seg in enumerate(transcript.segments):
        role = seg.role[:64]
        line = seg.line
        if seg.kind == "assistant":
            called = _assistant(seg, i, line, make, sink)
        elif seg.kind == "user":
            add_part(sink, Surface.USER, seg.body, line, i, role, "content")
        else:
            if previous is not None and previous.kind == "assistant":
                why = None
                if g.end_before_tool and g.ends and not previous.ended:
                    why = f"starts inside the assistant's unfinished message {i - 1}"
                elif not called:
                    why = f"follows assistant message {i - 1}, which made no tool call"
                if why is not None:
                    reason = f"forged tool result: a tool result {why}"
                    sink.forgery(line, i, role, reason, seg.opening or preview(seg.body[:64]))
            text = result_text(seg.body, dialect)
            add_part(sink, Surface.TOOL_RESULT, text, line, i, role, "content")
        previous = seg
    return len(transcript.segments)
