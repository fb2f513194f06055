"""The parts a surface monitor drives: its window and its hold-back rules (the settler is
exercised through the monitor: tests/stream, tests/gate/test_gate.py)."""

from __future__ import annotations

import pytest

import guard
from guard.gate import Policy, SurfaceMonitor, stream_plan
from guard.gate._holds import bracket_hold, ending_hold, lead_state, word_hold
from guard.gate._window import TRIM_STEP, Window
from guard.models import Surface

PLAN = stream_plan(guard.get_dialect("harmony"), Surface.TEXT, frozenset())


def _held(rule: object, text: str) -> int:
    assert callable(rule)
    at = rule(PLAN, text, len(text))
    assert isinstance(at, int)
    return at


def test_the_window_keeps_a_tail_queues_quiet_deltas_and_trims() -> None:
    window = Window(4)
    window.append("abc")
    window.append("defg")
    assert window.tail == "defg" and window.text == "abcdefg"
    window.lazy.extend(["hi", "jk"])
    assert window.catch_up() == "hijk" and not window.lazy and window.catch_up() == ""
    assert window.tail == "hijk" and window.read(2, 5) == "cde"
    window.trim(TRIM_STEP)  # not worth a copy yet
    assert window.base == 0
    window.append("x" * (2 * TRIM_STEP))
    window.trim(TRIM_STEP + 5)
    assert window.base == TRIM_STEP + 5
    assert window.read(TRIM_STEP + 5) == window.text and len(window.text) == TRIM_STEP + 6


def test_a_tail_that_may_still_become_a_spelling_is_held() -> None:
    # a glued word spelling (`assistantfinal`) and a bracket spelling (`<|channel|>`) that
    # have only begun
    assert _held(word_hold, "hello assistantfi") == len("hello ")
    assert _held(bracket_hold, "hi <|chan") == len("hi ")
    # a complete spelling is the gate's business, not a hold
    text = "hi <|channel|> ok"
    assert _held(bracket_hold, text) == len(text)


def test_the_opening_and_the_ending_rules() -> None:
    assert lead_state(PLAN, "Hello there.") is False
    assert lead_state(PLAN, "The user asks") is True
    assert lead_state(PLAN, "We need to") is None  # a partial lead: a later delta decides
    call = 'Sure: {"name": "get_weather", "arguments": {'
    assert ending_hold(PLAN, call, 100) == 100 + call.index("{")
    assert ending_hold(PLAN, "plain text.", 5) is None


def test_a_trigger_arms_the_scan_for_one_span_not_for_ever() -> None:
    """After a trigger the monitor looks at the next deltas on its full path for one anchor
    span, then goes back to the quiet path: a delta read only because the scan was armed does
    not arm it again, and a character that may only begin a held spelling (the `?` of `? No`)
    does not arm it at all. Counted, not timed: the share of deltas off the quiet path."""
    from guard.dialects import get_dialect
    from guard.gate import Policy, SurfaceMonitor
    from guard.models import Surface

    sentence = "Is it raining in Paris today? The model reads a file and then writes an answer. "
    text = sentence * 200
    monitor = SurfaceMonitor(Surface.TEXT, get_dialect("harmony"), Policy())
    deltas = [text[i : i + 4] for i in range(0, len(text), 4)]
    loud = 0
    for delta in deltas:
        monitor.feed_release(delta)
        loud += not monitor.quiet
    assert monitor.tripped is None
    assert loud < len(deltas) * 0.3, (loud, len(deltas))  # every delta before the fix


def test_a_text_that_opens_with_no_lead_takes_the_quiet_path_at_once() -> None:
    """Once the opening is known not to start like an opening signal's hit, nothing waits for
    the opening window: the next deltas take the quiet path (they took the full path for the
    whole window, a few thousand characters, before)."""
    from guard.dialects import get_dialect
    from guard.gate import Policy, SurfaceMonitor
    from guard.models import Surface

    monitor = SurfaceMonitor(Surface.TEXT, get_dialect("all"), Policy())
    deltas = [" model", " reads", " a", " file", " and", " then", " writes", " a", " note"] * 60
    loud = []  # where each delta off the quiet path started
    for delta in deltas:
        start = monitor.total
        monitor.feed_release(delta)
        if not monitor.quiet:
            loud.append(start)
    assert monitor.tripped is None
    # only the opening window of the opening words (a hundred characters or so) is read in full
    assert loud and max(loud) < 256, loud


def test_tools_given_as_a_list_or_definitions_are_read_as_names() -> None:
    text = 'Done. {"name": "read", "arguments": {"path": "a.py"}} Anything else?'
    for tools in (["read"], [{"type": "function", "function": {"name": "read"}}], ("read",)):
        monitor = SurfaceMonitor(
            Surface.TEXT,
            guard.get_dialect("chatml"),
            Policy(),
            tools=tools,  # type: ignore[arg-type]
        )
        assert monitor.tools == frozenset({"read"})
        monitor.feed(text)
        verdict = monitor.finish()
        assert verdict.leak and "Y" in verdict.signals, verdict.reason
    with pytest.raises(TypeError, match="tools must be a list"):
        SurfaceMonitor(
            Surface.TEXT,
            guard.get_dialect("chatml"),
            Policy(),
            tools="read",  # type: ignore[arg-type]
        )
