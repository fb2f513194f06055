"""What a stream needs to know about the signals, read from what they publish.

A :class:`StreamPlan` is built once per dialect, surface and set of enabled signals from each
signal's :class:`~guard.models.Triggers`, ``max_span`` and ``reach``: which text can start a hit
(so a delta without any of it costs one search), which tails must be held back because they may
still grow into a spelling that trips at its own start, and how much text around an anchor must
be in view before its co-signals are complete. Nothing here names a signal, so a plugin signal
gets the same treatment as a built-in one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TypeVar

import regex

from guard._regex_source import literal_prefixes, longest_match
from guard.gate._wake import wake_test
from guard.models import Dialect, Signal, StreamHints, Surface, TextView, Triggers
from guard.signals import load_signals

__all__ = ["StreamPlan", "stream_plan"]

#: Characters a stripped text may open with before an opening word (K's ``analysisThe``).
OPENING_SLACK = 96
_BLANK_CHARS = frozenset(" \t\r\n")
#: how many final characters key the memo of :meth:`StreamPlan.word_hold` at least and at
#: most, and its bound
MEMO_KEY = 3
MEMO_KEY_MAX = 16
MEMO_CAP = 50_000
#: a memo value: a longer end of the text decides (look up one more character)
MEMO_LONGER = -3
#: how many characters from a possible tail start key the memo of :meth:`StreamPlan.tail_hold`,
#: and its bound (cleared when full)
TAIL_KEY = 16
TAIL_MEMO_CAP = 4_096
#: a stream runs the ending parts of ``anywhere`` signals every ``ends // SWEEP_PARTS``
#: characters: a hit of at most ``ends / 2`` characters that starts in the last ``ends - 300``
#: of some run then lies whole in one, with its co-signals' right reach, while that reach is at
#: most ``ends / 4 - 300`` (724 for Y's 4,096; the plans' is 620: a test holds them to it)
SWEEP_PARTS = 4


_P = TypeVar("_P")


def _first_char(source: str) -> str | None:
    """The literal first character of a regex source, or ``None`` when it is not a literal."""
    if not source:
        return None
    if source[0] == "\\" and len(source) > 1 and not source[1].isalnum():
        return source[1]
    if source[0] in ".^$*+?{}[]|()\\":
        return None
    return source[0]


@dataclass(frozen=True)
class StreamPlan:
    """Derived facts for one surface of one stream (see the module docstring)."""

    #: ``quiet_test(delta, near)``: True when a quiet monitor may take ``delta`` without a scan
    #: (see :meth:`SurfaceMonitor.feed`); ``None``: never quiet
    quiet_test: Callable[[str, str], bool] | None
    #: every piece that ends a word-spelling prefix (its suffixes)
    pieces: frozenset[str]
    #: how much of the text's end a quiet monitor keeps in view
    quiet_near: int
    #: some anchor signal cannot be prefiltered: every delta is scanned
    always: bool
    #: a search that finds where a hit may start or continue (literals, patterns, hold first
    #: characters)
    trigger: re.Pattern[str]
    #: the part of :attr:`trigger` that arms the scan for :attr:`hold` characters (literals and
    #: patterns; a hold first character alone only asks to look and hold); :attr:`trigger`
    #: itself when it holds no first characters
    arm: re.Pattern[str]
    #: characters of the tail that a trigger literal may straddle (the longest one, less one)
    near: int
    #: length of the tail kept for hold decisions (the longest anchor span)
    hold: int
    #: text to the left of a settling anchor a scan must include
    left: int
    #: text to the right of an anchor's start that must arrive before it settles
    right: int
    #: how far left of an anchor the co-signals that read nothing to its right look
    stable_left: int
    #: codes of those co-signals: their support is final as soon as the anchor is found
    stable: frozenset[str]
    #: spellings that trip at their own start, matched partially at the end of the tail
    holds: regex.Pattern[str] | None
    #: where such a spelling may begin (``None``: anywhere)
    hold_starts: re.Pattern[str] | None
    #: proper and full prefixes of the word spellings that trip at their own start
    prefixes: frozenset[str]
    #: words that trip only when the text opens with them
    opening: tuple[str, ...]
    #: how long the text may be while an opening word can still form
    opening_window: int
    #: characters glued before a hold word that belong to its hit (held with it)
    glue: str
    #: the ``opening`` signals' leads, one pattern (``None``: no opening signal)
    lead: regex.Pattern[str] | None
    #: how much of the text's opening decides the ``opening`` signals
    opening_span: int
    #: the ``ending`` signals' whole-tail patterns (``None``: no ending signal)
    tail: regex.Pattern[str] | None
    #: how much of the text's end the ``ending`` signals (and the ending parts of ``anywhere``
    #: signals: ``Detection.ends``) read
    ending_span: int
    #: where a tail may start (the first characters of the tail patterns, when literal)
    tail_starts: re.Pattern[str] | None
    #: some signal reads the end of the text: the monitor runs the ending pass at finish
    ends: bool = False
    #: the ``anywhere`` anchors with an ending part (``Detection.ends``): a hit their window
    #: scans already found is not taken again from the ending pass
    end_codes: frozenset[str] = frozenset()
    #: how often (in characters) a stream runs those ending parts over the end of the text
    #: kept so far, so a hit longer than a window scan reads is found while the stream goes on
    #: (0: never)
    sweep: int = 0
    #: the longest text a :attr:`holds` spelling can be (``None``: unbounded, or not known): a
    #: proper prefix of one starts less than that many characters before the end
    hold_reach: int | None = None
    #: every proper prefix of a :attr:`holds` spelling, when each is a literal (``None``
    #: otherwise): a place whose rest is not one cannot be held, without running the pattern
    hold_prefixes: frozenset[str] | None = None
    #: :meth:`suffix_hold` answers by the end of the text that decided them: ``MEMO_KEY`` to
    #: ``MEMO_KEY_MAX`` characters; a shorter key whose answer needs more maps to MEMO_LONGER
    memo: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    #: :meth:`tail_hold`'s first test, by the ``TAIL_KEY`` characters from a possible start:
    #: whether they may begin an ending signal's hit (bounded by ``TAIL_MEMO_CAP``)
    tail_memo: dict[str, bool] = field(default_factory=dict, compare=False, repr=False)

    def suffix_hold(self, norm: str) -> int:
        """The length of the longest suffix of ``norm`` that may still grow into a word
        spelling: 0 for none, -1 when ``norm`` is too short to tell (the whole of it may be
        one). A run of blanks stands for the one blank of a spelling, and blanks at the very
        end may follow a whole prefix."""
        return self._suffix_walk(norm)[0]

    def _suffix_walk(self, norm: str) -> tuple[int, int]:
        """:meth:`suffix_hold`, and how many characters of the end decided it (more than
        ``len(norm)`` when the walk reached the start). The suffixes are walked from the
        shortest, right to left, while they can still end a prefix: a few steps on ordinary
        text."""
        n = len(norm)
        i = n
        while i and norm[i - 1] in _BLANK_CHARS:
            i -= 1
        slack = i < n
        pieces = self.pieces
        prefixes = self.prefixes
        piece = " " if slack else ""
        best = 0
        blank = slack
        j = i - 1
        while j >= 0:
            ch = norm[j]
            if ch in _BLANK_CHARS:
                if blank:
                    j -= 1
                    continue  # collapsed into the blank already taken
                ch = " "
                blank = True
            else:
                blank = False
            piece = ch + piece
            core = piece[:-1] if slack else piece
            if piece not in pieces and not (slack and core in pieces):
                break
            if piece in prefixes or (slack and core in prefixes):
                best = n - j
            j -= 1
        if j < 0 and i:
            return -1, n + 1  # still a possible piece at the start of what we see: cannot tell
        return best, n - j

    def word_hold(self, norm: str) -> int | None:
        """Start of the longest suffix of ``norm`` that may still grow into a word spelling
        (see :meth:`suffix_hold`), with the glue characters right before it; or of a trailing
        run of glue characters; ``None`` when nothing needs holding.

        On ordinary text the answer is decided by the last few characters; it is remembered
        by them (:attr:`memo`, bounded), so most calls cost one lookup."""
        held = 0 if not self.prefixes else self.memo_hold(norm)
        if held < 0:
            return 0
        if not held:
            if self.glue and norm[-1:] in self.glue:
                return len(norm.rstrip(self.glue))
            return None
        at = len(norm) - held
        while at > 0 and norm[at - 1] in self.glue:
            at -= 1
        return at

    def memo_hold(self, norm: str, k: int = MEMO_KEY) -> int:
        """:meth:`suffix_hold` through :attr:`memo`. The walk reads the end of the text and
        stops at the first character that ends no piece, so its answer depends only on the
        characters it read (``seen``): remember it under exactly those, and mark every shorter
        end as "look one character further". ``k``: the shortest key not known to say so."""
        memo = self.memo
        n = len(norm)
        while k <= n and k <= MEMO_KEY_MAX:
            held = memo.get(norm[-k:], -2)
            if held != MEMO_LONGER:
                if held != -2:
                    return held
                break
            k += 1
        held, seen = self._suffix_walk(norm)
        if seen <= n and n >= MEMO_KEY and len(memo) < MEMO_CAP:
            if seen <= MEMO_KEY:
                memo[norm[-MEMO_KEY:]] = held
            elif seen <= MEMO_KEY_MAX:
                for short in range(MEMO_KEY, seen):
                    memo[norm[-short:]] = MEMO_LONGER
                memo[norm[-seen:]] = held
        return held

    def opening_hold(self, norm: str) -> int | None:
        """Where a text that is still (blanks and) a prefix of an opening word, maybe with
        blanks after it, starts it."""
        opening = norm.lstrip()
        core = opening.rstrip()
        if core and any(w.startswith(core) for w in self.opening):
            return len(norm) - len(opening)
        return None

    def opens(self, head: str) -> bool:
        """The text's start (blanks aside) is, or may still become, an opening word."""
        start = head.lstrip()
        if not start:
            return False
        norm = start if start.isascii() else TextView(start).norm
        return any(norm.startswith(w) or w.startswith(norm) for w in self.opening)

    def leads(self, norm: str) -> bool:
        """The text may still open with a hit of an ``opening`` signal."""
        if self.lead is None:
            return False
        return self.lead.match(norm, partial=True) is not None

    def tail_hold(self, norm: str, lo: int) -> int | None:
        """The earliest place at or after ``lo`` from which the rest of ``norm`` is (a prefix
        of) a hit of an ``ending`` signal."""
        if self.tail is None:
            return None
        starts = self.tail_starts
        # A rest that is (a prefix of) a hit begins with a prefix of one: its first TAIL_KEY
        # characters answer most places by a lookup (a run of `<` or `[` is one key), and only
        # a place that passes is matched whole. One call of the tail pattern costs tens of
        # microseconds however little it reads, far too much to pay for every `<` of a run;
        # and the places inside a run whose key is the run's character alone are answered by
        # the first of them.
        tail = self.tail
        memo = self.tail_memo
        end = len(norm)
        resume: int | None = lo
        while resume is not None:
            places = (
                (m.start() for m in starts.finditer(norm, resume))
                if starts is not None
                else range(resume, end)
            )
            resume = None
            for at in places:
                head = norm[at : at + TAIL_KEY]
                may = memo.get(head)
                if may is None:
                    may = tail.fullmatch(head, partial=True) is not None
                    if len(memo) >= TAIL_MEMO_CAP:
                        memo.clear()
                    memo[head] = may
                if may and (end - at <= TAIL_KEY or tail.fullmatch(norm, at, partial=True)):
                    return at
                if (
                    not may
                    and len(head) == TAIL_KEY
                    and head[0] == head[1]
                    and head.count(head[0]) == TAIL_KEY
                ):
                    # every place up to TAIL_KEY before the run's end has this same key
                    resume = max(at + 1, _run_end(norm, at) - TAIL_KEY + 1)
                    break
        return None


def _run_end(text: str, at: int) -> int:
    """Where the run of ``text[at]`` that starts at ``at`` ends."""
    char = text[at]
    pattern = _RUNS.get(char)
    if pattern is None:
        if len(_RUNS) >= 256:
            _RUNS.clear()
        pattern = _RUNS[char] = re.compile(re.escape(char) + "+")
    return pattern.match(text, at).end()  # type: ignore[union-attr]


_RUNS: dict[str, re.Pattern[str]] = {}


def stream_plan(
    dialect: Dialect,
    surface: Surface,
    disabled: frozenset[str],
    signals: tuple[Signal, ...] | None = None,
) -> StreamPlan:
    """The plan for ``surface`` of a ``dialect`` stream with ``disabled`` signals off, from
    ``signals`` (default: every registered signal)."""
    return _plan(dialect, surface, disabled, load_signals() if signals is None else signals)


@cache
def untooled(dialect: Dialect, every: tuple[Signal, ...]) -> tuple[Signal, ...]:
    """``every`` without the signals that fire only with declared tools: a stream whose
    request declared none neither watches for their triggers nor keeps their span (the plan
    is per dialect; the request's tools decide which of two plans a stream takes)."""
    return tuple(s for s in every if not s.triggers(dialect).detection.needs_tools)


@cache
def _plan(
    dialect: Dialect, surface: Surface, disabled: frozenset[str], every: tuple[Signal, ...]
) -> StreamPlan:
    roles = _Roles.of(dialect, surface, disabled, every)
    literals = sorted(
        {lit for t in roles.triggers for lit in t.detection.literals}, key=lambda s: (-len(s), s)
    )
    patterns, letter_words = _held_spellings(roles)
    hold_starts = _hold_starts(patterns)
    sources = _trigger_sources(roles, patterns, hold_starts)
    trigger = _search(literals, sources)
    # the hold first characters (appended last) only ask to look: the rest arms the scan
    arm = trigger if hold_starts is None else _search(literals, sources[:-1])
    opening = tuple(sorted({w for t in roles.triggers for w in t.hints.opening}))
    prefixes = frozenset(w[:k] for w in letter_words for k in range(1, len(w) + 1))
    ending = _Ending.of(roles.enders)
    near = max([len(lit) - 1 for lit in literals], default=0)
    return StreamPlan(
        quiet_test=wake_test(
            literals, sources, ending.start_sources if ending.every_start else None
        ),
        pieces=frozenset(p[i:] for p in prefixes for i in range(len(p))),
        quiet_near=max(near, max(map(len, letter_words), default=0)),
        always=any(t.detection.always for t in roles.triggers),
        trigger=trigger,
        arm=arm,
        near=near,
        hold=roles.span,
        left=roles.before + 2 * roles.span,
        right=roles.after + 2 * roles.span,
        stable_left=roles.stable_left,
        stable=frozenset(s.code for s in roles.stable),
        holds=_union(patterns, regex.compile),
        hold_starts=hold_starts,
        hold_reach=longest_match(patterns),
        hold_prefixes=literal_prefixes(patterns),
        prefixes=prefixes,
        opening=opening,
        opening_window=OPENING_SLACK + max(map(len, opening), default=0),
        glue="".join(sorted({ch for t in roles.triggers for ch in t.hints.glue})),
        lead=_union(
            [t.hints.lead for _, t in roles.openers if t.hints.lead is not None], regex.compile
        ),
        opening_span=max([s.max_span for s, _ in roles.openers], default=0),
        tail=ending.tail,
        ending_span=max(ending.span, roles.ends),
        ends=bool(roles.enders) or roles.ends > 0,
        end_codes=roles.end_codes,
        sweep=roles.ends // SWEEP_PARTS,
        tail_starts=ending.starts,
    )


def _union(sources: list[str], compile: Callable[[str], _P]) -> _P | None:
    """One pattern matching any of ``sources`` (``None`` for none)."""
    return compile("|".join(f"(?:{p})" for p in sources)) if sources else None


def _search(literals: list[str], sources: list[str]) -> re.Pattern[str]:
    """One search for any of ``literals`` or of the regex ``sources`` (none: never matches)."""
    return re.compile(
        "|".join([re.escape(lit) for lit in literals] + [f"(?:{p})" for p in sources]) or r"(?!)"
    )


def _trigger_sources(
    roles: _Roles, patterns: list[str], hold_starts: re.Pattern[str] | None
) -> list[str]:
    """The regex sources of the trigger search besides the literals: the published patterns,
    and where a held spelling may begin (a delta that may begin one must be looked at)."""
    sources = [t.detection.pattern for t in roles.triggers if t.detection.pattern is not None]
    if hold_starts is not None:
        sources.append(hold_starts.pattern)
    elif patterns:
        sources.append(r"[\s\S]")
    return sources


@dataclass(frozen=True)
class _Roles:
    """The enabled signals of one surface by the part they play in a stream."""

    #: what the ``anywhere`` anchors and the co-signals publish (co-signals may publish holds
    #: too: tails that may become the left end of a hit)
    triggers: list[Triggers]
    #: the ``opening`` and ``ending`` anchor signals, with what they publish
    openers: list[tuple[Signal, Triggers]]
    enders: list[tuple[Signal, Triggers]]
    #: the co-signals that read nothing right of an anchor
    stable: list[Signal]
    #: the longest ``anywhere`` anchor span; the co-signals' furthest reach left and right
    span: int
    before: int
    after: int
    #: how much of the text's end the ``anywhere`` anchors' ending parts read, and their codes
    ends: int = 0
    end_codes: frozenset[str] = frozenset()

    @property
    def leads(self) -> list[StreamHints]:
        """The hints of the ``opening`` signals that publish a lead."""
        return [t.hints for _, t in self.openers if t.hints.lead is not None]

    @property
    def stable_left(self) -> int:
        """How far left of an anchor the :attr:`stable` co-signals look."""
        return max([s.reach[0] for s in self.stable], default=0)

    @classmethod
    def of(
        cls, dialect: Dialect, surface: Surface, disabled: frozenset[str], every: tuple[Signal, ...]
    ) -> _Roles:
        active = [s for s in every if surface in s.surfaces and s.code not in disabled]
        scoped = [(s, s.triggers(dialect)) for s in active if s.kind == "anchor"]
        anchors = [(s, t) for s, t in scoped if t.detection.scope == "anywhere"]
        cos = [s for s in active if s.kind == "co"]
        return cls(
            triggers=[t for _, t in anchors] + [s.triggers(dialect) for s in cos],
            openers=[(s, t) for s, t in scoped if t.detection.scope == "opening"],
            enders=[(s, t) for s, t in scoped if t.detection.scope == "ending"],
            stable=[s for s in cos if s.reach[1] == 0],
            span=max([s.max_span for s, _ in anchors], default=0),
            ends=max([t.detection.ends for _, t in anchors], default=0),
            end_codes=frozenset(s.code for s, t in anchors if t.detection.ends),
            before=max([s.reach[0] for s in cos], default=0),
            after=max([s.reach[1] for s in cos], default=0),
        )


def _held_spellings(roles: _Roles) -> tuple[list[str], list[str]]:
    """The spellings a stream holds back: as regex sources (the published patterns and the
    words that do not start with a letter), and the words that do (held by their prefixes).
    Signals of the end hold back the spellings their tails start with, too."""
    holders = roles.triggers + [t for _, t in roles.enders]
    patterns = [p for t in holders for p in t.hints.hold_patterns]
    words = sorted({w for t in holders for w in t.hints.hold_words})
    patterns += [regex.escape(w) for w in words if not w[:1].isalpha()]
    return patterns, [w for w in words if w[:1].isalpha()]


def _hold_starts(patterns: list[str]) -> re.Pattern[str] | None:
    """The characters a held spelling may begin with, when every pattern's first one is a
    literal (``None``: a spelling may begin anywhere)."""
    firsts = [_first_char(p) for p in patterns]
    if not patterns or None in firsts:
        return None
    starts = {TextView(c).norm or c for c in firsts if c is not None}
    return re.compile(f"[{re.escape(''.join(sorted(starts)))}]")


@dataclass(frozen=True)
class _Ending:
    """What the ``ending`` signals publish, compiled."""

    #: their whole-tail patterns (``None``: no ending signal with one)
    tail: regex.Pattern[str] | None
    #: where a tail may start (``None``: some tail has no published start)
    starts: re.Pattern[str] | None
    #: the published tail starts, and whether every ending signal publishes one
    start_sources: list[str]
    every_start: bool
    span: int

    @classmethod
    def of(cls, enders: list[tuple[Signal, Triggers]]) -> _Ending:
        tails = [t.hints.tail for _, t in enders if t.hints.tail is not None]
        starts = [t.hints.tail_start for _, t in enders if t.hints.tail_start]
        tail = regex.compile("|".join(f"(?:{p})" for p in tails), regex.VERSION1) if tails else None
        with_tail_start = all(t.hints.tail_start for _, t in enders if t.hints.tail)
        return cls(
            tail=tail,
            starts=_union(starts, re.compile) if tails and with_tail_start else None,
            start_sources=starts if tails else [],
            every_start=not tails or len(starts) == len(enders),
            span=max([s.max_span for s, _ in enders], default=0),
        )
