"""``Detection.ends``: an ``anywhere`` signal some of whose hits depend on the end of the text.
A stream runs the signal's ending part once at the end, over that many last characters, and
asks its window scans only for the other part; ``guard.detect`` asks for both at once. So a hit
that spans a long text, decided by its end, is found however the text arrives."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import pytest

import guard
from guard.gate import Detector
from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.signals import load_signals

REACH = 1500
CHATML = guard.get_dialect("chatml")


class Bookends:
    """A toy signal: ``@@`` anywhere (its ``anywhere`` part), and a whole text of at most
    :data:`REACH` characters between ``<<`` and ``>>`` (its ending part)."""

    code = "BE"
    name = "bookends"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT})
    max_span = 2
    reach = (0, 0)
    order = 99
    weight = 1.0

    def __init__(self, ends: int = REACH) -> None:
        self.asked: list[tuple[frozenset[str], bool]] = []
        self._triggers = Triggers(literals=("@@", "<<"), ends=ends)

    def triggers(self, dialect: Dialect) -> Triggers:
        return self._triggers

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        self.asked.append((ctx.scopes, ctx.final))
        norm = text.norm
        if "ending" in ctx.scopes and ctx.final and ctx.offset == 0:
            whole = text.original
            if len(whole) <= REACH and whole.startswith("<<") and whole.endswith(">>"):
                yield Hit(signals=("BE",), start=0, end=len(whole), evidence=whole, detail="both")
        if "anywhere" in ctx.scopes:
            at = norm.find("@@")
            while at >= 0:
                yield Hit(signals=("BE",), start=at, end=at + 2, evidence="@@", detail="at")
                at = norm.find("@@", at + 2)


def _detector(signal: Bookends) -> Detector:
    every = (*load_signals(), signal)
    return Detector(signals=every)  # its hits do not trip: the test reads them, not the verdict


def _streamed(detector: Detector, text: str, size: int) -> guard.Verdict:
    monitor = detector.monitor(Surface.TEXT, CHATML)
    for i in range(0, len(text), size):
        monitor.feed(text[i : i + size])
    return monitor.finish()


LONG = "<<" + "a quiet line of prose. " * 50 + "@@ and more " * 10 + ">>"


@pytest.mark.parametrize("size", [1, 7, 64, 500, len(LONG)])
def test_a_long_ending_hit_is_found_in_every_chunking(size: int) -> None:
    assert 1000 < len(LONG) <= REACH
    detector = _detector(Bookends())
    whole = detector.evaluate(LONG, Surface.TEXT, CHATML)
    assert (whole.hits[0].start, whole.hits[0].end) == (0, len(LONG))
    assert len(whole.hits) == 11  # the bookends and ten @@
    assert _streamed(detector, LONG, size) == whole


def test_the_window_scans_ask_for_the_anywhere_part_and_the_end_for_the_ending_part() -> None:
    signal = Bookends()
    detector = _detector(signal)
    detector.evaluate(LONG, Surface.TEXT, CHATML)
    assert signal.asked == [(frozenset({"anywhere", "opening", "ending"}), True)]
    signal.asked.clear()
    _streamed(detector, LONG, 16)
    ending = frozenset({"ending"})
    # once at the end; while the text grows, sweeps every quarter of ``ends`` (not final)
    assert signal.asked.count((ending, True)) == 1
    assert 1 <= signal.asked.count((ending, False)) <= len(LONG) // (REACH // 4) + 1
    assert {scopes for scopes, _ in signal.asked} == {frozenset({"anywhere"}), ending}


def test_past_the_reach_neither_finds_it() -> None:
    text = "<<" + "x" * REACH + ">>"
    detector = _detector(Bookends())
    whole = detector.evaluate(text, Surface.TEXT, CHATML)
    assert not whole.hits
    assert _streamed(detector, text, 33) == whole


def test_without_an_ending_part_a_stream_cannot_see_the_whole_text() -> None:
    # what ``ends`` is for: the same signal without it is asked only in windows, so the hit
    # that spans the text is never asked for in a stream
    detector = _detector(Bookends(ends=0))
    whole = detector.evaluate(LONG, Surface.TEXT, CHATML)
    streamed = _streamed(detector, LONG, 16)
    assert (0, len(LONG)) in [(h.start, h.end) for h in whole.hits]
    assert (0, len(LONG)) not in [(h.start, h.end) for h in streamed.hits]


def test_every_plan_sweeps_often_enough_for_its_reach() -> None:
    # a hit of at most ends / 2 characters that starts in the last ends - 300 of a sweep's text
    # lies whole in some sweep, with its co-signals' right reach, only while
    # sweep + right + ends / 2 + 300 <= ending_span (guard/gate/_plan.py, SWEEP_PARTS)
    from guard.dialects import DIALECTS
    from guard.gate._plan import stream_plan

    for name in sorted(DIALECTS):
        plan = stream_plan(guard.get_dialect(name), Surface.TEXT, frozenset(), load_signals())
        assert plan.sweep, name
        assert plan.sweep + plan.right + plan.ending_span // 2 + 300 <= plan.ending_span, name
