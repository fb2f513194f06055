"""The signal protocol: what a detector is and what it publishes about itself.

A signal is the one home of its knowledge. Besides ``scan`` it publishes what others need to
know without running it: its detection promise, the literals or pattern that every hit's text
holds (so the audit prefilter and the stream's trigger search can skip clean text); optional
stream hints, the spellings that trip at their own start (so a stream holds back a tail that
may still become one); how far around an anchor it reads (so a stream knows when an anchor's
evidence is complete); and its rank and default weight.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any, Literal, Protocol, runtime_checkable

from guard.models._dialect import Dialect
from guard.models._evidence import Hit, ScanContext
from guard.models._surface import Surface
from guard.models._text import TextView

__all__ = ["Detection", "Signal", "StreamHints", "Triggers"]


@dataclass(frozen=True, slots=True)
class Detection:
    """The promise every signal makes about its hits, for one dialect: which texts can hold
    one. Prefilters (the audit's, ``guard.detect``'s) and the stream's trigger search rely on
    it; a wrong promise loses hits.

    Attributes:
        literals: every hit this signal finds on its own lies in a text that contains one of
            these, itself or in its normalised view (case-sensitive). Text with none of them
            cannot yield a hit, so prefilters skip it. Empty for co-signals, which only qualify
            anchors.
        pattern: for hits no literal announces, a regex source (``re`` syntax) that matches
            every text that yields a hit, itself or its normalised view. It must not depend on what
            lies outside the text (no anchors or lookarounds at its ends): prefilters run it
            over many texts joined together.
        always: no prefilter is possible; every text must be scanned.
        needs_tools: the signal fires only when the request's declared tools are known
            (``ScanContext.tools`` is not ``None``); a prefilter for a scan without them leaves
            the signal out (so ``always`` costs nothing there).
        scope: ``anywhere`` (hits are found in any window of the text), ``opening`` (hits only
            at the start of the text, decided by its first ``max_span`` characters) or
            ``ending`` (hits only at the end of the text, decided when the text is final). A
            stream runs ``opening`` signals once on the opening and ``ending`` signals once at
            the end.
        last: for ``ending`` signals, the characters one of which ends (before trailing
            blanks) every text the signal fires on, itself or its normalised view: a call written
            as text ends in ``}`` or ``>``. Empty: no promise. Prefilters look for the signal's
            literals only in texts that end so.
        extends: for a co-signal: its evidence lies before the anchor and is part of the leak,
            so the hit's cut starts at it (the channel word before a marker).
        ends: for an ``anywhere`` anchor, some of whose hits depend on the end of the text (a
            form that must end it, or the whole text when it is short) or are longer than a
            window scan reads: how many of the last characters those hits read (0: none). A
            stream runs this ending part at the end, on that many last characters, beside the
            ``ending`` signals, and while the text grows, every quarter of that many characters
            (with ``ctx.final`` false: only hits that need no end); the scan's ``ctx.scopes``
            says which part is asked for, so the signal yields such hits only when it holds
            ``ending`` and its other hits only when it holds ``anywhere`` (``guard.detect``
            asks for both at once). A hit the part yields is at most half that long and starts
            in the last ``ends - 300`` characters of what it reads; one a window scan found
            too is taken once.
    """

    literals: tuple[str, ...] = ()
    pattern: str | None = None
    always: bool = False
    needs_tools: bool = False
    scope: Literal["anywhere", "opening", "ending"] = "anywhere"
    last: str = ""
    extends: bool = False
    ends: int = 0


@dataclass(frozen=True, slots=True)
class StreamHints:
    """Optional: what a stream must hold back so it never shows text a later delta turns into
    a hit. A signal whose hits are announced by a literal or pattern that arrives whole needs
    none; one whose spelling trips at its own start (so a prefix of it at the end of what has
    arrived may still become one) publishes the spellings here.

    Attributes:
        hold_words: literal spellings (normalised view) that can trip at their own start, or
            that start the tail of an ending signal; a stream holds back a tail that is a prefix
            of one until the next delta decides.
        hold_patterns: the same, as regex sources (``regex`` module syntax).
        opening: words that trip only when the text opens with them (after blanks); a stream
            holds back a text that is still (blanks and) a prefix of one, with blanks after it.
        glue: characters that belong to a hit when glued right before one of its hold words
            (closing brackets and quotes of a stripped call); a stream holds them with the word,
            and holds a tail of them until the next delta shows what follows.
        lead: for ``opening`` signals, a regex source (``regex`` syntax) matched partially
            against the start of the normalised text: while it matches and fewer than
            ``max_span`` characters have arrived, a stream holds the whole text back.
        tail: for ``ending`` signals, a regex source (``regex`` syntax) for a hit's whole
            text from its start to the end of the text; a stream holds back from the earliest
            place where the rest of the text is (a prefix of) a match.
        tail_start: for ``ending`` signals, a regex source (``re`` syntax) matching where such
            a tail may begin (its first characters, at most 64), so a stream tries only those
            places; a prefix of a tail start that is a word belongs in ``hold_words``.
    """

    hold_words: tuple[str, ...] = ()
    hold_patterns: tuple[str, ...] = ()
    opening: tuple[str, ...] = ()
    glue: str = ""
    lead: str | None = None
    tail: str | None = None
    tail_start: str | None = None


_DETECTION = frozenset(f.name for f in fields(Detection))
_HINTS = frozenset(f.name for f in fields(StreamHints))


@dataclass(frozen=True, slots=True, init=False)
class Triggers:
    """What a signal publishes for one dialect: its :class:`Detection` promise and its
    optional :class:`StreamHints`.

    Built either from the two parts (``Triggers(Detection(literals=("<|",)))``) or from their
    fields as keywords (``Triggers(literals=("<|",), hold_words=("assistant",))``); each field
    is also readable here (``triggers.literals``).
    """

    detection: Detection
    hints: StreamHints

    def __init__(
        self,
        detection: Detection | None = None,
        hints: StreamHints | None = None,
        **fields: Any,
    ) -> None:
        unknown = set(fields) - _DETECTION - _HINTS
        if unknown:
            raise TypeError(
                f"Triggers() got unexpected keyword(s) {', '.join(sorted(unknown))}; expected"
                f" fields of Detection or StreamHints"
            )
        own = {k: v for k, v in fields.items() if k in _DETECTION}
        hinted = {k: v for k, v in fields.items() if k in _HINTS}
        if (own and detection is not None) or (hinted and hints is not None):
            raise TypeError("Triggers(): pass a part or its fields, not both")
        object.__setattr__(self, "detection", detection or Detection(**own))
        object.__setattr__(self, "hints", hints or StreamHints(**hinted))

    def __getattr__(self, name: str) -> Any:
        # only called for names that are not the two parts: a field of one of them
        if name in _DETECTION:
            return getattr(self.detection, name)
        if name in _HINTS:
            return getattr(self.hints, name)
        raise AttributeError(f"'Triggers' object has no attribute {name!r}")


@runtime_checkable
class Signal(Protocol):
    """A detector. Pure: same text and context, same hits.

    ``kind`` is ``"anchor"`` for signals that find evidence on their own (H, K, M, N) and
    ``"co"`` for co-signals that qualify anchors (C, G, S, B, R, T): a co-signal reads
    ``ctx.anchors`` and returns hits whose ``anchor`` is the index of the anchor they support
    (or ``None`` for standalone evidence, which the gate attaches to an overlapping anchor).

    ``max_span`` is the longest text one hit covers. ``reach`` is, for a co-signal, how far
    before an anchor's start and after its end it reads (a stream settles an anchor once that
    much text has arrived after it); ``(0, 0)`` for anchors. ``order`` ranks signals in labels
    and reports; ``weight`` is the default weight a policy gives the signal in a verdict's score.
    """

    code: str
    name: str
    kind: Literal["anchor", "co"]
    surfaces: frozenset[Surface]
    max_span: int
    reach: tuple[int, int]
    order: int
    weight: float

    def triggers(self, dialect: Dialect) -> Triggers: ...

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]: ...
