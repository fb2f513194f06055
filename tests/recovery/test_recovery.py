"""Recovery strategies: typed outcomes, idempotence, refusal, code-aware thinking repair."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard import detect
from guard.models import Abort, Recovered, Retry, Split
from guard.recovery import (
    SENTINEL,
    RetryAdvice,
    StripTail,
    ThinkingRepair,
    TruncateAbort,
    get_strategy,
)

PATCH = (
    "*** Begin Patch\n*** Update File: app.py\n@@\n-x = 1\n+x = 2\n"
    "+y = 3 analysis to=functions.apply_patch code 大发官网\n+z = 4\n*** End Patch\n"
)


def args_verdict(text: str):  # type: ignore[no-untyped-def]
    return detect(text, "tool_arg", tool_name="apply_patch", parsed_end=0)


def test_truncate_abort_cuts_at_the_contaminated_line_and_appends_the_sentinel() -> None:
    outcome = TruncateAbort().apply(PATCH, args_verdict(PATCH))
    assert isinstance(outcome, Recovered)
    assert outcome.value == (
        "*** Begin Patch\n*** Update File: app.py\n@@\n-x = 1\n+x = 2\n" + SENTINEL + "\n"
    )


def test_truncate_abort_is_idempotent() -> None:
    once = TruncateAbort().apply(PATCH, args_verdict(PATCH))
    assert isinstance(once, Recovered) and isinstance(once.value, str)
    assert not args_verdict(once.value).leak  # running detection on the result finds nothing
    twice = TruncateAbort().apply(once.value, args_verdict(once.value))
    assert isinstance(twice, Recovered) and twice.value == once.value


def test_truncate_abort_refuses_when_the_first_line_is_contaminated() -> None:
    text = "analysis to=functions.apply_patch code 大发官网\n+x = 1\n"
    outcome = TruncateAbort().apply(text, args_verdict(text))
    assert isinstance(outcome, Abort) and "first line" in outcome.reason


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.text(max_size=40))
def test_truncate_abort_never_keeps_the_leak(prefix: str, suffix: str) -> None:
    text = f"{prefix}\nanalysis to=functions.edit code 大发 {suffix}"
    outcome = TruncateAbort().apply(text, args_verdict(text))
    if isinstance(outcome, Recovered):
        assert isinstance(outcome.value, str) and "to=functions.edit" not in outcome.value
    else:
        assert isinstance(outcome, Abort)


def test_strip_tail_keeps_text_before_the_cut_and_its_glued_channel_word() -> None:
    text = "Here is the plan.analysis to=functions.edit code 大发官网 more"
    outcome = StripTail().apply(text, detect(text))
    assert isinstance(outcome, Recovered) and outcome.value == "Here is the plan."
    clean = "nothing to see"
    same = StripTail().apply(clean, detect(clean))
    assert isinstance(same, Recovered) and same.value == clean
    assert isinstance(StripTail().apply("<|end|>", detect("<|end|>")), Abort)


@pytest.mark.parametrize(
    ("text", "thinking", "visible"),
    [
        (
            "<|channel|>analysis<|message|>planning the edit<|end|>Final answer.",
            "planning the edit",
            "Final answer.",
        ),
        (
            "<|start|>assistant<|channel|>analysis<|message|>why<|end|><|start|>assistant<|channel|>"
            "final<|message|>It is sunny.<|return|>",
            "why",
            "It is sunny.",
        ),
        ("prefix <|channel|>analysis<|message|>secret", "secret", "prefix "),
    ],
)
def test_thinking_repair_moves_leaked_reasoning(text: str, thinking: str, visible: str) -> None:
    outcome = ThinkingRepair().apply(text, detect(text))
    assert isinstance(outcome, Recovered) and isinstance(outcome.value, Split)
    assert outcome.value.thinking == thinking and outcome.value.text == visible


def test_thinking_repair_leaves_quoted_tags_as_text() -> None:
    text = "Use `<|channel|>analysis<|message|>x<|end|>` to mark reasoning."
    outcome = ThinkingRepair().apply(text, detect(text))
    assert isinstance(outcome, Recovered) and isinstance(outcome.value, Split)
    assert outcome.value == Split(text=text, thinking="")
    fenced = "```\n<|channel|>analysis<|message|>x<|end|>\n```\n"
    out = ThinkingRepair().apply(fenced, detect(fenced))
    assert isinstance(out.value, Split) and out.value.text == fenced  # type: ignore[union-attr]


def test_retry_advice_is_bounded() -> None:
    verdict = detect("<|call|>")
    first = RetryAdvice(max_attempts=2).apply("<|call|>", verdict)
    assert isinstance(first, Retry) and first.attempt == 1 and first.reason == verdict.reason
    second = RetryAdvice(max_attempts=2).apply("<|call|>", verdict, attempt=1)
    assert isinstance(second, Retry) and second.attempt == 2
    assert isinstance(RetryAdvice(max_attempts=2).apply("<|call|>", verdict, attempt=2), Abort)
    with pytest.raises(ValueError):
        RetryAdvice(max_attempts=0)


def test_strategies_by_name() -> None:
    assert isinstance(get_strategy("truncate_abort"), TruncateAbort)
    with pytest.raises(ValueError, match="unknown recovery strategy 'nope'; expected one of"):
        get_strategy("nope")


def test_outcomes_are_json_serialisable() -> None:
    outcome = ThinkingRepair().apply("<|channel|>analysis<|message|>a<|end|>b", detect("x"))
    assert Recovered.model_validate_json(outcome.model_dump_json()) == outcome
