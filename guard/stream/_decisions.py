"""What a guarded stream decided: forgery, leak, and the ``on_leak`` action taken.

A forgery ends the stream before the forged result (docs/streaming.md, "Forgery"). A leak is
acted on by ``on_leak`` in the chunk that makes it certain: ``abort`` raises
:class:`~guard.errors.LeakAborted` carrying the verdict and the withheld text, ``truncate`` ends
the stream at the cut, ``recover`` does the same and records the policy's recovery outcome,
``report`` only records verdicts (docs/streaming.md, "Leaks and on_leak").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from guard._log import get_logger
from guard.errors import LeakAborted
from guard.gate import Policy, SurfaceMonitor
from guard.models import Outcome, Surface, Verdict
from guard.stream._queue import Key, key_name

__all__ = ["ON_LEAK", "Decisions", "OnLeak", "check_on_leak", "first_tripped", "shift"]

_log = get_logger("guard.stream")

OnLeak = Literal["abort", "truncate", "recover", "report"]
#: What a guarded stream may do on a leak (see :mod:`guard.stream`).
ON_LEAK: tuple[OnLeak, ...] = ("abort", "truncate", "recover", "report")


def check_on_leak(value: object) -> OnLeak:
    """``value`` as an ``on_leak`` mode, or ``ValueError`` naming the modes."""
    if value not in ON_LEAK:
        raise ValueError(f"on_leak must be one of {', '.join(ON_LEAK)}; got {value!r}")
    return value


def first_tripped(monitors: Mapping[Key, SurfaceMonitor]) -> Key | None:
    """The first part (in key order) whose monitor has a certain trip, if any."""
    best: Key | None = None
    for key, m in monitors.items():
        if m.tripped is not None and (best is None or key < best):
            best = key
    return best


@dataclass(slots=True)
class Decisions:
    """The decision state of one stream, and the rules that change it."""

    on_leak: OnLeak
    policy: Policy
    recovery: Any = None  # a strategy object for ``recover`` (default: the policy's)
    forged: bool = False
    abort: LeakAborted | None = None  # set with ``on_leak="abort"``: the stream raises it
    cut: dict[str, int] = field(default_factory=dict)  # offset of the cut per part name
    outcomes: list[Outcome] = field(default_factory=list)
    #: release points taken at the trip (finishing a monitor afterwards would move them)
    frozen: dict[Key, int] = field(default_factory=dict)
    #: whether a forgery or leak changes what is delivered (every mode but ``report``)
    acts: bool = field(init=False)

    def __post_init__(self) -> None:
        self.acts = self.on_leak != "report"

    def forgery(self, offset: int, marker: str) -> bool:
        """A forged result in raw wire text at ``offset``; True when the stream ends there."""
        self.forged = True
        self.cut["raw"] = offset
        _log.warning("guard.stream.forgery", offset=offset, marker_chars=len(marker))
        return self.acts

    def observe(self, monitors: Mapping[Key, SurfaceMonitor], *, final: bool) -> None:
        """``report`` mode: nothing is acted on, but a forged tool result in a surface's text
        (in chunk streams, where no scanner sees the wire) still sets :attr:`forged`, as a
        forgery in raw wire text does. While streaming, the certain trip of each surface is
        looked at; at the end, every tripping hit of its verdict."""
        for key, m in monitors.items():
            hit = m.tripped
            hits = [hit] if hit is not None else []
            if final:
                hits += [h for h in m.verdict().hits if h.trips]
            if any(self.policy.forges(h) for h in hits):
                self.forged = True
                _log.warning("guard.stream.forgery", surface=key[1], action="report")
                return

    def leak(self, key: Key, monitors: Mapping[Key, SurfaceMonitor], tool: str | None) -> None:
        """The monitor of ``key`` tripped (``tool``: the name of its call): take the action."""
        m = monitors[key]
        hit = m.tripped
        assert hit is not None
        forged_result = self.policy.forges(hit)
        if forged_result:
            self.forged = True
        self.cut[key_name(key)] = m.release
        self.frozen = {k: mon.release for k, mon in monitors.items()}
        verdict = m.finish()  # the verdict on what arrived, the leak included
        _log.warning(
            "guard.stream.forgery" if forged_result else "guard.stream.leak",
            surface=key[1],
            cut=m.release,
            withheld=m.total - m.release,
        )
        if self.on_leak == "abort" and not forged_result:
            base, buf = m.retained
            withheld = buf[max(0, self.frozen[key] - base) :]
            full = verdict.model_copy(update={"part": key_name(key)})
            self.abort = LeakAborted(full, withheld)
        elif self.on_leak == "recover":
            self.outcomes.append(self._recover(Surface(key[1]), m, verdict, tool))

    def _recover(
        self, surface: Surface, m: SurfaceMonitor, verdict: Verdict, tool: str | None
    ) -> Outcome:
        from guard.recovery import get_strategy

        strategy = self.recovery or get_strategy(self.policy.recovery_for(surface, tool))
        base, value = m.retained
        outcome: Outcome = strategy.apply(value, shift(verdict, -base))
        _log.info("guard.stream.recovered", strategy=outcome.strategy, kind=outcome.kind)
        return outcome


def shift(verdict: Verdict, by: int) -> Verdict:
    """The verdict with every offset moved by ``by``, floored at 0 (for a recovery strategy
    given only the retained suffix of a surface's text)."""
    if not by:
        return verdict
    hits = tuple(
        h.replace(
            **{
                "start": max(0, h.start + by),
                "end": max(0, h.end + by),
                "support": tuple(
                    s.replace(**{"start": max(0, s.start + by), "end": max(0, s.end + by)})
                    for s in h.support
                ),
            }
        )
        for h in verdict.hits
    )
    cut = None if verdict.cut is None else max(0, verdict.cut + by)
    return verdict.model_copy(update={"hits": hits, "cut": cut})
