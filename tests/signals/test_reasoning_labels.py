"""Reasoning a template frames with labels (Granite's "Here is my thought process:" ...
"Here is my response:"), and Chinese reasoning that plans its own reply ("我先看看",
"我需要用一句话概括") after a strong cue. Positives and near misses."""

from __future__ import annotations

import pytest
from support.splits import monitored

from guard import detect

GRANITE = (
    "Here is my thought process:\n\nThe task is to count the letter r in 'strawberry'. I will go"
    ' character by character.\n\nHere is my response:\n\nThere are **3** r\'s in "strawberry".'
)
GROK = (
    "Thinking about the user's request\nThey want a four-line poem about autumn, rhyming.\n\n"
    "Leaves let go of summer's thread,\nGold and amber overhead."
)
TERSE = (
    'We need answer: name of Sun in Latin. The Latin word is "Sol". Provide short explanation:'
    " Sol was also the Roman sun god. Answer: Sol."
)
SO_ANSWER = (
    'We need to answer: "What is the Sun called in Latin?" The Latin word is "sol". So answer:'
    " Sol. Also mention the god Sol."
)
DICTATED = (
    "Okay, the user dictated a sentence and wants it cleaned up. I should fix punctuation and"
    " drop the filler words.\n\nPlease send the quarterly report to Anna by Friday."
)
FIRST_I = (
    "Okay so first I look at the three files they linked, then compare the retry logic, probably"
    " the bug is in the backoff calc, need to confirm before saying anything."
)
ITALIC = (
    'Reasoning:\n_Rick said "Morning" in Slack. Simple greeting._\n_I should greet back and see'
    " what he needs._\nMorning! What is on the agenda today?"
)
ZH_LABEL = (
    "思考：用户想知道报销流程，我需要先列出所需材料，再说明审批步骤。\n\n"
    "回答：报销需要提交发票原件。"
)
CLIPPED = (
    "Need act verify each sample exists in library. update via API. maybe use read skill? none."
)
NOTE = "Need inspect failing test first. Then patch parser, rerun."
MIMO = (
    "嗯，用户让我分析这个仓库。我先看看 README，它好像是一个命令行工具，用来同步 dotfiles。"
    "我需要用一句话概括。\n\n一个用于在多台机器之间同步 dotfiles 的命令行工具。"
)


@pytest.mark.parametrize("dialect", ["chatml", "all"])
def test_a_labelled_thought_process_trips(dialect: str) -> None:
    v = detect(GRANITE, dialect=dialect)
    assert v.leak and "L" in v.signals, v.reason


@pytest.mark.parametrize("dialect", ["qwen3_coder", "chatml", "all"])
def test_chinese_reasoning_that_plans_its_reply_trips(dialect: str) -> None:
    v = detect(MIMO, dialect=dialect)
    assert v.leak, v.reason


@pytest.mark.parametrize("reasoning", [None, True])
@pytest.mark.parametrize("dialect", ["chatml", "harmony", "all"])
def test_an_interfaces_reasoning_header_trips_alone(dialect: str, reasoning: bool | None) -> None:
    v = detect(GROK, dialect=dialect, reasoning=reasoning)
    assert v.leak and "L" in v.signals, v.reason
    assert "reasoning header, interface" in v.reason


@pytest.mark.parametrize("reasoning", [None, True])
@pytest.mark.parametrize("text", [NOTE, "Need verify healthy.", "Need fix line quoting properly."])
def test_an_answer_that_is_one_short_note_trips(text: str, reasoning: bool | None) -> None:
    v = detect(text, dialect="harmony", reasoning=reasoning)
    assert v.leak and "the answer a note" in v.reason, v.reason


@pytest.mark.parametrize(
    "text",
    [
        "Need help? Call us at 555-0100.",  # a question
        "Need more time.",  # a quantity, not a bare step
        # a noun, or a verb with an article, a pronoun or a preposition after it (review 48b)
        "Need sudo privileges to run this.",
        "Need admin rights.",
        "Need restart after install.",
        "Need check your spam folder.",
        "Need backup before upgrading. Then run the migration.",
        "Need to reset your password? Open Settings.",
        "Need fix line quoting properly.\n\nHere is the corrected script:\n\n    echo hi",
    ],
)
def test_a_short_answer_that_opens_with_need_passes(text: str) -> None:
    v = detect(text, dialect="harmony")
    assert "the answer a note" not in v.reason, v.reason


@pytest.mark.parametrize("dialect", ["harmony", "all"])
def test_clipped_notes_trip(dialect: str) -> None:
    v = detect(CLIPPED, dialect=dialect)
    assert v.leak and "scratch note 'maybe use'" in v.reason, v.reason


@pytest.mark.parametrize(
    "text",
    [
        "It works on my side. maybe add a test later, if you have time?",  # one cue
        "We need actual numbers before we decide.",  # not the bare verb
        "Deadline is Friday. Need act fast on the visa paperwork. Ensure your passport is valid.",
    ],
)
def test_one_clipped_cue_passes(text: str) -> None:
    v = detect(text, dialect="harmony")
    assert not v.leak, v.reason


@pytest.mark.parametrize("dialect", ["anthropic", "chatml", "all"])
def test_a_label_then_reasoning_in_italics_trips(dialect: str) -> None:
    v = detect(ITALIC, dialect=dialect)
    assert v.leak and "L" in v.signals, v.reason


@pytest.mark.parametrize(
    "text",
    [
        "Reasoning:\n_The cache is cold on the first call._\nSo the first request is slow.",
        "Reasoning: the read_file tool returns bytes, so I should_not decode twice.",
        "思考：为什么天空是蓝色的？请结合光的散射来回答。",  # a textbook's exercise
        # a bare 思考：/推理： label opens product and support writing as often (review 48):
        # only 思考过程：/推理过程： opens reasoning
        ZH_LABEL,
        "推理：用户提到登录失败，首先需要确认密码是否过期，然后检查账号是否被锁定。",
    ],
)
def test_a_label_with_one_cue_passes(text: str) -> None:
    v = detect(text, dialect="chatml")
    assert not v.leak, v.reason


@pytest.mark.parametrize("dialect", ["harmony", "chatml", "all"])
def test_a_filler_then_a_first_step_and_a_run_on_note_trip(dialect: str) -> None:
    v = detect(FIRST_I, dialect=dialect)
    assert v.leak and "L" in v.signals, v.reason
    assert "terse note 'need to confirm'" in v.reason


@pytest.mark.parametrize(
    "text",
    [
        "Okay so first I want to thank you for the logs; the bug is in the backoff.",  # one cue
        "Sounds good, need to confirm the time with you later.",  # one cue, not the opening
        "Okay so first I look at the files, and you need to confirm the fix.",  # a subject
    ],
)
def test_one_cue_or_a_subject_passes(text: str) -> None:
    v = detect(text, dialect="harmony")
    assert not v.leak, v.reason


@pytest.mark.parametrize("dialect", ["chatml", "all"])
def test_a_filler_then_the_user_with_any_verb_opens_reasoning(dialect: str) -> None:
    v = detect(DICTATED, dialect=dialect)
    assert v.leak and "L" in v.signals, v.reason


@pytest.mark.parametrize(
    "text",
    [
        # review 48: the user with no verb in the past, or first I offering help
        "OK, the user should now be able to sign in. Ensure their role includes `read`.",
        "Right, the user you created has no sudo rights. Ensure you log in as root first.",
        "Alright, the user password is stored as a bcrypt hash. Let's write a helper:",
        "Hmm, the user count dropped after the release. Let me check: did signup break?",
        "Okay, the user created by the script has no home dir. Ensure you pass -m.",
        "OK, first I'd check your PATH. Ensure that `python3` resolves to the venv:",
        "OK, first I'll check your config. Let me look at line 12: the port is wrong.",
        "Okay, so first I recommend a backup. Ensure it finishes before the migration.",
        "Okay, the user account is ready. I should mention you can log in now.",
        "Okay, the user table has three columns. I should add an index.",
        "Okay, the user dictated it, and that is fine.",  # one cue
    ],
)
def test_a_filler_then_a_compound_noun_passes(text: str) -> None:
    v = detect(text, dialect="chatml")
    assert not v.leak, v.reason


@pytest.mark.parametrize("text", [TERSE, SO_ANSWER])
@pytest.mark.parametrize("dialect", ["harmony", "chatml", "all"])
def test_a_telegraphic_plan_of_the_reply_trips(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect)
    assert v.leak and "L" in v.signals, v.reason
    assert "the plan, telegraphic" in v.reason


@pytest.mark.parametrize(
    "text",
    [
        "We need answer keys for the quiz before Friday.",  # a noun after it
        # nouns English writes after "we need" (review 48)
        "We need compute before we train the 70B model. Keep it simple: rent 8xH100 first.",
        "We need output in JSON, so set `response_format`. Ensure the schema is valid.",
        "We need to answer the phone faster. So the answer is more staff.",  # English
        "We need answers from the vendor; so, answer their email first.",
        "The form asks: So answer: yes or no?",  # one cue alone
    ],
)
def test_plans_written_in_english_pass(text: str) -> None:
    v = detect(text, dialect="harmony")
    assert not v.leak, v.reason


@pytest.mark.parametrize(
    "text",
    [
        "Thinking about the user's request, I'd start with the billing page.",  # no line of its own
        "Notes:\nThinking about the user's request\nIt was for a refund.",  # not the first line
        "Thinking about the user's request\n",  # nothing after it
        "Thinking about the user's request flow, the login step comes first.",
    ],
)
def test_the_header_elsewhere_or_in_a_sentence_passes(text: str) -> None:
    v = detect(text, dialect="chatml", reasoning=True)
    assert not v.leak, v.reason


@pytest.mark.parametrize(
    "text",
    [
        "Here is my response:\n\nDear Ms. Lee, thank you for the offer.",  # a drafted letter
        "I read your draft. Here is my response:\n\nIt is good; tighten the intro.",
        "Here is my thought process for choosing a database, in short: reads dominate.",
        "我先看看代码，然后再告诉你结果。",  # an agent's progress note
        "我需要用一句话概括这个项目吗？可以：一个同步工具。",  # a question to the reader
    ],
)
def test_near_misses_pass(text: str) -> None:
    v = detect(text, dialect="chatml")
    assert not v.leak, v.reason


@pytest.mark.parametrize(
    "text",
    [GRANITE, MIMO, GROK, TERSE, SO_ANSWER, DICTATED, FIRST_I, ITALIC, CLIPPED, NOTE],
)
def test_every_split_gives_the_whole_verdict(text: str) -> None:
    whole = detect(text, dialect="chatml")
    for cut in range(1, len(text), 3):
        verdict, _ = monitored(text, cut, "text", "chatml")
        assert (verdict.leak, verdict.signals) == (whole.leak, whole.signals), cut
