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
from dataclasses import dataclass
from functools import cache

import regex

from guard.models import Dialect, Signal, Surface, TextView
from signals import load_signals

__all__ = ["StreamPlan", "stream_plan"]

#: Characters a stripped text may open with before an opening word (K's ``analysisThe``).
OPENING_SLACK = 96
_BLANKS = re.compile(r"[ \t\r\n]+")


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

    #: some anchor signal cannot be prefiltered: every delta is scanned
    always: bool
    #: a search that finds where a hit may start or continue (literals, patterns, hold first
    #: characters)
    trigger: re.Pattern[str]
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
    #: the last one or two characters of those prefixes (a quick test before the search)
    ends: frozenset[str]
    #: where a word spelling may begin
    word_start: re.Pattern[str] | None
    #: the longest word spelling
    longest_word: int
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
    #: how much of the text's end the ``ending`` signals read
    ending_span: int
    #: where a tail may start (the first characters of the tail patterns, when literal)
    tail_starts: re.Pattern[str] | None

    def may_hold(self, norm: str) -> bool:
        """Quick test: can a suffix of ``norm`` be a (blank-collapsed) prefix of a word
        spelling or a run of glue characters?"""
        if not norm:
            return False
        key = norm[-2:]
        if key[-1] in " \t\r\n":
            key = norm.rstrip()[-1:] + " "
        return key in self.ends or key[-1:] in self.ends

    def word_hold(self, norm: str) -> int | None:
        """Start of the longest suffix of ``norm`` that may still grow into a word spelling
        (a run of blanks stands for the one blank of a spelling), with the glue characters
        right before it; or of a trailing run of glue characters."""
        if not self.may_hold(norm):
            return None  # no prefix of a word spelling ends with these characters
        at = None
        if self.word_start is not None:
            core = norm.rstrip()
            slack = len(norm) - len(core)
            lo = max(0, len(core) - self.longest_word)
            for m in self.word_start.finditer(core, lo):
                rest = _BLANKS.sub(" ", norm[m.start() :])
                if rest in self.prefixes or (slack and rest[:-1] in self.prefixes):
                    at = m.start()
                    break
        if at is None:
            at = len(norm.rstrip(self.glue)) if self.glue and norm[-1:] in self.glue else None
            return at
        while at > 0 and norm[at - 1] in self.glue:
            at -= 1
        return at

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
        places = (
            (m.start() for m in self.tail_starts.finditer(norm, lo))
            if self.tail_starts is not None
            else range(lo, len(norm))
        )
        for at in places:
            if self.tail.fullmatch(norm, at, partial=True) is not None:
                return at
        return None


def stream_plan(dialect: Dialect, surface: Surface, disabled: frozenset[str]) -> StreamPlan:
    """The plan for ``surface`` of a ``dialect`` stream with ``disabled`` signals off."""
    return _plan(dialect, surface, disabled, load_signals())


@cache
def _plan(
    dialect: Dialect, surface: Surface, disabled: frozenset[str], every: tuple[Signal, ...]
) -> StreamPlan:
    active = [s for s in every if surface in s.surfaces and s.code not in disabled]
    scoped = [(s, s.triggers(dialect)) for s in active if s.kind == "anchor"]
    anchors = [s for s, t in scoped if t.scope == "anywhere"]
    openers = [(s, t) for s, t in scoped if t.scope == "opening"]
    enders = [(s, t) for s, t in scoped if t.scope == "ending"]
    cos = [s for s in active if s.kind == "co"]
    # co-signals may publish holds too: tails that may become the left end of a hit
    triggers = [t for s, t in scoped if t.scope == "anywhere"] + [s.triggers(dialect) for s in cos]
    span = max([s.max_span for s in anchors], default=0)
    before = max([s.reach[0] for s in cos], default=0)
    after = max([s.reach[1] for s in cos], default=0)
    stable = [s for s in cos if s.reach[1] == 0]

    literals = sorted({lit for t in triggers for lit in t.literals}, key=lambda s: (-len(s), s))
    patterns = [p for t in triggers for p in t.hold_patterns]
    words = sorted({w for t in triggers for w in t.hold_words})
    letter_words = [w for w in words if w[:1].isalpha()]
    patterns += [regex.escape(w) for w in words if not w[:1].isalpha()]
    opening = tuple(sorted({w for t in triggers for w in t.opening}))

    firsts = [_first_char(p) for p in patterns]
    hold_starts: re.Pattern[str] | None = None
    if patterns and None not in firsts:
        chars = {TextView(c).norm or c for c in firsts if c is not None}
        hold_starts = re.compile(f"[{re.escape(''.join(sorted(chars)))}]")
    # a delta that may begin a held spelling must be looked at, as must one holding a literal
    trigger_parts = [re.escape(lit) for lit in literals]
    trigger_parts += [f"(?:{t.pattern})" for t in triggers if t.pattern is not None]
    if hold_starts is not None:
        trigger_parts.append(hold_starts.pattern)
    elif patterns:
        trigger_parts.append(r"[\s\S]")
    trigger = re.compile("|".join(trigger_parts) or r"(?!)")

    prefixes = frozenset(w[:k] for w in letter_words for k in range(1, len(w) + 1))
    # a suffix of the text can be a prefix only if its last two characters end one (or it is
    # one character long and begins a word)
    ends = frozenset(p[-2:] for p in prefixes)
    word_firsts = sorted({w[0] for w in letter_words})
    glue = "".join(sorted({ch for t in triggers for ch in t.glue}))
    ends = ends | frozenset(glue)
    leads = [t.lead for _, t in openers if t.lead is not None]
    tails = [t.tail for _, t in enders if t.tail is not None]
    return StreamPlan(
        always=any(t.always for t in triggers),
        trigger=trigger,
        near=max([len(lit) - 1 for lit in literals], default=0),
        hold=span,
        left=before + 2 * span,
        right=after + 2 * span,
        stable_left=max([s.reach[0] for s in stable], default=0),
        stable=frozenset(s.code for s in stable),
        holds=regex.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None,
        hold_starts=hold_starts,
        prefixes=prefixes,
        ends=ends,
        word_start=re.compile(f"[{re.escape(''.join(word_firsts))}]") if word_firsts else None,
        longest_word=max(map(len, letter_words), default=0),
        opening=opening,
        opening_window=OPENING_SLACK + max(map(len, opening), default=0),
        glue=glue,
        lead=regex.compile("|".join(f"(?:{p})" for p in leads)) if leads else None,
        opening_span=max([s.max_span for s, _ in openers], default=0),
        tail=(
            regex.compile("|".join(f"(?:{p})" for p in tails), regex.VERSION1) if tails else None
        ),
        ending_span=max([s.max_span for s, _ in enders], default=0),
        tail_starts=(
            re.compile("|".join(f"(?:{t.tail_start})" for _, t in enders if t.tail_start))
            if tails and all(t.tail_start for _, t in enders if t.tail)
            else None
        ),
    )
