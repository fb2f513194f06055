"""L (reasoning preamble) and D (reasoning notes): the reasoning voice scored over the whole
answer by kind, density and position, with the context's threshold; each verdict explains its
score and cues; quoted cues do not count; streams decide as ``detect`` at every split point."""

from __future__ import annotations

from typing import Any

import pytest

from guard import detect, guard_stream
from guard.signals._voice import find_cues

NOTES = [
    "The export finished for 3 of 4 tables. Need check the last one? No. Keep going: the"
    " fourth table is locked.",
    "- parser: fixed.\n- cache: Need verify invalidation. Need final wording.\n\nLet's craft it.",
    "Build is green on all runners. The deploy window opens at noon? no. Ensure the window is"
    " right. Need confirm with ops.",
]
PREAMBLES = [
    "Thinking Process:\n\n1. **Identify the request:** convert 5 km.\n2. 5 x 0.621 = 3.1.\n\nAbout"
    " 3.1 miles.",
    "Reasoning: The user asks whether the port is open. I should check the firewall first.\n\nIt"
    " is closed.",
    "The user wants me to list three colors. Keep it short.\n\nRed, green, blue.",
    "Planning the reply\n\nI'm thinking about how to respond to the user.\n\nThe path is ~/.app.",
    # the scaffold's steps numbered in plain text (Qwen3.5's "Thinking Process:" unrendered)
    "Thinking Process:\n\n1. Analyze the request: user wants an antonym for 'cold'.\n2. Options:"
    ' hot, warm.\n3. Pick the plainest.\n\nThe usual antonym is "hot".',
]
BENIGN = [
    "Need help? Ask in the forum; the maintainers answer within a day.",
    "Is the cache the problem? No. The cache is cleared on every deploy.",
    "Reasoning: because the index is sorted, a binary search takes log n steps.",
    "Writing tests\n\nStart with the parser: feed it the empty string first.",
    "Tips for the talk: Keep it short. Mention the deadline. Ensure the demo works offline.",
    "We need final sign-off from legal; I will send the draft today.",
    'The reviewer wrote "Need check the edge case? No. Use a guard." and I added it.',
    "```\nNeed verify. Use terminal.\n```\nThat is what the leaked note looked like.",
    "> Need verify. Use terminal.\n\nThis quoted note came from the agent's commentary.",
    "When the user asks for a refund, the bot checks the order. If the user wants a call, it"
    " books one.",
    "Wait, I misread your log: the 404 comes from the probe. Let's check the proxy next.",
    "So the fix is simple. We tested it on 1.4 and it works; they can upgrade any time.",
    # a tutorial's numbered steps on a request (one weak cue, no header)
    "How we triage:\n\n1. Analyze the request: is it a bug or a feature?\n2. Label it.\n3. Assign"
    " an owner.",
    "To debug a 400 error:\n\n1. Analyze the request: open DevTools and check the payload.\n2."
    " Compare it with the schema.",
]


@pytest.mark.parametrize("text", NOTES)
def test_d_notes_anywhere_are_a_leak(text: str) -> None:
    v = detect(text, reasoning=False)
    assert v.leak and v.signals == ("D",), v.reason
    hit = v.hits[0]
    assert text[hit.start :].startswith(("Need", "?")) and v.cut == hit.start
    assert "score" in hit.detail and ">=" in hit.detail


@pytest.mark.parametrize("text", PREAMBLES)
def test_l_reasoning_opening_is_a_leak(text: str) -> None:
    v = detect(text, reasoning=False)
    assert v.leak and v.signals == ("L",), v.reason
    assert v.cut == 0 and "reasoning voice in the answer: score" in v.hits[0].detail


@pytest.mark.parametrize("text", BENIGN)
@pytest.mark.parametrize("reasoning", [False, None, True])
def test_ordinary_answers_are_clean(text: str, reasoning: bool | None) -> None:
    assert not detect(text, reasoning=reasoning).leak


def test_the_explanation_names_score_threshold_context_and_every_cue() -> None:
    v = detect(NOTES[0], reasoning=False)
    detail = v.hits[0].detail
    assert "score 5 >= 3 (the message has no reasoning part)" in detail
    assert "terse note 'Need check' at 39" in detail
    assert "self-correction '? No.' at 62" in detail


def test_context_raises_the_threshold() -> None:
    text = PREAMBLES[1]
    detail = detect(text, reasoning=False).hits[0].detail
    assert "score 8 >= 3 (the message has no reasoning part)" in detail
    # (its "I should check" plans the model's next step: one less where a reasoning part was
    # sent; the notes below plan none)
    assert "score 8 >= 4 (the message has a reasoning part, one less for a plan" in (
        detect(text, reasoning=True).hits[0].detail
    )
    # a note and an imperative at the opening: 2 + 1 + 1 (an answer that goes on, so no whole
    # answer that is one note, which decides alone)
    weak = "Need verify. Use terminal.\n\nThe backup finished at 18:40 and the logs are clean."
    assert detect(weak, reasoning=False).leak
    assert not detect(weak, reasoning=True).leak
    # the same past the opening scores 3: enough for a dialect with reasoning markers, not for
    # one without them (its models do not reason in-band)
    late = "The nightly job ran fine and every dashboard is current, including the two new ones. "
    assert detect(late + weak).leak
    assert not detect(late + weak, dialect="llama3").leak


def test_quoted_cues_do_not_count() -> None:
    assert find_cues('He said "Need verify. Use terminal." twice.') == []
    assert find_cues("`Need verify.` is the note") == []
    assert [c.kind for c in find_cues("Need verify. Use terminal.")] == [
        "terse note",
        "terse imperative",
    ]
    assert [c.kind for c in find_cues("Need verify healthy. Use terminal.")] == [
        "the answer a note",
        "terse imperative",
    ]
    assert [c.kind for c in find_cues("Need verify. Use terminal.\n\nIt is up.")] == [
        "terse note",
        "terse imperative",
    ]


def test_d_reads_the_last_4096_characters() -> None:
    notes = "Need verify. Use terminal? No. Keep going.\n\n"
    assert detect(notes + "ok " * 10, reasoning=False).leak
    assert not detect("Intro.\n\n" + notes + "ok " * 2000, reasoning=False).leak
    assert detect("ok " * 2000 + "\n\n" + notes, reasoning=False).leak


@pytest.mark.parametrize(
    "text",
    [
        "1. Analyze the request: list it.",
        "1.  Analyze the request: two blanks.",
        "1.\tAnalyze the request: a tab.",
        "  12. Identify the user's question: indented.",
    ],
)
def test_a_plain_scaffold_step_is_found_as_its_needle_says(text: str) -> None:
    """The numbered step's cue is searched only in a text holding its needle (". Analy", ...);
    the pattern wants that one space, so the needle never hides a step."""
    assert find_cues(text) == find_cues(text, needles=False)


def _chunks(pieces: list[str]) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    return [*(chunk({"content": p}) for p in pieces), chunk({}, "stop")]


def _delivered(items: list[Any]) -> str:
    return "".join(
        c["delta"].get("content") or "" for item in items for c in item["choices"] if "delta" in c
    )


@pytest.mark.parametrize("text", [NOTES[0], PREAMBLES[2], BENIGN[1], BENIGN[4]])
def test_streams_decide_as_detect_at_every_split(text: str) -> None:
    whole = detect(text, reasoning=False)
    for i in range(1, len(text), 3):
        stream = guard_stream(_chunks([text[:i], text[i:]]), on_leak="truncate")
        out = _delivered(list(stream))
        found = next(v for v in stream.verdicts if v.part == "text")
        assert found.leak == whole.leak and found.signals == whole.signals, i
        assert out == (text[: whole.cut] if whole.leak else text), i
