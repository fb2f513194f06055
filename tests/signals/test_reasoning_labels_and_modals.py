"""Reasoning that reaches the answer in shapes the cue vocabulary learned from 2026 reports: a
reasoning label in any case (``THINKING:``, ``thought:``; not ReAct's own ``Thought:`` line), a
bullet glyph an interface puts before a thinking line (``✻``), an opening ``Wait,`` that
corrects the reasoning, the model reading its system reminder, a first-person modal in any verb
(``I should sort``, ``I shouldn't mention``), a self-instruction to write the output (``Now
write the patch.``), a plan corrected with ``Actually we should``, and a bare step after a
semicolon (``; mention that``). Each weak cue only adds to a strong one; the hard benign
answers that share the words stay clean, in any reasoning context and at every stream split."""

from __future__ import annotations

import pytest
from support.splits import assert_every_split

from guard import detect
from guard.signals._voice import find_cues

LEAKS = [
    (
        "qwen3_coder",
        "THINKING: The user wants the BTC price. Let me check two sources first.\n\n"
        "BTC is at $97k.",
    ),
    (
        "gemini",
        "thought: The user wants me to run the tests. I should use the shell, then report.\n"
        "Running the tests now.",
    ),
    (
        "qwen3_coder",
        "\u273b The user is saying hello. I should respond in a friendly way.\n\nHello! What can"
        " I do?",
    ),
    (
        "chatml",
        "Wait, the user asked for present tense. Let me redo that paragraph.\n\nShe walks in.",
    ),
    (
        "glm",
        "The system reminder says plan mode is active and I must not edit files. The user asked"
        " me to implement it, so I should restate the plan.\n\nHere is the plan again.",
    ),
    (
        "chatml",
        "The user wants monitoring every 5 minutes. I shouldn't mention the scheduler internals."
        "\n\nDone! Monitoring is set up.",
    ),
    (
        "glm",
        "The user wants the failing test fixed. The assertion compares dict order. Now write the"
        " patch.\n\nFixed by sorting keys.",
    ),
    (
        "qwen3_coder",
        "We need to write the test file. The user wants pytest. Actually we should reuse the"
        " fixture.\n\nI've added tests/test_api.py.",
    ),
    (
        "gemini",
        "The user wants only code. I must not run tools. So output the snippet.\n\n```js\n"
        "export const a = 1;\n```",
    ),
]
BENIGN = [
    (
        "llama3",
        "Thought: To find the weather in Paris, I will use the get_weather tool. It takes a"
        " location, so I will pass Paris.",
    ),
    ("chatml", "Wait, are you on Windows? Then use `dir` instead of `ls`."),
    (
        "chatml",
        "The system prompt says the bot must answer in French; set `language: fr` to match.",
    ),
    ("chatml", "I should note that the API is rate limited. I need to see your logs to say more."),
    ("qwen3_coder", "THINKING: is the label the CLI prints; hide it with --quiet."),
    ("chatml", "Actually, I should mention that the flag was renamed in 2.0: use --out now."),
    ("qwen3_coder", "\u273b Tip: run `make` twice for a clean build."),
    ("glm", "Now write the response to a file with `json.dump(data, f)` and close it."),
    # hostile review: the instructions, a command prompt, a reader's next step
    (
        "chatml",
        'The command prompt says "Access is denied". I should mention you need to run it as'
        " administrator.",
    ),
    (
        "chatml",
        "The system prompt says the bot should never reveal internal pricing; that's why it"
        " refuses. I should note you can change it in Settings > Bot.",
    ),
    ("chatml", "Wait, the instructions say to unplug the router first. Then plug it back in."),
    ("chatml", "\u2022 The user asked me to summarise the ticket: the customer wants a refund."),
    (
        "chatml",
        "Did I miss the deadline? No. I need to submit by Friday. Then write the summary.",
    ),
    ("chatml", "The system message says your password expires. Just reply to it to reset."),
    ("chatml", "Use `git reset --soft HEAD~1`; mention that it only rewrites local history."),
    (
        "glm",
        "The user asked how to reset their password. I sent the reset link and they confirmed"
        " it worked.",
    ),
]


@pytest.mark.parametrize(("dialect", "text"), LEAKS)
def test_reasoning_in_the_new_shapes_is_a_leak(dialect: str, text: str) -> None:
    v = detect(text, "text", dialect)
    assert v.leak and set(v.signals) & {"L", "V"}, v.reason


@pytest.mark.parametrize(("dialect", "text"), BENIGN)
@pytest.mark.parametrize("reasoning", [None, False, True])
def test_answers_that_share_the_words_stay_clean(
    dialect: str, text: str, reasoning: bool | None
) -> None:
    v = detect(text, "text", dialect, reasoning=reasoning)
    assert not v.leak, v.reason


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("THINKING: x", "reasoning label"),
        ("thought: x", "reasoning label"),
        ("\u273b Thinking: x", "reasoning label"),
        ("I shouldn't mention the scheduler.", "first-person modal"),
        ("I must not run tools.", "first-person modal"),
        ("I should sort the keys.", "first-person modal"),
        ("Done. Now write the patch.", "reply step"),
        ("3 x 7 = 21, just output the digits.", "reply step"),
        ("Fine. Actually we should import it.", "wait"),
        ("That is it; mention that it rewrites history.", "scratch note"),
        ("The system reminder says plan mode is on.", "the prompt, third person"),
        ("The user told me to stop.", "the user, third person"),
    ],
)
def test_each_new_cue_is_named(text: str, kind: str) -> None:
    assert kind in [c.kind for c in find_cues(text)], find_cues(text)


@pytest.mark.parametrize(
    "text",
    [
        "Thought: I will check.",  # ReAct's own line
        "thinking: aloud is how I debug.",  # lower-case words open notes and poems
        "I should mention it was published in 2011.",  # telling the reader: a plan, not a modal
        "I need to see your log.",  # names the reader
        "Just reply to this email.",  # the reader's step
        "Then write your commit message.",
        "I should be fine.",  # "be" and "have" are no step
        "Now, writing tests is easy.",
        "Actually, the answer is 4.",
        "Use it; mentioned above.",
    ],
)
def test_near_misses_are_no_new_cue(text: str) -> None:
    kinds = {c.kind for c in find_cues(text)}
    new = {"reasoning label", "first-person modal", "reply step", "wait", "scratch note"}
    assert not kinds & new, kinds


@pytest.mark.parametrize(
    ("dialect", "text"), [LEAKS[0], LEAKS[2], LEAKS[3], LEAKS[6], BENIGN[0], BENIGN[1]]
)
def test_streams_decide_as_detect_at_every_split(dialect: str, text: str) -> None:
    assert_every_split(text, "text", dialect, never_past_cut=True)
