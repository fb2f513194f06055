"""Reasoning that reaches the answer without tokens in other families' register: reasoning
openers ("Okay, so the user ..."), first-person steps ("Let me double-check"), lowercase scratch
notes, Chinese reasoning; and the hard benign answers that share their words. Each verdict names
its cues; streams decide as ``detect`` at every split point; a FAQ question answered "No." is
no self-correction."""

from __future__ import annotations

from typing import Any

import pytest
from support.splits import assert_every_split

from guard import detect, guard_stream
from guard.signals._voice import _asked, find_cues

LEAKS = [
    (
        "deepseek",
        "Okay, so I need to explain what a mutex is. Let me start with a plain definition. Wait,"
        " the user might be new to this.\n\nA mutex lets one thread at a time into a section.",
    ),
    (
        "glm",
        "The user is asking how to undo a commit. I should give the safe way first. Let me keep"
        " it short.\n\nRun `git revert HEAD`.",
    ),
    (
        "chatml",
        "Alright, the user wants a regex for dates. I need to respond with one pattern. Let me"
        " double-check the groups.\n\nUse `\\d{4}-\\d{2}-\\d{2}`.",
    ),
    (
        "glm",
        "用户现在需要一句问候语，十字以内。首先确定语气，然后检查字数。这样输出即可。\n早上好，今天也加油！",
    ),
    (
        "minimax",
        "好的，用户让我推荐一本书。我应该先问他喜欢的类型，让我组织一下语言。\n\n你喜欢哪类书？",
    ),
    ("harmony", "need short reply; maybe add example; mention flag.\n\nUse `-v` for more output."),
    (
        "deepseek",
        "Okay, so the problem is to reverse the words. Split and join works. Let me verify with"
        " an example.\n\n`' '.join(s.split()[::-1])`",
    ),
    (
        "glm",
        "好的，我需要回答用户关于时区的问题。首先确认用户所在城市，然后给出时差。\n\n北京比伦敦快八小时。",
    ),
    (
        "deepseek",
        "The answer is 42.\n\nWait, the user asked for the sum, not the product? No. Let me"
        " recompute: 6 + 7 = 13.\n\nThe sum is 13.",
    ),
    # heldout36: what the user did, then what they want
    (
        "chatml",
        "The user uploaded a receipt and wants the total. I need to find the line that says"
        " total, not subtotal. Subtotal is 38.20, tax 3.90, so total 42.10.",
    ),
]
BENIGN = [
    ("deepseek", "Okay, here's a quick summary: the cache is per worker and the timeout is 60s."),
    (
        "deepseek",
        "Hmm, good question. Yes: Python's sort is stable, so equal keys keep their order.",
    ),
    ("chatml", "Let me explain how retries work. The client waits a second, then doubles it."),
    ("minimax", "Let me read the config loader to confirm where the default comes from."),
    ("chatml", "I need to correct my earlier answer: the limit is per minute, not per second."),
    ("harmony", "Do you need a GPU? No. Use the CPU build. Does it stream? No. Keep it simple."),
    ("glm", "Q: Is the client thread-safe? No. Use a lock. Q: Can I reuse it? Yes."),
    ("deepseek", "Next steps:\n- need to add tests\n- maybe add a flag for the timeout\n- release"),
    ("glm", "用户需要先登录才能使用该功能。首先，打开设置页面；然后，点击“账户”。"),
    ("minimax", "当用户问到退款时，客服应该先确认订单号，再说明退款政策。"),
    ("glm", "用户问到的这个问题很常见：启动时加上 --reasoning-parser 参数即可。"),
    (
        "chatml",
        "Let's write a function that reverses a string. First, we need to handle empty input.",
    ),
    ("kimi", "Let's see an example: sorting [3, 1, 2] gives [1, 2, 3], so the median is 2."),
    ("harmony", "Hmm, I need to think about that one. Can you share the full stack trace?"),
    (
        "deepseek",
        "Hmm, let me think... I believe it is 10 MB, but let me check the docs. Yes: 10 MB.",
    ),
    (
        "glm",
        "The user asked a good question in the forum: why does the cache grow? I'll answer it"
        " here: entries never expire by default.",
    ),
    (
        "glm",
        "User writes: 'the app crashes'. We asked for the log. Let me draft the reply for you:"
        "\n\nHi! Could you send the log?",
    ),
    ("chatml", "The default is 30 seconds? No. Let me correct that: it is 60 seconds since 2.0."),
    ("chatml", "Okay, the question is a good one: the GIL is released during I/O."),
    ("deepseek", "First, I want to thank you for your patience. The fix ships in 2.1."),
    ("glm", "用户想要导出数据时，可以在“报表”页面点击导出按钮。"),
    ("glm", "思路：首先要确定左右边界，然后用二分查找。"),
    ("chatml", "Actually, wait until the download finishes before you unplug the drive."),
    ("minimax", "Let me check that I understood: you want the report weekly, not daily?"),
    (
        "chatml",
        "The user uploaded a receipt and wants a refund, so forward the ticket to billing.",
    ),
]


@pytest.mark.parametrize(("dialect", "text"), LEAKS)
def test_reasoning_without_tokens_is_a_leak(dialect: str, text: str) -> None:
    v = detect(text, "text", dialect)
    assert v.leak and set(v.signals) & {"L", "D"}, v.reason
    assert "reasoning voice in the answer: score" in v.hits[0].detail


@pytest.mark.parametrize(("dialect", "text"), BENIGN)
@pytest.mark.parametrize("reasoning", [None, False, True])
def test_answers_that_share_the_words_are_clean(
    dialect: str, text: str, reasoning: bool | None
) -> None:
    v = detect(text, "text", dialect, reasoning=reasoning)
    assert not v.leak, v.reason


def test_the_explanation_names_each_new_kind() -> None:
    detail = detect(LEAKS[0][1], "text", "deepseek").hits[0].detail
    assert "reasoning opener 'Okay, so' at 0" in detail
    assert "first-person step 'Let me start with" in detail and "wait 'Wait,'" in detail
    detail = detect(LEAKS[3][1], "text", "glm").hits[0].detail
    assert "the user, third person (zh) '用户现在需要'" in detail and "planning (zh)" in detail
    kinds = [c.kind for c in find_cues(LEAKS[5][1])]
    assert kinds[:2] == ["terse note", "scratch note"]


def test_a_question_answered_no_is_no_self_correction() -> None:
    faq = "Does it stream? No. Keep the request synchronous."
    assert _asked(faq, faq.index("?"))
    note = "The runner stays up for twenty minutes? No. Ensure the log is clean."
    assert not _asked(note, note.index("?"))
    assert next(c.kind for c in find_cues(note)) == "self-correction"
    assert all(c.kind != "self-correction" for c in find_cues(faq))


def test_documentation_register_is_no_zh_user_cue() -> None:
    assert not [c for c in find_cues("当用户问到退款时，先确认订单号。") if "zh" in c.kind]
    assert [c.kind for c in find_cues("用户问到退款。")] == ["the user, third person (zh)"]


def test_a_reasoning_part_raises_the_bar() -> None:
    # (one paragraph: with a blank line and the answer after it, the note paragraph is a third
    # cue, and three meet the raised bar too)
    text = "The user is asking about tabs. Let me write it. Use tabs."
    assert detect(text, "text", "glm", reasoning=None).leak
    # the bar is two higher, one less for a plan of the model's next step ("Let me write it")
    assert detect(text, "text", "glm", reasoning=True).leak
    told = "The user is asking about tabs. I set them to four spaces. Use tabs."
    assert not detect(told, "text", "glm", reasoning=True).leak


def test_with_a_reasoning_part_a_report_of_done_steps_passes_and_a_plan_trips() -> None:
    report = (
        "The user wants me to schedule a meeting with the design team next Tuesday. I checked"
        " everyone's calendars, found a free slot at 3 pm, and sent the invite."
    )
    refused = (
        "The user asked me for the Wi-Fi password. I cannot share it in chat per policy, so I"
        " pointed them to the IT portal."
    )
    plan = (
        "The user asked me to rename the branch and push it. I need to check whether the remote"
        " already has a branch with that name. Let me run git ls-remote first and then"
    )
    for dialect in ("chatml", "harmony", "deepseek"):
        assert not detect(report, "text", dialect, reasoning=True).leak
        assert not detect(refused, "text", dialect, reasoning=True).leak
        assert detect(plan, "text", dialect, reasoning=True).leak


def _chunks(pieces: list[str]) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    return [*(chunk({"content": p}) for p in pieces), chunk({}, "stop")]


def _delivered(items: list[Any]) -> str:
    return "".join(
        c["delta"].get("content") or "" for item in items for c in item["choices"] if "delta" in c
    )


@pytest.mark.parametrize(("dialect", "text"), [LEAKS[0], LEAKS[3], LEAKS[5], BENIGN[0], BENIGN[5]])
def test_streams_decide_as_detect_at_every_split(dialect: str, text: str) -> None:
    whole = detect(text, "text", dialect)
    for i in range(1, len(text), 4):
        stream = guard_stream(_chunks([text[:i], text[i:]]), on_leak="truncate", dialect=dialect)
        out = _delivered(list(stream))
        found = next(v for v in stream.verdicts if v.part == "text")
        assert found.leak == whole.leak and found.signals == whole.signals, i
        assert out == (text[: whole.cut] if whole.leak else text), i


@pytest.mark.parametrize(
    "text",
    [
        "The user uploaded a receipt and wants the total. I need to find the line that says"
        " total, not subtotal. Subtotal is 38.20, tax 3.90, so total 42.10.",
        "The user pasted a long stack trace from the worker and asks why it fails. I need to"
        " find the failing line first.",
    ],
)
def test_what_the_user_did_then_wants_is_decided_alike_at_every_split(text: str) -> None:
    # review 52b: a word boundary at a stream's end let the partial match give up
    assert detect(text, dialect="chatml").leak
    assert_every_split(text, "text", "chatml", never_past_cut=True)


def test_needles_skip_only_kinds_a_text_cannot_hold() -> None:
    """The per-kind substring tests (and the CJK test) leave every cue of every text in the
    tuning and held-apart corpora and of this file where the full search finds it."""
    from guard.evaluation import CORPUS_DIR, load_cases, set_dir

    texts = [t for _, t in LEAKS + BENIGN]
    for folder in (CORPUS_DIR, set_dir("heldout")):
        cases, _ = load_cases([folder])
        texts += [case.text for _, case in cases]
    assert len(texts) > 600
    for text in texts:
        assert find_cues(text) == find_cues(text, needles=False), text[:80]
