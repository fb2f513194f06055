"""The event judge holds back the tail of a chat delta field that may still begin a spelling,
and judges it as the end of its field when the field ends (a finishing chunk, or the end of the
stream): a held ``<|ch`` that the next string completes to no spelling arrives whole and clean;
a field that ends on a cut spelling (``... <|tool_call``, Q) is a leak, recorded in
``verdicts``, and no character of the cut spelling is ever relayed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.wire import ChoiceGuard

CUT = "Let me check the docs. <|tool_call"
SENT = "Let me check the docs. "
PART = "choices[0].delta.refusal"


def chunk(delta: dict[str, Any], index: int = 0, finish: str | None = None) -> Any:
    choice = {"index": index, "delta": delta, "finish_reason": finish, "logprobs": None}
    return {"id": "c1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}


def refusals(out: list[Any], index: int = 0) -> str:
    return "".join(
        c["delta"].get("refusal") or ""
        for o in out
        for c in o.get("choices") or ()
        if "delta" in c and c.get("index") == index
    )


def finishes(out: list[Any], index: int = 0) -> list[str]:
    return [
        c["finish_reason"]
        for o in out
        for c in o.get("choices") or ()
        if c.get("index") == index and c.get("finish_reason")
    ]


def pieces_of(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


# --- a held fragment that becomes no spelling ------------------------------------------------


@pytest.mark.parametrize("dialect", ["harmony", "gemma", "chatml", "all"])
@pytest.mark.parametrize("ending", ["finish", "end", "finish-in-last"])
def test_a_held_fragment_completed_to_no_spelling_arrives_whole(dialect: str, ending: str) -> None:
    answer = ChoiceGuard(dialect)
    out = answer.push(chunk({"refusal": "Sorry <|ch <| <|chan"}))
    if dialect != "chatml":  # (ChatML spells no channel token: nothing to hold there)
        assert "<|chan" not in refusals(out)  # held: it may still become a channel token
    if ending == "finish-in-last":
        out += answer.push(chunk({"refusal": "nel no"}, 0, "stop"))
    else:
        out += answer.push(chunk({"refusal": "nel no"}))
        if ending == "finish":
            out += answer.push(chunk({}, 0, "stop"))
    out += answer.end()
    assert refusals(out) == "Sorry <|ch <| <|channel no"
    assert not any(v.leak for v in answer.verdicts) and not answer.cut
    assert answer.guard_event() is None


@pytest.mark.parametrize("dialect", ["gemma", "all"])
def test_a_cut_opening_followed_by_more_text_is_clean(dialect: str) -> None:
    answer = ChoiceGuard(dialect)
    out = answer.push(chunk({"refusal": "Gemma opens a call with <|tool_call"}))
    out += answer.push(chunk({"refusal": "> and closes it."}, 0, "stop"))
    out += answer.end()
    # the whole spelling is H: that is a leak of its own, not Q's
    assert "Q" not in {s for v in answer.verdicts for s in v.signals}
    answer = ChoiceGuard(dialect)
    out = answer.push(chunk({"refusal": "I wrote <|tool_call"}))
    out += answer.push(chunk({"refusal": "_notes yesterday."}, 0, "stop"))
    out += answer.end()
    assert refusals(out) == "I wrote <|tool_call_notes yesterday."
    assert not any(v.leak for v in answer.verdicts)


# --- a field that ends on a cut spelling ----------------------------------------------------


@pytest.mark.parametrize("dialect", ["gemma", "kimi", "all"])
@pytest.mark.parametrize("ending", ["finish", "finish-in-last", "end"])
def test_a_field_ending_on_a_cut_spelling_is_a_leak(dialect: str, ending: str) -> None:
    answer = ChoiceGuard(dialect)
    out = answer.push(chunk({"refusal": SENT}))
    last = chunk({"refusal": "<|tool_call"}, 0, "stop" if ending == "finish-in-last" else None)
    out += answer.push(last)
    assert "<|" not in json.dumps(out)  # held, never relayed
    if ending == "finish":
        out += answer.push(chunk({}, 0, "stop"))
    out += answer.end()
    assert refusals(out) == SENT
    assert "<|" not in json.dumps(out)
    leaks = [v for v in answer.verdicts if v.leak]
    assert [v.signals for v in leaks] == [("Q",)]
    assert leaks[0].part == PART and leaks[0].hits[0].evidence == "<|tool_call"
    assert PART in answer.cut
    event = answer.guard_event()
    assert event is not None and event["guard"]["signals"] == ["Q"]
    assert event["guard"]["parts"] == [PART]
    if ending != "end":
        assert answer.ended == {0: "truncated"} and "stop" in finishes(out)


def test_the_leaking_choice_ends_and_the_other_goes_on() -> None:
    answer = ChoiceGuard("gemma", choices=2)
    out = answer.push(chunk({"refusal": "Hi <|tool_call"}, 0))
    out += answer.push(chunk({"refusal": "Fine."}, 1))
    out += answer.push(chunk({}, 0, "stop"))
    assert not answer.stopped  # choice 1 is still going
    out += answer.push(chunk({"refusal": " Done."}, 1))
    out += answer.push(chunk({}, 1, "stop"))
    out += answer.end()
    assert refusals(out, 0) == "Hi " and refusals(out, 1) == "Fine. Done."
    assert answer.ended == {0: "truncated"}
    assert [v.part for v in answer.verdicts if v.leak] == [PART]


def test_report_mode_relays_the_tail_and_holds_nothing() -> None:
    answer = ChoiceGuard("gemma", on_leak="report")
    out = answer.push(chunk({"refusal": CUT}))
    assert refusals(out) == CUT


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, len(CUT)), max_size=6), st.booleans())
def test_any_split_relays_no_character_of_the_cut_spelling(cuts: list[int], finish: bool) -> None:
    pieces = pieces_of(CUT, cuts)
    answer = ChoiceGuard("gemma")
    out: list[Any] = []
    for piece in pieces:
        out += answer.push(chunk({"refusal": piece}))
    if finish:
        out += answer.push(chunk({}, 0, "stop"))
    out += answer.end()
    assert refusals(out) == SENT
    assert [v.signals for v in answer.verdicts if v.leak] == [("Q",)]


def _stream(dialect: str, pieces: list[str]) -> tuple[str, ChoiceGuard]:
    answer = ChoiceGuard(dialect)
    out: list[Any] = []
    for piece in pieces:
        out += answer.push(chunk({"refusal": piece}))
    out += answer.end()
    return refusals(out), answer


def test_two_equal_strings_in_a_row_keep_the_held_tail_whole() -> None:
    # "Hi <|tool_call" streamed as "Hi <|tool_ca", "l", "l": the second "l" goes out
    out, answer = _stream("gemma", ["Hi <|tool_ca", "l", "l"])
    assert out == "Hi "  # relayed: "Hi l"
    assert [v.signals for v in answer.verdicts if v.leak] == [("Q",)]


def test_two_equal_strings_in_a_row_do_not_hide_a_spelling() -> None:
    out, answer = _stream("harmony", ["Done <|ca", "l", "l", "|>"])
    assert out == "Done "  # relayed: "Done l<|cal|>"
    assert any(v.leak and "H" in v.signals for v in answer.verdicts)


@pytest.mark.parametrize(
    "pieces",
    [
        ["Gemma opens a call with <|tool_call\n", "and closes it later."],
        ["a <|tool_call ", "b"],
    ],
)
def test_an_opening_followed_by_a_blank_in_its_string_is_no_cut_spelling(
    pieces: list[str],
) -> None:
    """A string that ends in an opening and a blank is not held (no spelling goes on after a
    blank), and it is no cut spelling either: the blank is more text."""
    out, guard = _stream("gemma", pieces)
    assert out == "".join(pieces) and not guard.verdicts
