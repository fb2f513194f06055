"""Shapes added in stop 45: the model's brief to itself before the answer (L), with near misses
and every split."""

from __future__ import annotations

import pytest
from support.splits import monitored

from guard import detect

# --- L: the model's brief to itself, then the answer ------------------------------------------

BRIEFS = [
    "The user wants the failing test fixed. The assertion compares dict order. I should sort "
    "keys. Now write the patch.\n\nFixed the test by sorting keys before comparison.",
    "The user wants only source code. The style guide says code only, so I must not explain."
    "\n\n```js\nexport const sum = (a, b) => a + b;\n```",
    "用户又问了构建失败的原因。我应该先看日志，再回答。\n\n构建失败是因为缺少依赖 lodash。",
]


@pytest.mark.parametrize("text", BRIEFS)
def test_a_brief_before_the_answer_trips(text: str) -> None:
    v = detect(text, dialect="chatml")
    assert v.leak and v.signals == ("L",) and v.cut == 0, v.reason
    assert v.hits[0].end == text.index("\n\n")


@pytest.mark.parametrize(
    "text",
    [
        # no blank line and answer after it: the brief alone is L's scored rule's to judge
        "The user wants the failing test fixed. I should sort keys.",
        # no step of the model's own
        "The user wants a refund.\n\nRefunds take five days to reach your card.",
        # the user not in the third person at the start
        "You want the test fixed. I should sort keys.\n\nFixed by sorting keys.",
        # documentation: a modal, not a verb of asking
        "The user can export data. We should document it.\n\nSee the export page.",
        # the step is after the blank line, in the answer
        "The user asked about pricing.\n\nI'll list the plans: Basic, Pro and Team.",
        # a reply drafted for the reader: it speaks to them and introduces the draft
        "The user wants a refund. Let me draft the reply for you:\n\nHi! Refunds take 5 days.",
    ],
)
def test_brief_near_misses_pass(text: str) -> None:
    assert not detect(text, dialect="chatml").leak


@pytest.mark.parametrize("text", BRIEFS[:1])
def test_a_brief_every_split_gives_the_whole_verdict(text: str) -> None:
    whole = detect(text, dialect="chatml")
    for cut in range(1, len(text)):
        verdict, shown = monitored(text, cut, "text", "chatml")
        assert (verdict.leak, verdict.signals, verdict.cut) == (
            whole.leak,
            whole.signals,
            whole.cut,
        ), cut
        assert shown <= 0, cut  # the opening is held until it is decided


def test_a_brief_needs_no_reasoning_part() -> None:
    # with a reasoning part the reasoning went there: the brief alone does not decide
    text = BRIEFS[0]
    assert not detect(text, dialect="chatml", reasoning=True).leak
    assert detect(text, dialect="chatml", reasoning=False).leak
