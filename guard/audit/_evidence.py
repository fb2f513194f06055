"""What a finding shows of its text: the evidence (the matched spelling or marker, exactly) and
a context preview around it in which the surrounding text is masked.

Reserved spellings and markers are format, not user data: the evidence and every other hit in
the window are shown as they are. The rest of the window, user or model text, has its letters
and digits masked (``x``) unless the caller asks for the raw text (``guard audit
--show-text``, for people auditing their own logs); the raw window is kept beside the masked
one but never serialised.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from guard._log import preview
from guard.audit.report import Finding
from guard.models import Hit, Verdict

__all__ = ["CONTEXT_CHARS", "context", "evidence_hit", "finding_for", "hit_spans", "mask"]

_PREVIEW_SPAN = 64

#: characters of surrounding text shown on each side of the evidence
CONTEXT_CHARS = 24
_ELLIPSIS = "..."


def mask(text: str) -> str:
    """``text`` with letters and digits masked: only its shape remains."""
    return "".join("x" if ch.isalnum() else ch for ch in text)


def evidence_hit(verdict: Verdict, cut: int | None) -> Hit | None:
    """The hit a finding is about: for a leak the earliest tripping hit, for an injection the
    reserved spelling at ``cut``."""
    if verdict.leak:
        tripping = [h for h in verdict.hits if h.trips] or list(verdict.hits)
        return min(tripping, key=lambda h: h.start, default=None)
    spellings = set(verdict.injection)
    matching = [h for h in verdict.hits if h.evidence in spellings]
    at_cut = [h for h in matching if h.start == cut]
    if at_cut:
        return at_cut[0]
    return matching[0] if matching else None


def hit_spans(hits: Iterable[Hit]) -> list[tuple[int, int]]:
    """The spans of ``hits`` and of the co-signal hits supporting them."""
    spans: list[tuple[int, int]] = []
    for h in hits:
        spans.append((h.start, h.end))
        spans.extend((s.start, s.end) for s in h.support)
    return spans


def context(text: str, start: int, end: int, spans: Sequence[tuple[int, int]]) -> tuple[str, str]:
    """``(masked, raw)`` previews of ``text[start:end]`` with up to :data:`CONTEXT_CHARS` on
    each side. In ``masked``, characters outside ``spans`` (the evidence and other hits) are
    masked; ``...`` marks text cut off at either end."""
    lo = max(0, start - CONTEXT_CHARS)
    hi = min(len(text), end + CONTEXT_CHARS)
    keep = [(max(a, lo), min(b, hi)) for a, b in spans if a < hi and b > lo]
    pieces: list[str] = []
    at = lo
    for a, b in sorted(keep):
        if b <= at:
            continue
        a = max(a, at)
        pieces.append(mask(text[at:a]))
        pieces.append(text[a:b])
        at = b
    pieces.append(mask(text[at:hi]))
    head = _ELLIPSIS if lo > 0 else ""
    tail = _ELLIPSIS if hi < len(text) else ""
    return head + "".join(pieces) + tail, head + text[lo:hi] + tail


def finding_for(
    verdict: Verdict,
    text: str,
    *,
    path: str,
    line: int,
    message: int = 0,
    role: str,
    part: str | None = None,
    tool_name: str | None = None,
) -> Finding | None:
    """The finding a verdict on ``text`` makes (``None`` when clean): a leak, or for input
    surfaces an injection, with its cut, evidence and masked context. ``guard audit`` and
    ``guard detect`` both report through it."""
    kind: Literal["leak", "injection"]
    if verdict.leak:
        kind = "leak"
        cut = verdict.cut
    elif verdict.injection:
        kind = "injection"
        spellings = set(verdict.injection)
        cut = next((h.start for h in verdict.hits if h.evidence in spellings), None)
    else:
        return None
    start = cut or 0
    hit = evidence_hit(verdict, cut)
    if hit is not None:
        shown, raw = context(text, hit.start, hit.end, hit_spans(verdict.hits))
        evidence = text[hit.start : hit.end]
    else:  # no hit to point at (cannot happen for a finding; shape only, to be safe)
        raw = text[start : start + _PREVIEW_SPAN]
        shown, evidence = mask(raw), ""
    return Finding(
        path=path,
        line=line,
        message=message,
        role=role,
        surface=verdict.surface,
        kind=kind,
        signals=verdict.signals,
        cut=cut,
        reason=verdict.reason,
        part=part,
        tool_name=tool_name,
        preview=preview(text[start : start + _PREVIEW_SPAN]),
        evidence=evidence,
        context=shown,
        context_text=raw,
    )
