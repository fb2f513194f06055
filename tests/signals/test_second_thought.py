"""D (and L at the opening): a second thought about the user, opening its sentence ("Wait, the
user said ...", "But wait, the user might be checking ...", "Hmm, but wait — maybe the user is
..."): the model doubting its reply where the user reads it. Positives anywhere in the answer,
near misses (quoted, documentation, the reasoning part, no interjection, "Wait for ..."), the
context's threshold, the prefilter's promise and every chunk split."""

from __future__ import annotations

import pytest
from support.splits import assert_every_split

from guard import Surface, detect
from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY, SurfaceMonitor
from guard.gate._prefilter import prefilter
from guard.signals._voice import SECOND_THOUGHT, find_cues

ANSWER = "Soft-boiled eggs take about 6 minutes; cool them in ice water to stop the cooking.\n\n"
LEAKS = [
    ANSWER + "Wait, the user said they're at high altitude (Denver). I should add a minute.",
    ANSWER + "But wait, the user might be checking whether I admit the tool failed. Let me"
    " reconsider.",
    ANSWER + "Wait, maybe the user is testing whether I make up a number.",
    "But wait, the user wants the latest figures and the search just failed. Should I retry?\n\n"
    "The search returned nothing this time.",
    ANSWER + "Oh wait, the user asked for Fahrenheit.",
]


@pytest.mark.parametrize("text", LEAKS)
def test_a_second_thought_about_the_user_trips(text: str) -> None:
    v = detect(text, dialect="chatml")
    assert v.leak and set(v.signals) & {"D", "L"}, v.reason
    assert "second thought on the user" in v.hits[0].detail
    start = min(text.find(w) for w in ("Wait", "But wait", "Oh wait") if w in text)
    assert v.cut == start, (v.cut, start)


@pytest.mark.parametrize(
    "text",
    [
        # quoted: an example of a bad transcript
        ANSWER + "A sloppy bot narrates: 'Hmm, the user seems upset. I should apologize.'",
        ANSWER + 'Avoid replies like "Wait, the user asked for X" in production.',
        ANSWER + "> Wait, the user said Denver.",
        # no interjection, or not opening its sentence, or not the user
        ANSWER + "The user said they're at high altitude, so add a minute.",
        ANSWER + "Wait for the water to boil before the user adds the eggs.",
        ANSWER + "Wait, the users table needs an index.",
        ANSWER + "Wait, the user object is null here, so guard it.",
        ANSWER + "Please wait, the user list is loading.",
        ANSWER + "Hmm, you said Denver, so add a minute.",
        # a wait-list, not an interjection
        "Wait-list policy: when the class is full, the user is added to the list.",
    ],
)
def test_second_thought_near_misses_pass(text: str) -> None:
    v = detect(text, dialect="chatml")
    assert not v.leak, v.reason


def test_the_reasoning_part_is_where_it_belongs() -> None:
    thinking = "Hmm, the user is asking who I am. Keep it warm and short."
    assert not detect(thinking, "thinking", dialect="chatml", reasoning=True).leak


def test_a_reasoning_part_sent_raises_the_threshold() -> None:
    # with a reasoning part the phrase alone does not decide; more of the voice does
    alone = ANSWER + "Wait, the user said Denver."
    assert detect(alone, dialect="chatml").leak
    assert not detect(alone, dialect="chatml", reasoning=True).leak
    more = alone + " Let me reconsider. I should add a minute. Let me check the altitude table."
    assert detect(more, dialect="chatml", reasoning=True).leak


def test_one_phrase_is_one_cue() -> None:
    cues = find_cues("Wait, the user asked for present tense.")
    assert [c.kind for c in cues] == [SECOND_THOUGHT]


@pytest.mark.parametrize(
    "text",
    [
        "Hmm, the user probably has a pull request open.",  # no "ait," for the prefilter
        "Wait \u2014 the user said Denver.",
        "Wait. The user said Denver.",
    ],
)
def test_other_interjections_are_not_this_cue(text: str) -> None:
    assert SECOND_THOUGHT not in [c.kind for c in find_cues(text)]


@pytest.mark.parametrize("text", LEAKS)
def test_the_prefilter_keeps_every_second_thought(text: str) -> None:
    pre = prefilter(get_dialect("chatml"), frozenset({Surface.TEXT}), tools_known=False)
    assert pre is not None and pre.candidates(["plain words.", text]) == [1]


@pytest.mark.parametrize("text", LEAKS[:3])
def test_every_split_gives_the_whole_verdict(text: str) -> None:
    assert assert_every_split(text, "text", "chatml", never_past_cut=True).leak


def test_a_stream_lets_wait_for_through() -> None:
    # "Wait for ..." is no second thought: a stream relays it as it comes, not at the end
    monitor = SurfaceMonitor(Surface.TEXT, get_dialect("chatml"), DEFAULT_POLICY)
    monitor.feed("Sure. Wait for the build to finish, then restart the server")
    assert monitor.release >= len("Sure. Wait for the build to finish,")
    held = SurfaceMonitor(Surface.TEXT, get_dialect("chatml"), DEFAULT_POLICY)
    held.feed("Sure.\n\nWait, the user said Denver and")
    assert held.release <= len("Sure.\n\n")
    assert held.finish().leak
