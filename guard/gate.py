"""The gate: run the signals on one text, attach co-signals to their anchors, decide.

Order of work, so clean text costs a few fast scans: each anchor signal (H, K, M, N) starts with
a literal prefilter (``'|' in text``, ``'to=' in text``, ...); co-signals run only when there are
anchors to qualify and only inside bounded windows around them; code ranges are computed only
when some hit exists.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Sequence

from signals import load_signals

from ._code import code_ranges
from ._log import get_logger, preview
from .boundary import get_boundary
from .escape import escape
from .models import Dialect, Hit, ScanContext, Signal, Surface, TextView, Verdict
from .policy import Policy, SurfaceRule

__all__ = ["evaluate"]

_log = get_logger("guard.gate")

_CO_ORDER = {code: i for i, code in enumerate("CGSBRT")}


def _signals_for(surface: Surface, policy: Policy) -> tuple[list[Signal], list[Signal]]:
    anchors: list[Signal] = []
    cos: list[Signal] = []
    for signal in load_signals():
        if surface not in signal.surfaces or signal.code in policy.disabled:
            continue
        (anchors if signal.kind == "anchor" else cos).append(signal)
    return anchors, cos


def _attach(anchors: list[Hit], support: list[Hit]) -> list[tuple[Hit, tuple[Hit, ...]]]:
    """Pair each anchor with the co-signal hits that support it."""
    attached: dict[int, list[Hit]] = defaultdict(list)
    starts = [a.start for a in anchors]
    for hit in support:
        if hit.anchor is not None:
            attached[hit.anchor].append(hit)
            continue
        # standalone evidence (a result opening) belongs to the anchor it overlaps
        i = bisect.bisect_left(starts, hit.start)
        if i == len(starts) or starts[i] != hit.start:
            i -= 1
        if i >= 0 and hit.start < max(anchors[i].end, anchors[i].start + 1):
            attached[i].append(hit)
    out = []
    for i, anchor in enumerate(anchors):
        extra = attached.get(i)
        if extra:
            extra.sort(key=lambda h: (_CO_ORDER.get(h.code, 99), h.start))
        out.append((anchor, tuple(extra) if extra else ()))
    return out


def _compose(anchor: Hit, extra: tuple[Hit, ...], in_code: bool) -> Hit:
    codes = tuple(dict.fromkeys(h.code for h in extra if h.code != anchor.code))
    return Hit(
        signals=anchor.signals + codes,
        start=anchor.start,
        end=anchor.end,
        evidence=anchor.evidence,
        detail=anchor.detail,
        support=extra,
        in_code=in_code,
    )


def _trips(hit: Hit, rule: SurfaceRule) -> bool:
    codes = set(hit.signals)
    if hit.in_code or not rule.require <= codes:
        return False
    if hit.code in rule.trip_alone:
        return True
    return hit.code in rule.anchors and bool(codes & rule.co_signals)


def _reason(surface: Surface, hits: Sequence[Hit], tripping: Sequence[Hit]) -> str:
    if tripping:
        first = tripping[0]
        more = f"; {len(tripping) - 1} more tripping" if len(tripping) > 1 else ""
        return f"leak on {surface.value}: {first.label} at {first.start} ({first.detail}){more}"
    if not hits:
        return "clean"
    in_code = sum(1 for h in hits if h.in_code)
    parts = [f"{len(hits)} hit(s), none tripping"]
    if in_code:
        parts.append(f"{in_code} inside closed code")
    return "; ".join(parts)


def evaluate(
    text: str,
    surface: Surface,
    dialect: Dialect,
    policy: Policy,
    *,
    parsed_end: int | None = None,
    tool_name: str | None = None,
) -> Verdict:
    """Judge ``text`` on ``surface``; arguments are already validated (see :func:`guard.detect`)."""
    rule = policy.rule(surface)
    view = TextView(text)
    anchor_signals, co_signals = _signals_for(surface, policy)
    if rule.mode == "injection":
        anchor_signals = [s for s in anchor_signals if s.code == "H"]
        co_signals = []
    ctx = ScanContext(dialect=dialect, surface=surface, tool_name=tool_name)
    anchors: list[Hit] = []
    for signal in anchor_signals:
        anchors.extend(signal.scan(view, ctx))
    if not anchors:
        return Verdict(leak=False, surface=surface, dialect=dialect.name, tool_name=tool_name)
    anchors.sort(key=lambda h: (h.start, -h.end))

    if rule.mode == "injection":
        return _injection(text, surface, dialect, anchors, tool_name)

    if surface is Surface.TOOL_ARG and parsed_end is None:
        parsed_end = get_boundary(policy.boundary_for(tool_name))(text)
    support: list[Hit] = []
    if co_signals:
        ctx = ctx.model_copy(update={"anchors": tuple(anchors), "parsed_end": parsed_end})
        for signal in co_signals:
            support.extend(signal.scan(view, ctx))
    pairs = _attach(anchors, support)

    ranges = None
    if rule.code_exempt and surface in (Surface.TEXT, Surface.THINKING):
        ranges = code_ranges(text) or None
    weights = policy.weights
    decided = []
    for anchor, extra in pairs:
        h = _compose(
            anchor, extra, ranges is not None and ranges.contains(anchor.start, anchor.end)
        )
        if _trips(h, rule):
            score = sum(weights.get(code, 0.0) for code in h.signals)
            h = h.model_copy(update={"trips": True, "score": score})
        decided.append(h)
    tripping = [h for h in decided if h.trips]
    leak = bool(tripping)
    verdict = Verdict(
        leak=leak,
        surface=surface,
        dialect=dialect.name,
        signals=tuple(dict.fromkeys(code for h in tripping for code in h.signals)),
        hits=tuple(decided),
        cut=tripping[0].start if leak else None,
        score=sum(h.score for h in tripping),
        reason=_reason(surface, decided, tripping),
        tool_name=tool_name,
    )
    if leak:
        first = tripping[0]
        _log.info(
            "guard.leak",
            surface=surface.value,
            dialect=dialect.name,
            signals=list(verdict.signals),
            cut=verdict.cut,
            hits=len(tripping),
            preview=preview(text[first.start : first.start + 48]),
        )
    return verdict


def _injection(
    text: str, surface: Surface, dialect: Dialect, hits: list[Hit], tool_name: str | None
) -> Verdict:
    # What escaping will change is what matters on input: exact spellings, not lookalikes.
    spellings = tuple(
        dict.fromkeys(h.evidence for h in hits if escape(h.evidence, dialect) != h.evidence)
    )
    reason = (
        f"injection on {surface.value}: {len(spellings)} reserved spelling(s), escape required"
        if spellings
        else f"{len(hits)} lookalike(s) of reserved spellings; nothing to escape"
    )
    return Verdict(
        leak=False,
        surface=surface,
        dialect=dialect.name,
        signals=("H",) if spellings else (),
        hits=tuple(hits),
        reason=reason,
        injection=spellings,
        tool_name=tool_name,
    )
