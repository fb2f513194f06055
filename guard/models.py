"""Models shared by guard, signals and recovery.

This module imports nothing else of the project, so every package can depend on it without
cycles. It holds the dialect record, the surfaces, the evidence a signal reports (`Hit`), the
gate's answer (`Verdict`), what a signal is told about the text it scans (`ScanContext`), and the
normalised view of a text that makes lookalike spellings match (`TextView`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "INPUT_SURFACES",
    "OUTPUT_SURFACES",
    "Abort",
    "Dialect",
    "Event",
    "Hit",
    "Malformed",
    "Outcome",
    "Recovered",
    "Recovery",
    "ResultForgery",
    "Retry",
    "ScanContext",
    "Scanner",
    "Signal",
    "Split",
    "Surface",
    "Text",
    "TextView",
    "ThinkingDelta",
    "ThinkingEnd",
    "ThinkingStart",
    "ToolArgs",
    "ToolEnd",
    "ToolStart",
    "Verdict",
]


# ---------------------------------------------------------------------------------------------
# Dialect record


@dataclass(frozen=True, slots=True)
class Dialect:
    """A model family's in-band wire format, as data.

    Escaping, the control-token signal and the forgery check all read this record, so adding a
    dialect is adding data (plus a scanner). Conventions for the pattern fields (regex sources in
    ``regex`` module syntax): a bar that belongs to the spelling is written ``\\|`` (ASCII) or
    ``｜`` (U+FF5C) and never appears inside a character class, because the escaper derives its
    own patterns by placing optional backslash runs before every such bar.

    Attributes:
        name: canonical lower-case name (``harmony``, ``chatglm3``, ...).
        reserved: every exact control spelling of the family. Untrusted text must never carry
            one of these to the model unescaped.
        aliases: other names accepted by :func:`guard.get_dialect`.
        reserved_patterns: families of reserved spellings matched by pattern (Harmony's
            ``<|reserved_N|>`` and header forms, Llama's ``<|reserved_special_token_N|>``).
        escape_patterns: token-shaped spellings that are escaped in untrusted text for safety
            but are not known control tokens, so detection does not treat them as such.
        call_open / call_close: spellings that open and close a tool call in model output.
        result_open: spellings only the host may write (a tool result opening); in model
            output they mean a forged tool result.
        result_open_patterns: the same, as patterns (Harmony: ``<|start|>`` with an author
            other than ``assistant``).
        thinking: ``(open, close)`` pairs of reasoning markers.
        stop: generation stop spellings; one at the very end of output is the model stopping.
        family: a short human description with the models it covers.
        sources: where the facts came from.
    """

    name: str
    reserved: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    reserved_patterns: tuple[str, ...] = ()
    escape_patterns: tuple[str, ...] = ()
    call_open: tuple[str, ...] = ()
    call_close: tuple[str, ...] = ()
    result_open: tuple[str, ...] = ()
    result_open_patterns: tuple[str, ...] = ()
    thinking: tuple[tuple[str, str], ...] = ()
    stop: tuple[str, ...] = ()
    family: str = ""
    sources: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if not self.name or self.name != self.name.lower():
            raise ValueError(f"dialect name must be non-empty lower case, got {self.name!r}")
        for spelling in self.reserved:
            if not spelling:
                raise ValueError(f"dialect {self.name!r}: empty reserved spelling")
            if "\\" in spelling:
                raise ValueError(
                    f"dialect {self.name!r}: reserved spelling {spelling!r} contains a backslash,"
                    " which the escaping scheme reserves for itself"
                )
        for spelling in (*self.call_open, *self.call_close, *self.result_open, *self.stop):
            if not spelling:
                raise ValueError(f"dialect {self.name!r}: empty marker spelling")


# ---------------------------------------------------------------------------------------------
# Surfaces


class Surface(StrEnum):
    """Where a piece of text sits (SPEC.md 4.2)."""

    TEXT = "text"
    THINKING = "thinking"
    TOOL_ARG = "tool_arg"
    TOOL_NAME = "tool_name"
    USER = "user"
    TOOL_RESULT = "tool_result"

    @property
    def is_input(self) -> bool:
        """Untrusted input: never a leak verdict, an injection finding instead."""
        return self in INPUT_SURFACES


OUTPUT_SURFACES = frozenset({Surface.TEXT, Surface.THINKING, Surface.TOOL_ARG, Surface.TOOL_NAME})
INPUT_SURFACES = frozenset({Surface.USER, Surface.TOOL_RESULT})


# ---------------------------------------------------------------------------------------------
# Evidence and verdicts


class Hit(BaseModel):
    """One piece of evidence: a span of the original text and the signals that fired on it.

    ``signals`` starts with the signal that found the span (``H``, ``K``, ``M``, ...) and lists
    the co-signals that attached to it, in the order ``M C G S B R T``. Offsets are absolute
    positions in the original text (Python string indices), even when the match was made in the
    normalised view.
    """

    model_config = ConfigDict(frozen=True)

    signals: tuple[str, ...]
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    evidence: str
    detail: str = ""
    #: for a co-signal's hit: the index in ``ScanContext.anchors`` of the anchor it supports
    anchor: int | None = None
    #: for an anchor: the co-signal hits attached to it (their own spans and details)
    support: tuple[Hit, ...] = ()
    in_code: bool = False
    trips: bool = False
    score: float = 0.0

    @property
    def code(self) -> str:
        """The signal that found this span."""
        return self.signals[0]

    @property
    def label(self) -> str:
        """``M+C+S`` style label."""
        return "+".join(self.signals)


class Verdict(BaseModel):
    """The gate's answer for one piece of text on one surface.

    ``cut`` is the offset from which the text is untrusted (the start of the first tripping
    hit), ``None`` when nothing trips. For input surfaces ``leak`` is always false and
    ``injection`` lists the reserved spellings found (escaping required).
    """

    model_config = ConfigDict(frozen=True)

    leak: bool
    surface: Surface
    dialect: str
    signals: tuple[str, ...] = ()
    hits: tuple[Hit, ...] = ()
    cut: int | None = None
    score: float = 0.0
    reason: str = "clean"
    injection: tuple[str, ...] = ()
    part: str | None = None
    tool_name: str | None = None

    def __bool__(self) -> bool:  # pragma: no cover - convenience
        return self.leak


class ScanContext(BaseModel):
    """What a signal is told about the text it scans."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    dialect: Dialect
    surface: Surface
    parsed_end: int | None = None
    tool_name: str | None = None
    #: Hits of the anchor signals (H, K, M, ...): co-signals attach to these.
    anchors: tuple[Hit, ...] = ()
    #: Where the scanned text starts in the whole text (a stream scans windows); signals that
    #: look at the start of the text (K's glued opening) fire only when this is 0.
    offset: int = 0


class Signal(Protocol):
    """A detector (DESIGN.md "Signal"). Pure: same text and context, same hits.

    ``kind`` is ``"anchor"`` for signals that find evidence on their own (H, K, M, N) and
    ``"co"`` for co-signals that qualify anchors (C, G, S, B, R, T): a co-signal reads
    ``ctx.anchors`` and returns hits whose ``anchor`` is the index of the anchor they support
    (or ``None`` for standalone evidence, which the gate attaches to an overlapping anchor).
    ``max_span`` bounds how much text one hit (with its windows) can cover, so streaming can
    keep a bounded tail.
    """

    code: str
    name: str
    kind: Literal["anchor", "co"]
    surfaces: frozenset[Surface]
    max_span: int

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]: ...


# ---------------------------------------------------------------------------------------------
# Normalised view

_DELETE = frozenset(
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u200b\u200c\u200d\u200e"
    "\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069"
    "\u3164\ufe00\ufe01\ufe0e\ufe0f\ufeff\uffa0"
)

_DELETE_RE = re.compile("[" + "".join(sorted(_DELETE)) + "]")

_BAR_LOOKALIKES = "\uff5c\u2223\u01c0\u2502\ufe31\u23d0\uffe8\u2758\u05c0\u2503\u239c\u20d2"

_FOLD: dict[int, str] = {
    **{ord(ch): "|" for ch in _BAR_LOOKALIKES},
    # fullwidth and small punctuation that spells markers
    0xFF1C: "<",
    0xFF1E: ">",
    0xFE64: "<",
    0xFE65: ">",
    0xFF1D: "=",
    0xFE66: "=",
    0xFF0E: ".",
    0xFF3F: "_",
    # fullwidth ASCII letters and digits
    **{cp: chr(cp - 0xFEE0) for cp in range(0xFF10, 0xFF1A)},
    **{cp: chr(cp - 0xFEE0) for cp in range(0xFF21, 0xFF3B)},
    **{cp: chr(cp - 0xFEE0) for cp in range(0xFF41, 0xFF5B)},
    # Cyrillic homoglyphs
    **{ord(k): v for k, v in zip("аеорсухіјѕԁԛԝһӏ", "aeopcyxijsdqwhl", strict=True)},
    **{ord(k): v for k, v in zip("АВЕКМНОРСТХІЈЅ", "ABEKMHOPCTXIJS", strict=True)},
    # Greek homoglyphs
    **{ord(k): v for k, v in zip("οαινρυκτ", "oaivpukt", strict=True)},
    **{ord(k): v for k, v in zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True)},
}


_FOLD_RE = re.compile("[" + re.escape("".join(chr(cp) for cp in _FOLD)) + "]")


class TextView:
    """A text and its normalised twin, with offsets of the twin mapped back to the original.

    Normalisation deletes zero-width and other invisible characters (soft hyphen, joiners,
    direction marks, variation selectors), maps bar lookalikes (fullwidth ``｜``, ``∣``, ``ǀ``,
    box-drawing bars) to ``|``, fullwidth ASCII to ASCII, and Cyrillic/Greek homoglyphs to the
    Latin letters they imitate. ASCII text is its own normalised view at no cost.
    """

    __slots__ = ("_deleted", "_npos", "norm", "original")

    def __init__(self, original: str) -> None:
        self.original = original
        self._deleted: list[int] = []
        self._npos: list[int] = []
        if original.isascii():
            self.norm = original
            return
        # 1:1 folding keeps offsets; most non-ASCII text (CJK, accents) has nothing to fold.
        folded = original.translate(_FOLD) if _FOLD_RE.search(original) else original
        if _DELETE_RE.search(folded) is None:
            self.norm = folded
            return
        self._deleted = [m.start() for m in _DELETE_RE.finditer(folded)]
        self.norm = _DELETE_RE.sub("", folded)
        # For the j-th deleted original index d_j, the normalised index of the next kept char.
        self._npos = [d - j for j, d in enumerate(self._deleted)]

    @property
    def identity(self) -> bool:
        """True when normalised offsets equal original offsets."""
        return not self._npos

    def to_original(self, n: int) -> int:
        """Original index of the character at normalised index ``n`` (a start offset)."""
        if not self._npos:
            return n
        return n + bisect.bisect_right(self._npos, n)

    def to_original_end(self, n: int) -> int:
        """Original end offset (exclusive) for a normalised end offset ``n``."""
        if not self._npos or n == 0:
            return n
        return self.to_original(n - 1) + 1

    def to_norm(self, o: int) -> int:
        """Normalised index for original index ``o`` (deleted characters map forward)."""
        if not self._deleted:
            return o
        return o - bisect.bisect_left(self._deleted, o)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Map a normalised ``[start, end)`` span to the original text."""
        o_start = self.to_original(start)
        return o_start, (self.to_original_end(end) if end > start else o_start)

    def __len__(self) -> int:
        return len(self.original)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"TextView(len={len(self.original)}, identity={self.identity})"


# ---------------------------------------------------------------------------------------------
# Recovery outcomes


class Split(BaseModel):
    """Text and thinking separated again (what thinking-repair recovers)."""

    model_config = ConfigDict(frozen=True)

    text: str
    thinking: str


class Recovered(BaseModel):
    """The strategy produced a value the caller can use in place of the contaminated one."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["recovered"] = "recovered"
    value: str | Split
    strategy: str
    detail: str = ""


class Retry(BaseModel):
    """Re-sample the turn (guard never calls a provider itself); ``attempt`` counts from 1."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["retry"] = "retry"
    reason: str
    attempt: int = Field(ge=1)
    max_attempts: int = Field(ge=1)
    strategy: str


class Abort(BaseModel):
    """Nothing usable can be recovered: fail the turn."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["abort"] = "abort"
    reason: str
    strategy: str


Outcome = Recovered | Retry | Abort


class Recovery(Protocol):
    """A recovery strategy (DESIGN.md "Recovery"): pure, returns a typed outcome."""

    name: str

    def apply(self, value: str, verdict: Verdict, *, attempt: int = 0) -> Outcome: ...


# ---------------------------------------------------------------------------------------------
# Scanner events
#
# Frozen slotted dataclasses rather than pydantic models: a scanner emits several per chunk on the
# hot path of a stream. Every event carries ``raw``, the exact input text it covers, so that the
# concatenation of the raw text of all events equals the scanner's input (law L1).


@dataclass(frozen=True, slots=True)
class Text:
    """Visible text (``text`` is what a user would see; ``raw`` may also hold markers)."""

    text: str
    raw: str


@dataclass(frozen=True, slots=True)
class ThinkingStart:
    raw: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    delta: str
    raw: str


@dataclass(frozen=True, slots=True)
class ThinkingEnd:
    raw: str


@dataclass(frozen=True, slots=True)
class ToolStart:
    id: str
    name: str
    raw: str


@dataclass(frozen=True, slots=True)
class ToolArgs:
    id: str
    delta: str
    raw: str


@dataclass(frozen=True, slots=True)
class ToolEnd:
    """A complete call. ``arguments`` is the raw argument text (never re-encoded)."""

    id: str
    name: str
    arguments: str
    raw: str
    channel: str | None = None
    content_type: str | None = None


@dataclass(frozen=True, slots=True)
class ResultForgery:
    """Model output started writing a tool result (SPEC.md 4.6). ``offset`` is absolute in the
    scanner's input; ``raw`` holds the marker (what comes after it follows as ``Malformed``)."""

    offset: int
    marker: str
    raw: str


@dataclass(frozen=True, slots=True)
class Malformed:
    """Input the scanner could not parse; kept whole in ``raw`` so nothing is lost."""

    reason: str
    raw: str


Event = (
    Text
    | ThinkingStart
    | ThinkingDelta
    | ThinkingEnd
    | ToolStart
    | ToolArgs
    | ToolEnd
    | ResultForgery
    | Malformed
)


@runtime_checkable
class Scanner(Protocol):
    """A dialect scanner: feed raw model output in chunks, get events (DESIGN.md "Scanner")."""

    def feed(self, text: str) -> list[Event]: ...

    def flush(self) -> list[Event]: ...
