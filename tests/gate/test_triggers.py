"""``Triggers``: a signal's detection promise and its optional stream hints, built from the two
parts or from their fields as keywords (the form every signal used before the split)."""

from __future__ import annotations

import pytest

from guard.models import Detection, StreamHints, Triggers


def test_keywords_and_parts_build_the_same_triggers() -> None:
    flat = Triggers(literals=("<|",), scope="ending", hold_words=("assistant",), glue="}")
    parts = Triggers(
        Detection(literals=("<|",), scope="ending"),
        StreamHints(hold_words=("assistant",), glue="}"),
    )
    assert flat == parts and hash(flat) == hash(parts)
    assert flat.detection == Detection(literals=("<|",), scope="ending")
    assert flat.hints == StreamHints(hold_words=("assistant",), glue="}")
    # every field stays readable on the whole
    assert flat.literals == ("<|",) and flat.hold_words == ("assistant",) and flat.tail is None


def test_a_signal_without_stream_hints_publishes_only_its_promise() -> None:
    triggers = Triggers(Detection(pattern="[<>]"))
    assert triggers.hints == StreamHints()
    assert Triggers() == Triggers(Detection(), StreamHints())


def test_unknown_or_doubled_fields_are_refused() -> None:
    with pytest.raises(TypeError, match="hold_word"):
        Triggers(hold_word=("x",))
    with pytest.raises(TypeError, match="not both"):
        Triggers(Detection(), literals=("x",))
    with pytest.raises(TypeError, match="not both"):
        Triggers(hints=StreamHints(), glue="}")
    with pytest.raises(AttributeError):
        _ = Triggers().nothing
