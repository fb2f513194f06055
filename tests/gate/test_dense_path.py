"""The fast paths of whole-text detection on documentation dense with quoted spellings (the
performance issue's "dense documentation" figure) give the answers of the plain paths.

- H's combined pattern (bar-name spellings in one group, the shared ``<|`` written once) finds
  exactly the spans of the plain alternation of its hold patterns, for every dialect; on ASCII
  text its twin in the standard ``re`` engine finds the same spans.
- Rule D6: a hit inside closed code carries only its anchor's own evidence, and the gate tells
  the co-signals to skip such anchors. Skipping is an optimisation: verdicts equal those of
  scanning every anchor and deciding code afterwards, and streams give the same hits.
"""

from __future__ import annotations

import re

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guard import detect
from guard._regex_source import top_level_alternatives
from guard.dialects import DIALECTS, get_dialect
from guard.gate import SurfaceMonitor, code_ranges, decide, find_hits, make_verdict
from guard.gate._policy import Policy
from guard.models import Surface, TextView
from guard.signals.control_token import _ascii_twin, _compiled, _triggers

PROPS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _plain_alternation(name: str) -> regex.Pattern[str]:
    patterns = _triggers(DIALECTS[name]).hold_patterns
    return regex.compile("|".join(f"(?:{p})" for p in patterns))


def _spelling_pieces(name: str) -> list[str]:
    dialect = DIALECTS[name]
    reserved = list(dialect.reserved)
    return [
        *reserved,
        *(TextView(s).norm for s in reserved),
        *(s.upper() for s in reserved),
        "<|",
        "|>",
        "<| ",
        " |>",
        " ",
        "\t",
        "x",
        "reserved_12",
        "assistant to=functions.get_weather",
        "functions.a-b",
        "<",
        "|",
        "7",
    ]


@PROPS
@given(st.sampled_from(sorted(DIALECTS)), st.data())
def test_h_combined_pattern_matches_the_plain_alternation(name: str, data: st.DataObject) -> None:
    pieces = _spelling_pieces(name)
    text = "".join(data.draw(st.lists(st.sampled_from(pieces), max_size=14)))
    fast = [m.span() for m in _compiled(DIALECTS[name]).finditer(text)]
    plain = [m.span() for m in _plain_alternation(name).finditer(text)]
    assert fast == plain


@PROPS
@given(st.sampled_from(sorted(DIALECTS)), st.data())
def test_h_ascii_twin_finds_the_spans_of_the_regex_pattern(name: str, data: st.DataObject) -> None:
    """On ASCII text H searches with the standard ``re`` engine; the engines differ only on
    non-ASCII case folds and digits, so the spans are the same."""
    pieces = [p for p in _spelling_pieces(name) if p.isascii()] + ["K", "k", "S", "s", "I", "0"]
    text = "".join(data.draw(st.lists(st.sampled_from(pieces), max_size=14)))
    pattern = _compiled(DIALECTS[name])
    twin = _ascii_twin(DIALECTS[name])
    assert [m.span() for m in twin.finditer(text)] == [m.span() for m in pattern.finditer(text)]


def test_h_ascii_twin_is_the_standard_engine() -> None:
    twin = _ascii_twin(get_dialect("harmony"))
    assert isinstance(twin, re.Pattern)
    assert [h.evidence for h in detect("<|CHANNEL|> then <| end |>").hits] == [
        "<|CHANNEL|>",
        "<| end |>",
    ]


def test_h_combined_pattern_is_shaped_for_speed() -> None:
    pattern = _compiled(get_dialect("harmony")).pattern
    # the shared literal is written once, behind a test of what can follow it
    assert pattern.startswith("<\\|(?=")
    assert pattern.count("(?i:") == 2  # the lookahead's class, and every bar-name spelling


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_h_a_run_of_the_openers_fails_at_one_test_a_position(name: str) -> None:
    """Every dialect's H pattern opens each group of alternatives with the character they
    share and a lookahead for what can follow, so a run of ``<|`` or ``<`` is not tried against
    each spelling (the union of every dialect took 2 µs a character before)."""
    twin = _ascii_twin(DIALECTS[name])
    source = twin.pattern
    for alternative in top_level_alternatives(source):
        assert re.match(r"(?:<\\\||\\?.)\(\?=", alternative, re.DOTALL), alternative[:40]


DOC_PIECES = [
    "`",
    "```",
    "\n```\n",
    "\n\n",
    "\n",
    " ",
    "<|start|>",
    "<|end|>",
    "<|channel|>",
    "<|message|>",
    "<|call|>",
    "assistant",
    "analysis",
    "commentary",
    " to=functions.edit",
    "to=functions.f",
    " code ",
    "大发官网",
    "{}",
    "Here is prose. ",
    "\\",
]
doc_text = st.lists(st.sampled_from(DOC_PIECES), max_size=30).map("".join)


def _reference(text: str) -> tuple[object, ...]:
    """Scan every anchor with its co-signals, then decide code: the order before the fast path
    (hits in code reduced to their anchor's evidence by `decide`)."""
    policy = Policy()
    dialect = get_dialect("harmony")
    rule = policy.rule(Surface.TEXT)
    weights = policy.effective_weights()
    ranges = code_ranges(text)
    hits = [
        decide(hit, rule, weights, ranges.contains(hit.start, hit.end))
        for hit in find_hits(text, Surface.TEXT, dialect, policy)
    ]
    verdict = make_verdict(text, Surface.TEXT, dialect, hits, None)
    return _shape(verdict)


def _shape(verdict: object) -> tuple[object, ...]:
    v = verdict
    return (
        v.leak,  # type: ignore[attr-defined]
        v.cut,  # type: ignore[attr-defined]
        v.signals,  # type: ignore[attr-defined]
        v.reason,  # type: ignore[attr-defined]
        v.hits_dropped,  # type: ignore[attr-defined]
        [
            (h.signals, h.start, h.end, h.in_code, h.trips, h.lead, len(h.support))
            for h in v.hits  # type: ignore[attr-defined]
        ],
    )


@PROPS
@given(doc_text)
def test_d6_skipping_code_anchors_changes_no_verdict(text: str) -> None:
    assert _shape(detect(text)) == _reference(text)


@PROPS
@given(doc_text)
def test_d6_hits_in_code_carry_only_their_anchor(text: str) -> None:
    verdict = detect(text)
    for hit in verdict.hits:
        if hit.in_code:
            assert len(hit.signals) == 1 and not hit.support and hit.lead is None
            assert not hit.trips


@PROPS
@given(doc_text, st.integers(1, 7))
def test_d6_streams_give_the_whole_text_hits(text: str, size: int) -> None:
    monitor = SurfaceMonitor(Surface.TEXT, get_dialect("harmony"), Policy())
    for i in range(0, len(text), size):
        monitor.feed(text[i : i + size])
    streamed = monitor.finish()
    whole = detect(text)
    assert _shape(streamed) == _shape(whole)


def test_d6_a_marker_in_code_keeps_no_co_signal() -> None:
    text = "Docs: `analysis to=functions.edit code` and more."
    verdict = detect(text)
    assert [(h.label, h.in_code) for h in verdict.hits] == [("M", True)]
    outside = detect("analysis to=functions.edit code x")
    assert outside.hits[0].label != "M"  # the same marker outside code does get co-signals
