"""A :class:`Detector`: a policy and a signal set, the two things that judge a text.

Everything the gate decides depends on which signals run and on the policy's rules. A detector
holds both, so code that judges texts is handed one object instead of reading the process's
registered signal set: two detectors with different signal sets judge side by side, and a test
can build one with the signals it needs. :func:`guard.detect` is the default detector (the
registered signals, read at each call so a signal registered later takes part) with the
policy it is given.
"""

from __future__ import annotations

from collections.abc import Iterable

from guard.gate._monitor import SurfaceMonitor
from guard.gate._policy import Policy, check_policy
from guard.gate._whole import evaluate
from guard.models import Dialect, Signal, Surface, Verdict
from guard.signals import load_signals

__all__ = ["DEFAULT_DETECTOR", "Detector", "resolve_detector"]


class Detector:
    """Judges texts with ``policy`` (default: the default policy) and ``signals`` (default:
    every registered signal, read at each use).

    ``evaluate`` judges a whole text (arguments already validated, as
    :func:`~guard.gate.evaluate` takes them; :func:`guard.detect` validates and calls it),
    ``monitor`` starts the judging of a text that arrives in deltas, with the same final
    verdict.
    """

    __slots__ = ("_signals", "policy")

    def __init__(self, policy: Policy | None = None, signals: Iterable[Signal] | None = None):
        self.policy = check_policy(policy)
        if signals is not None:
            signals = tuple(sorted(signals, key=lambda s: s.order))
            codes = [s.code for s in signals]
            if len(set(codes)) != len(codes):
                raise ValueError(f"Detector: two signals share a code in {codes}")
        self._signals: tuple[Signal, ...] | None = signals

    @property
    def signals(self) -> tuple[Signal, ...]:
        """The signal set, in ``order``."""
        return load_signals() if self._signals is None else self._signals

    def with_policy(self, policy: Policy | None) -> Detector:
        """The same signals with another policy."""
        other = Detector(policy)
        other._signals = self._signals
        return other

    def evaluate(
        self,
        text: str,
        surface: Surface,
        dialect: Dialect,
        *,
        parsed_end: int | None = None,
        tool_name: str | None = None,
        reasoning: bool | None = None,
        tools: frozenset[str] | None = None,
    ) -> Verdict:
        """The verdict on ``text`` on ``surface`` (see :func:`~guard.gate.evaluate`)."""
        return evaluate(
            text,
            surface,
            dialect,
            self.policy,
            parsed_end=parsed_end,
            tool_name=tool_name,
            reasoning=reasoning,
            tools=tools,
            signals=self._signals,
        )

    def monitor(
        self,
        surface: Surface,
        dialect: Dialect,
        *,
        tool_name: str | None = None,
        tools: frozenset[str] | None = None,
        reasoning: bool | None = None,
    ) -> SurfaceMonitor:
        """A monitor for one surface of a stream (see :class:`~guard.gate.SurfaceMonitor`)."""
        return SurfaceMonitor(
            surface,
            dialect,
            self.policy,
            tool_name=tool_name,
            tools=tools,
            reasoning=reasoning,
            signals=self._signals,
        )

    @property
    def own_signals(self) -> tuple[Signal, ...] | None:
        """The signal set this detector was given (``None``: the registered set, read at each
        use), as :class:`~guard.gate.SurfaceMonitor` and :func:`~guard.gate.evaluate` take it."""
        return self._signals

    def __repr__(self) -> str:
        shown = "registered" if self._signals is None else "+".join(s.code for s in self.signals)
        return f"Detector(signals={shown})"


#: the registered signals with the default policy: what ``guard.detect`` uses without a policy
DEFAULT_DETECTOR = Detector()


def resolve_detector(detector: object, policy: object) -> Detector:
    """The detector that judges for a call given ``detector`` (default: the registered
    signals) and ``policy`` (when given, it replaces the detector's)."""
    if detector is None:
        judge = DEFAULT_DETECTOR
    elif isinstance(detector, Detector):
        judge = detector
    else:
        raise TypeError(
            f"detector must be a guard.gate.Detector or None, got {type(detector).__name__}"
        )
    return judge if policy is None else judge.with_policy(check_policy(policy))
