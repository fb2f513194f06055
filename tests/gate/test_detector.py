"""A ``Detector`` holds a policy and a signal set: judging with one reads no global state, and
``guard.detect`` is the default one (the registered signals)."""

from __future__ import annotations

import pytest

import guard
from guard.gate import DEFAULT_DETECTOR, Detector, Policy
from guard.models import Surface
from guard.signals import load_signals

HARMONY = guard.get_dialect("harmony")
LEAK = "hello <|channel|>final<|message|>x"
# `to=functions.x` is the routing marker (M); the channel word before it (C) makes it trip
ROUTED = "Now commentary to=functions.lookup json {}"


def _without(*codes: str) -> tuple[guard.Signal, ...]:
    return tuple(s for s in load_signals() if s.code not in codes)


def test_the_default_detector_is_guard_detect() -> None:
    for text in (LEAK, ROUTED, "clean prose"):
        assert DEFAULT_DETECTOR.evaluate(text, Surface.TEXT, HARMONY) == guard.detect(text)
    assert DEFAULT_DETECTOR.signals == load_signals()


def test_a_detector_judges_with_its_own_signals_whole_and_streamed() -> None:
    detector = Detector(signals=_without("H"))
    assert guard.detect(LEAK).leak
    whole = detector.evaluate(LEAK, Surface.TEXT, HARMONY)
    assert "H" not in {h.code for h in whole.hits}
    assert guard.detect(LEAK, detector=detector) == whole
    monitor = detector.monitor(Surface.TEXT, HARMONY)
    for i in range(0, len(LEAK), 4):
        monitor.feed(LEAK[i : i + 4])
    assert monitor.finish() == whole
    # the process's signal set is untouched
    assert guard.detect(LEAK).leak and DEFAULT_DETECTOR.signals == load_signals()


def test_a_policy_given_to_detect_wins_over_the_detectors() -> None:
    strict = Detector(Policy(forgery=frozenset()))
    assert strict.policy.forgery == frozenset()
    assert strict.with_policy(None).policy == guard.gate.DEFAULT_POLICY
    verdict = guard.detect(LEAK, policy=Policy(disabled=frozenset({"H"})), detector=strict)
    assert "H" not in {h.code for h in verdict.hits}


def test_bad_detectors_are_refused() -> None:
    with pytest.raises(TypeError, match="detector must be"):
        guard.detect(LEAK, detector="strict")  # type: ignore[arg-type]
    twice = (*load_signals(), load_signals()[0])
    with pytest.raises(ValueError, match="share a code"):
        Detector(signals=twice)
    with pytest.raises(TypeError, match="policy must be"):
        Detector("strict")  # type: ignore[arg-type]


def test_detect_message_takes_a_detector() -> None:
    message = {"content": LEAK}
    plain = guard.detect_message(message)
    assert plain[0].leak
    none = guard.detect_message(message, detector=Detector(signals=_without("H")))
    assert "H" not in {h.code for v in none for h in v.hits}


@pytest.mark.parametrize("size", [1, 3, 7])
def test_guard_stream_takes_a_detector(size: int) -> None:
    """A stream judges with the detector's signals, as ``detect`` does with it, however the
    answer is split."""
    detector = Detector(signals=_without("H"))
    whole = guard.detect(LEAK, detector=detector)
    pieces = [LEAK[i : i + size] for i in range(0, len(LEAK), size)]
    source = [{"choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces]
    stream = guard.guard_stream(source, on_leak="report", detector=detector)
    out = list(stream)
    assert [v.model_copy(update={"part": None}) for v in stream.verdicts] == [whole]
    assert "".join(c["choices"][0]["delta"]["content"] for c in out) == LEAK
    # the default stream still trips on H
    default = guard.guard_stream(source, on_leak="report")
    list(default)
    assert any("H" in h.signals for v in default.verdicts for h in v.hits)


def test_guard_stream_refuses_a_bad_detector() -> None:
    with pytest.raises(TypeError, match="detector must be"):
        guard.guard_stream(["x"], detector="strict")  # type: ignore[arg-type]
