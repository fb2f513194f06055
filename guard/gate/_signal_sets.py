"""Which signals the gate runs on one surface (:mod:`guard.gate._whole`): the anchor signals of
the scopes asked for and the co-signals, each signal's rank in labels, and the literal
prefilter of a surface, each worked out once per signal set and policy."""

from __future__ import annotations

from functools import cache

from guard.gate._policy import Policy
from guard.gate._prefilter import Prefilter, prefilter
from guard.models import Dialect, Signal, Surface


def _signals_for(
    surface: Surface,
    dialect: Dialect,
    policy: Policy,
    scopes: frozenset[str],
    every: tuple[Signal, ...],
) -> tuple[tuple[Signal, ...], tuple[Signal, ...], frozenset[str]]:
    """The anchor signals of ``scopes`` (with ``ending``, also the ``anywhere`` ones that
    publish an ending part: ``Detection.ends``), the co-signals, and the codes of the
    co-signals whose evidence extends a hit's cut."""
    return _signals_cached(surface, dialect, policy.disabled, scopes, every)


@cache
def _signals_cached(
    surface: Surface,
    dialect: Dialect,
    disabled: frozenset[str],
    scopes: frozenset[str],
    every: tuple[Signal, ...],
) -> tuple[tuple[Signal, ...], tuple[Signal, ...], frozenset[str]]:
    anchors: list[Signal] = []
    cos: list[Signal] = []
    extends: set[str] = set()
    for signal in every:
        if surface not in signal.surfaces or signal.code in disabled:
            continue
        if signal.kind == "anchor":
            detection = signal.triggers(dialect).detection
            if detection.scope in scopes or (
                detection.ends and detection.scope == "anywhere" and "ending" in scopes
            ):
                anchors.append(signal)
        else:
            cos.append(signal)
            if signal.triggers(dialect).detection.extends:
                extends.add(signal.code)
    return tuple(anchors), tuple(cos), frozenset(extends)


@cache
def _ranks(every: tuple[Signal, ...]) -> dict[str, int]:
    """Each signal's ``order`` (its place in labels such as ``M+C+S``) by code."""
    return {signal.code: signal.order for signal in every}


#: the rank of a code no signal has: last
_UNRANKED = 1 << 30


@cache
def _prefilter_for(
    dialect: Dialect,
    surface: Surface,
    disabled: frozenset[str],
    every: tuple[Signal, ...],
    tools_known: bool,
) -> Prefilter | None:
    return prefilter(
        dialect, frozenset({surface}), disabled, tools_known=tools_known, signals=every
    )
