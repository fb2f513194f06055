"""Helpers shared by the signal modules (private)."""

from __future__ import annotations

from guard.models import Hit, ScanContext, Surface, TextView

MODEL_OUTPUT = frozenset({Surface.TEXT, Surface.THINKING, Surface.TOOL_ARG})

#: Longest routing marker (signal M) a co-signal's window is measured from.
MARKER_SPAN = 96

#: Words that make a token markup, not a noun: a role or a channel the token would open
#: (``<|im_start|>user``, ``<|channel|>final``); a regex alternation.
ROLE_WORDS = (
    "user|assistant|system|developer|tool|tools|model|human|bot|ai|analysis|commentary|final|"
    "observation|ipython|function|functions|think|thinking|response|result|results"
)


def glued(text: str, at: int) -> bool:
    """Whether the character before ``at`` ends the value's or sentence's own text (a letter, a
    digit, or ``.`` ``!`` ``?`` ``;`` ``)`` ``。`` ``！`` ``？``): markup glued there is what a
    collapsed call leaves (``ls -la</arg_value>``, ``draft open.</parameter></function>``); after
    a blank, a colon or a bracket it is named in a sentence."""
    return at > 0 and (text[at - 1].isalnum() or text[at - 1] in ".!?;)。！？")


def declared(name: str, tools: frozenset[str]) -> bool:
    """Whether a call's ``name`` names one of the declared ``tools``: as spelled, without a
    ``functions.`` namespace, or with the hyphens of a declared name written as underscores
    (``resolve_library_id`` for ``resolve-library-id``: models write names as identifiers)."""
    bare = name.removeprefix("functions.")
    return bare in tools or ("_" in bare and bare.replace("_", "-") in tools)


def hit_from_norm(
    view: TextView,
    code: str,
    start: int,
    end: int,
    detail: str = "",
    anchor: int | None = None,
) -> Hit:
    """A hit for the normalised span ``[start, end)``, with offsets and evidence from the
    original text."""
    o_start, o_end = view.span(start, end)
    return Hit(
        signals=(code,),
        start=o_start,
        end=o_end,
        evidence=view.original[o_start:o_end],
        detail=detail,
        anchor=anchor,
    )


def markers(ctx: ScanContext) -> list[tuple[int, Hit]]:
    """The routing-marker anchors (code ``M``) with their index in ``ctx.anchors``."""
    return [(i, a) for i, a in enumerate(ctx.anchors) if a.code == "M"]


Neighbours = list[tuple[int, int, int, int, int]]


def neighbours(view: TextView, ctx: ScanContext) -> Neighbours:
    """For each marker not in ``ctx.exempt``: (anchor index, norm start, norm end, previous
    marker's norm end or 0, next marker's norm start or len(norm); exempt markers count as
    neighbours too). Windows are clipped to these bounds so evidence is
    never shared between markers (no window bleed). Every co-signal of one scan asks for the
    same list, so it is kept in the scan's own scratch space (``ctx.shared``)."""
    found = ctx.shared.get("neighbours")
    if found is not None and found[0] is view:
        return found[1]  # type: ignore[no-any-return]
    ms = markers(ctx)
    spans = [(i, view.to_norm(a.start), view.to_norm(a.end)) for i, a in ms]
    exempt = ctx.exempt
    out = []
    for k, (i, s, e) in enumerate(spans):
        if i in exempt:
            continue  # in closed code: its co-signals would be dropped (bounds still count it)
        prev_end = spans[k - 1][2] if k else 0
        next_start = spans[k + 1][1] if k + 1 < len(spans) else len(view.norm)
        out.append((i, s, e, prev_end, next_start))
    ctx.shared["neighbours"] = (view, out)
    return out
