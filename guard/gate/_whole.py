"""The gate: run the signals on one text, attach co-signals to their anchors, decide.

Order of work, so clean text costs a few fast scans: each anchor signal (H, K, M, N) starts with
a literal prefilter (``'|' in text``, ``'to=' in text``, ...); co-signals run only when there are
anchors to qualify and only inside bounded windows around them; code ranges are computed only
when some hit exists.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from functools import partial
from itertools import compress, filterfalse
from operator import attrgetter
from typing import NoReturn

from guard._escape import escape
from guard._log import get_logger, preview
from guard.errors import PluginError
from guard.gate._boundary import get_boundary
from guard.gate._code import CodeRanges, code_ranges
from guard.gate._policy import DEFAULT_MAX_HITS, Policy, SurfaceRule
from guard.gate._signal_sets import _UNRANKED, _prefilter_for, _ranks, _signals_for
from guard.models import (
    ALL_SCOPES,
    Dialect,
    Hit,
    ScanContext,
    Signal,
    Surface,
    TextView,
    Verdict,
)
from guard.signals import load_signals

__all__ = [
    "ALL_SCOPES",
    "could_hit",
    "decide",
    "evaluate",
    "find_hits",
    "injection_verdict",
    "make_verdict",
]

_log = get_logger("guard.gate")
_START = attrgetter("start")
_END = attrgetter("end")
_ANCHOR = attrgetter("anchor")
_TRIPS = attrgetter("trips")
_IN_CODE = attrgetter("in_code")


def _attach(
    anchors: list[Hit], support: list[Hit], every: tuple[Signal, ...]
) -> dict[int, tuple[Hit, ...]]:
    """The co-signal hits that support each anchor, by the anchor's index (anchors with none
    are absent: a dense text has many anchors and few co-signals)."""
    if not support:
        return {}
    attached: dict[int, list[Hit]] = defaultdict(list)
    starts: list[int] | None = None
    for hit in support:
        if hit.anchor is not None:
            attached[hit.anchor].append(hit)
            continue
        # standalone evidence (a result opening) belongs to the anchor it overlaps
        if starts is None:
            starts = [a.start for a in anchors]
        i = bisect.bisect_left(starts, hit.start)
        if i == len(starts) or starts[i] != hit.start:
            i -= 1
        if i >= 0 and hit.start < max(anchors[i].end, anchors[i].start + 1):
            attached[i].append(hit)
    out = {}
    ranks = _ranks(every)
    for i, extra in attached.items():
        extra.sort(key=lambda h: (ranks.get(h.code, _UNRANKED), h.start))
        out[i] = tuple(extra)
    return out


def _compose(anchor: Hit, extra: tuple[Hit, ...], offset: int, extends: frozenset[str]) -> Hit:
    if not extra:
        if not offset:
            return anchor if anchor.anchor is None else anchor.replace(anchor=None)
        return Hit(
            anchor.signals,
            anchor.start + offset,
            anchor.end + offset,
            anchor.evidence,
            anchor.detail,
        )
    codes = tuple(dict.fromkeys(h.code for h in extra if h.code != anchor.code))
    lead = min((h.start for h in extra if h.code in extends), default=anchor.start)
    # `anchor` indexes the scan's own anchor list: meaningless once attached, dropped.
    support = tuple(
        Hit(h.signals, h.start + offset, h.end + offset, h.evidence, h.detail) for h in extra
    )
    return Hit(
        signals=anchor.signals + codes,
        start=anchor.start + offset,
        end=anchor.end + offset,
        evidence=anchor.evidence,
        detail=anchor.detail,
        support=support,
        lead=lead + offset if lead < anchor.start else None,
    )


def _trips(hit: Hit, rule: SurfaceRule) -> bool:
    codes = set(hit.signals)
    if hit.in_code or not rule.require <= codes or not rule.unless.isdisjoint(codes):
        return False
    if hit.code in rule.trip_alone:
        return True
    return hit.code in rule.anchors and bool(codes & rule.co_signals)


def _trips_with(hit: Hit, rule: SurfaceRule) -> bool:
    """The rule's extra combinations: a hit carrying every code of one of them trips (they
    bypass ``require``, so a tool argument can trip before its parse boundary)."""
    if hit.in_code or not rule.trip_with:
        return False
    codes = set(hit.signals)
    if not rule.unless.isdisjoint(codes):
        return False
    return any(combo <= codes for combo in rule.trip_with)


def _reason(
    surface: Surface, hits: Sequence[Hit], tripping: Sequence[Hit], in_code: int | None = None
) -> str:
    if tripping:
        first = tripping[0]
        more = f"; {len(tripping) - 1} more tripping" if len(tripping) > 1 else ""
        return f"leak on {surface.value}: {first.label} at {first.start} ({first.detail}){more}"
    if not hits:
        return "clean"
    if in_code is None:
        in_code = sum(map(_IN_CODE, hits))
    parts = [f"{len(hits)} hit(s), none tripping"]
    if in_code:
        parts.append(f"{in_code} inside closed code")
    named = sum("I" in hit.signals for hit in hits)
    if named:
        parts.append(f"{named} named in prose")
    return "; ".join(parts)


def find_hits(
    text: str,
    surface: Surface,
    dialect: Dialect,
    policy: Policy,
    *,
    offset: int = 0,
    parsed_end: int | None = None,
    tool_name: str | None = None,
    final: bool = True,
    reasoning: bool | None = None,
    tools: frozenset[str] | None = None,
    scopes: frozenset[str] = ALL_SCOPES,
    code: CodeRanges | None = None,
    signals: tuple[Signal, ...] | None = None,
) -> list[Hit]:
    """Anchors found in ``text`` with their co-signals attached, sorted, offsets shifted by
    ``offset`` (``text`` may be a window of a longer text); no trip decision yet.
    ``parsed_end`` is absolute (in the same coordinates as the returned hits). ``final`` says
    the text ends where the whole text ends; ``reasoning`` and ``tools`` are the message's
    context (``None``: unknown); ``scopes`` selects the anchor signals by scope. With ``code``
    (closed code of ``text``, in its own offsets), hits inside it come back decided as in code
    (see :func:`decide`) and the co-signals are told to skip them. ``signals``: the signal set
    (default: every registered signal)."""
    rule = policy.rule(surface)
    view = TextView(text)
    every = load_signals() if signals is None else signals
    anchor_signals, co_signals, extends = _signals_for(surface, dialect, policy, scopes, every)
    if rule.mode == "injection":
        anchor_signals = tuple(s for s in anchor_signals if s.code in policy.reserved_signals)
        co_signals = ()
    # what the anchors' and the co-signals' scans are both told (each in a fresh context)
    context = partial(
        ScanContext,
        dialect=dialect,
        surface=surface,
        tool_name=tool_name,
        offset=offset,
        final=final,
        reasoning=reasoning,
        tools=tools,
        scopes=scopes,
    )
    ctx = context()
    anchors: list[Hit] = []
    for signal in anchor_signals:
        anchors.extend(signal.scan(view, ctx))
    if not anchors:
        return []
    # by start, the longer hit first at one start: two stable sorts on C-level keys
    anchors.sort(key=_END, reverse=True)
    anchors.sort(key=_START)
    if anchors[0].start < 0:
        _negative(anchors[0])
    exempt, odd = _in_code(anchors, code) if code else (frozenset(), [])
    support: list[Hit] = []
    if co_signals and len(exempt) < len(anchors):
        relative_end = None if parsed_end is None else parsed_end - offset
        ctx = context(anchors=tuple(anchors), parsed_end=relative_end, exempt=exempt)
        for signal in co_signals:
            support.extend(signal.scan(view, ctx))
        if support and min(map(_START, support)) < 0:
            _negative(min(support, key=_START))
    attached = _attach(anchors, support, every)
    if offset:
        out = [
            _compose(anchor, attached.get(i, ()), offset, extends)
            for i, anchor in enumerate(anchors)
        ]
        changed: Collection[int] = range(len(out))
    else:
        # offsets stay: only anchors with support (or carrying an index they should not) change
        changed = set(attached)
        indices = list(map(_ANCHOR, anchors))
        if indices.count(None) < len(indices):
            changed.update(i for i, index in enumerate(indices) if index is not None)
        out = anchors[:]
        for i in changed:
            out[i] = _compose(anchors[i], attached.get(i, ()), 0, extends)
    if exempt:
        # bare anchors in code were decided in place by _in_code; what changed since (or was
        # never bare) is rebuilt bare
        redo = (exempt if offset else exempt.intersection(changed)).union(odd)
        for i in redo:
            out[i] = _bare(out[i], 0)
    return out


def _negative(hit: Hit) -> NoReturn:
    raise PluginError(
        f"signal {hit.code!r} returned a hit at offset {hit.start}; offsets must be >= 0"
    )


def _in_code(anchors: list[Hit], code: CodeRanges) -> tuple[frozenset[int], list[int]]:
    """Indices of the sorted ``anchors`` that lie wholly inside ``code`` (one merged walk).
    A bare anchor there (its own signal only, as scans return them) is decided in place
    (``in_code``); the indices of the others come second, to be rebuilt bare."""
    starts, ends = code.starts, code.ends
    inside = []
    odd = []
    j = 0
    count = len(starts)
    first, last = starts[0], ends[0]
    for i, anchor in enumerate(anchors):
        start = anchor.start
        if start >= last:
            j += 1
            while j < count and ends[j] <= start:
                j += 1
            if j == count:
                break
            first, last = starts[j], ends[j]
        if first <= start and anchor.end <= last and start >= code.heads.get(first, first):
            inside.append(i)
            if anchor.support or anchor.lead is not None or len(anchor.signals) != 1:
                odd.append(i)
            else:
                anchor.in_code = True
    return frozenset(inside), odd


def _bare(anchor: Hit, offset: int) -> Hit:
    """An anchor inside closed code: its own evidence only, decided as in code."""
    return Hit(
        anchor.signals[:1],
        anchor.start + offset,
        anchor.end + offset,
        anchor.evidence,
        anchor.detail,
        in_code=True,
    )


def decide(hit: Hit, rule: SurfaceRule, weights: dict[str, float], in_code: bool) -> Hit:
    """The final form of a hit: whether it is in closed code and whether it trips. A hit in
    closed code never trips and keeps only its anchor's own evidence (co-signals qualify a
    hit for tripping; in code there is nothing to qualify)."""
    if in_code:
        return _bare(hit, 0)
    if _trips(hit, rule) or _trips_with(hit, rule):
        score = sum(weights.get(code, 0.0) for code in hit.signals)
        return hit.replace(trips=True, score=score)
    return hit


def _kept(hits: Sequence[Hit], max_hits: int) -> tuple[Hit, ...]:
    """The earliest ``max_hits`` of the sorted ``hits``, with the first tripping hit in place
    of the last kept one when it lies beyond them (a verdict always shows why it trips)."""
    if len(hits) <= max_hits:
        return tuple(hits)
    kept = list(hits[:max_hits])
    if not any(map(_TRIPS, kept)):
        rest = hits[max_hits:]
        first = next(compress(rest, map(_TRIPS, rest)), None)
        if first is not None:
            kept[-1] = first
    return tuple(kept)


def make_verdict(
    text_for_preview: str | None,
    surface: Surface,
    dialect: Dialect,
    hits: Sequence[Hit],
    tool_name: str | None,
    preview_offset: int = 0,
    max_hits: int = DEFAULT_MAX_HITS,
    in_code: int | None = None,
    *,
    announce: bool = True,
    forges: Callable[[Hit], bool] | None = None,
) -> Verdict:
    """A leak verdict from decided, sorted hits (and the ``guard.leak`` event when it is one).
    ``text_for_preview`` holds the text from ``preview_offset`` on, for the redacted preview;
    the verdict keeps at most ``max_hits`` of them (see :class:`~guard.models.Verdict`).
    ``in_code``, when the caller has counted them, is how many hits are in closed code.
    ``announce=False`` leaves the event out: a caller that asks again for the verdict of a
    finding it already announced (a stream's monitor) logs each finding once. ``forges`` (the
    policy's :meth:`~guard.gate.Policy.forges`) says whether the first tripping hit is a forged
    tool result (``Verdict.forged``)."""
    # a hit in closed code never trips: when all are, there is nothing to look for
    tripping = [] if in_code == len(hits) else list(compress(hits, map(_TRIPS, hits)))
    leak = bool(tripping)
    kept = _kept(hits, max_hits)
    verdict = Verdict(
        leak=leak,
        surface=surface,
        dialect=dialect.name,
        signals=tuple(dict.fromkeys(code for h in tripping for code in h.signals)),
        hits=kept,
        hits_dropped=len(hits) - len(kept),
        cut=min(h.cut for h in tripping) if leak else None,
        score=sum(h.score for h in tripping),
        reason=_reason(surface, hits, tripping, in_code),
        forged=leak and forges is not None and forges(tripping[0]),
        tool_name=tool_name,
    )
    if leak and announce:
        first = tripping[0]
        at = first.cut - preview_offset
        shown = text_for_preview[at : at + 48] if text_for_preview and at >= 0 else first.evidence
        _log.info(
            "guard.leak",
            surface=surface.value,
            dialect=dialect.name,
            signals=list(verdict.signals),
            cut=verdict.cut,
            hits=len(tripping),
            preview=preview(shown),
        )
    return verdict


def could_hit(
    text: str,
    surface: Surface,
    dialect: Dialect,
    policy: Policy,
    signals: tuple[Signal, ...] | None = None,
    tools: frozenset[str] | None = None,
) -> bool:
    """False when no signal can fire on ``text`` on ``surface``: the surface's prefilter (the
    anchor signals' promises, see :mod:`guard.gate._prefilter`) leaves it out, so judging it
    finds no hit, whole or streamed. ``tools``: the declared tool names (``None``: unknown)."""
    every = load_signals() if signals is None else signals
    clean = _prefilter_for(dialect, surface, policy.disabled, every, tools is not None)
    return clean is None or clean.could_hit(text)


def evaluate(
    text: str,
    surface: Surface,
    dialect: Dialect,
    policy: Policy,
    *,
    parsed_end: int | None = None,
    tool_name: str | None = None,
    reasoning: bool | None = None,
    tools: frozenset[str] | None = None,
    signals: tuple[Signal, ...] | None = None,
) -> Verdict:
    """Judge ``text`` on ``surface``; arguments are already validated (see :func:`guard.detect`).
    ``reasoning`` (did the message carry a reasoning part?) and ``tools`` (the declared tool
    names) default to unknown; ``signals`` to every registered signal (see
    :class:`~guard.gate.Detector`)."""
    rule = policy.rule(surface)
    every = load_signals() if signals is None else signals
    if not could_hit(text, surface, dialect, policy, every, tools):
        # the common case: no signal's trigger is in the text, so no hit can be
        return Verdict(leak=False, surface=surface, dialect=dialect.name, tool_name=tool_name)
    if surface is Surface.TOOL_ARG and parsed_end is None and rule.mode == "leak":
        parsed_end = get_boundary(policy.boundary_for(tool_name))(text)
    code = None
    if rule.code_exempt and rule.mode == "leak" and surface in (Surface.TEXT, Surface.THINKING):
        code = code_ranges(text) or None
    hits = find_hits(
        text,
        surface,
        dialect,
        policy,
        parsed_end=parsed_end,
        tool_name=tool_name,
        reasoning=reasoning,
        tools=tools,
        code=code,
        signals=every,
    )
    if not hits:
        return Verdict(leak=False, surface=surface, dialect=dialect.name, tool_name=tool_name)
    if rule.mode == "injection":
        return injection_verdict(surface, dialect, hits, tool_name, policy.max_hits)
    in_code = sum(map(_IN_CODE, hits))
    if in_code < len(hits):
        weights = policy.effective_weights(every)
        # fresh from find_hits and not shared yet: decided in place
        for hit in filterfalse(_IN_CODE, hits):
            if _trips(hit, rule) or _trips_with(hit, rule):
                hit.trips = True
                hit.score = sum(weights.get(code, 0.0) for code in hit.signals)
    return make_verdict(
        text,
        surface,
        dialect,
        hits,
        tool_name,
        max_hits=policy.max_hits,
        in_code=in_code,
        forges=policy.forges,
    )


def injection_verdict(
    surface: Surface,
    dialect: Dialect,
    hits: Sequence[Hit],
    tool_name: str | None,
    max_hits: int = DEFAULT_MAX_HITS,
) -> Verdict:
    """The finding on an input surface: the reserved spellings among ``hits`` that escaping
    changes (exact spellings, not lookalikes: what matters on input is what escaping fixes).
    The verdict keeps the earliest ``max_hits`` hits."""
    if not hits:
        return Verdict(leak=False, surface=surface, dialect=dialect.name, tool_name=tool_name)
    escapes: dict[str, bool] = {}  # a dense text repeats a few spellings many times
    for h in hits:
        if h.evidence not in escapes:
            escapes[h.evidence] = escape(h.evidence, dialect) != h.evidence
    spellings = tuple(e for e, changed in escapes.items() if changed)
    codes = tuple(dict.fromkeys(h.code for h in hits if escapes[h.evidence]))
    kept = tuple(hits[:max_hits])
    reason = (
        f"injection on {surface.value}: {len(spellings)} reserved spelling(s), escape required"
        if spellings
        else f"{len(hits)} lookalike(s) of reserved spellings; nothing to escape"
    )
    return Verdict(
        leak=False,
        surface=surface,
        dialect=dialect.name,
        signals=codes,
        hits=kept,
        hits_dropped=len(hits) - len(kept),
        reason=reason,
        injection=spellings,
        tool_name=tool_name,
    )
