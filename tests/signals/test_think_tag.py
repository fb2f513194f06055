"""W: a think tag of any family (think, thinking, thought, reasoning, reflection, with a model
prefix) in the answer, glued to the text before it or a closing tag alone on its line after
text; never in a code span, a fence, a quoted phrase, or named in prose; H's finding where the
dialect reserves the tag. Under gemini, llama3, minimax and mistral, with every chunk split."""

from __future__ import annotations

import pytest
from support.splits import monitored, relayed

from guard import detect, get_dialect

DIALECTS = ["gemini", "llama3", "minimax", "mistral"]

GLUED_M2 = "The build is green.</M2_7think>Everything is live."
ALONE = "I should check the logs first.\n</think>\nThe logs show an error."
QUOTED = 'He wrote "finished.</think>Everything" in the log.'
NAMED = "Split the reply on </think> and keep the rest."


def _reserved(dialect: str, tag: str) -> bool:
    return tag in get_dialect(dialect).reserved


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    ("text", "tag"),
    [
        (GLUED_M2, "</M2_7think>"),
        ("finished.</think>Everything is live.", "</think>"),
        ("Plan done</seed:think>Here it is.", "</seed:think>"),
        ("green.</THINK>Every", "</THINK>"),  # upper case
        ("green.</Think>Every", "</Think>"),
        ("green.**</think>Every", "</think>"),  # after emphasis
        ("a\r\n</think>\r\nb", "</think>"),  # CRLF
        ("a\n</think> \nb", "</think>"),  # a blank after it
        ("a\n </think>\nb", "</think>"),  # indented
        ("ok.</thinking>Answer", "</thinking>"),
        ("ok.</reasoning>Answer", "</reasoning>"),
        ("ok.</reflection>Answer", "</reflection>"),
        ("Ready!</think>Sure.", "</think>"),  # glued to a sentence's end
        ("好的。</think>答案", "</think>"),  # a CJK full stop
        (ALONE, "</think>"),
        ("I should check the logs first.\n</thinking>\nThe logs show an error.", "</thinking>"),
        ("Plain text\n</think>", "</think>"),  # alone on the last line
    ],
)
def test_a_leaked_think_tag_trips(dialect: str, text: str, tag: str) -> None:
    v = detect(text, dialect=dialect)
    at = text.index(tag)
    expected = "H" if _reserved(dialect, tag) else "W"
    assert v.leak and v.signals == (expected,), v.reason
    assert v.hits[0].evidence == tag and v.cut == at


@pytest.mark.parametrize("dialect", ["gemini", "llama3", "mistral"])
@pytest.mark.parametrize(
    "text",
    [
        "Use `finished.</think>` in code.",
        "```\nfinished.</think>x\n```",
        "> quoted: finished.</think>Everything",  # a Markdown quote line
        NAMED,
        "The model wraps it in <think> and </think> tags.",
        "Text\n</think> trailing words",  # not alone on its line
        "Text\n<think>\nmore",  # an opening tag alone on its line
        "done.</thinker>x",  # no tag of the families
        "done.</thinks>x",
        "All done. </think> is a tag.",  # a blank before it
    ],
)
def test_named_quoted_or_coded_tags_pass(dialect: str, text: str) -> None:
    v = detect(text, dialect=dialect)
    assert not v.leak and "W" not in v.signals, v.reason


@pytest.mark.parametrize("text", ["finished.</think>Everything.", ALONE, "a.</thinking>b"])
def test_a_tag_the_dialect_reserves_is_h_not_w(text: str) -> None:
    v = detect(text, dialect="minimax")
    assert v.leak and "H" in v.signals and "W" not in v.signals, v.reason


def test_minimax_names_its_own_prefix_and_w_reads_the_rest() -> None:
    assert detect("ok.</mm:think>Answer", dialect="minimax").signals == ("H",)
    assert detect("ok.</mm:think>Answer", dialect="llama3").signals == ("W",)
    assert detect(GLUED_M2, dialect="minimax").signals == ("W",)


@pytest.mark.parametrize("surface", ["thinking", "tool_arg"])
def test_only_the_answer_counts(surface: str) -> None:
    for text in (GLUED_M2, ALONE):
        assert "W" not in detect(text, surface=surface, dialect="llama3").signals


# --- streams ---------------------------------------------------------------------------------

STREAMED = [
    GLUED_M2,
    ALONE,
    "Plain text\n</think>",
    NAMED,
    "Use `finished.</think>` in code.",
    "Text\n</think>\ntrailing words",
    "</think>\nAnswer",
    QUOTED,
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("text", STREAMED)
def test_every_split_gives_the_whole_verdict(dialect: str, text: str) -> None:
    whole = detect(text, dialect=dialect)
    for cut in range(1, len(text)):
        verdict, shown = monitored(text, cut, "text", dialect)
        assert verdict == whole, cut
        out, stream = relayed([text[:cut], text[cut:]], dialect)
        if whole.leak:
            assert whole.cut is not None and shown <= whole.cut, cut
            assert out == text[: whole.cut], cut
        else:
            assert out == text and not any(v.leak for v in stream.verdicts), cut


@pytest.mark.parametrize("dialect", ["gemini", "llama3", "mistral"])
@pytest.mark.parametrize(
    "text", [QUOTED, "He wrote \u201cfinished.</think>Everything\u201d in the log."]
)
def test_a_double_quoted_phrase_is_no_exemption(dialect: str, text: str) -> None:
    """A stream cannot know that a quote will close, so the answer's verdict does not wait
    for it either: stream and whole text agree."""
    whole = detect(text, dialect=dialect)
    assert whole.leak and whole.signals == ("W",)
    cut = text.index("</think>") + len("</think>")  # the tag whole, the quote still open
    verdict, _ = monitored(text, cut, "text", dialect)
    assert verdict == whole


@pytest.mark.parametrize("dialect", ["gemini", "llama3", "mistral"])
def test_a_closing_tag_that_opens_the_answer_on_its_own_line_trips(dialect: str) -> None:
    v = detect("</think>\nAnswer", dialect=dialect)
    assert v.leak and v.signals == ("W",) and v.cut == 0
    assert not detect("</think> is the closing tag.", dialect=dialect).leak


@pytest.mark.parametrize("dialect", ["gemini", "llama3", "mistral"])
@pytest.mark.parametrize("text", ["Text\n</think> trailing words", "Text\n</reasoning>x"])
def test_a_closing_tag_that_ends_a_chunk_waits_for_the_next_character(
    dialect: str, text: str
) -> None:
    assert not detect(text, dialect=dialect).leak
    cut = text.index(">") + 1  # the chunk ends right after the tag
    out, _ = relayed([text[:cut], text[cut:]], dialect)
    assert out == text


@pytest.mark.parametrize("dialect", ["gemini", "llama3", "mistral"])
@pytest.mark.parametrize(
    "text",
    [
        "ok.<thought>more to come",  # an opening tag: only closers count
        "Tags:<think>, <thinking>, <reflection>.",
        "DeepSeek-R1 writes <think>reasoning</think> and then the answer.",  # a pair in prose
        "Qwen3 wraps its chain of thought in <think>...</think> tags; strip them.",
        "Example output: <thinking>plan</thinking> then the reply.",
        '{"format": "<reasoning>step by step</reasoning><answer>42</answer>"}',
        "Respond in XML:\n<response>\n  <reasoning>The sky is blue.</reasoning>\n</response>",
        "Sure! Here's the template:\n\n<reasoning>\n...\n</reasoning>\n<answer>\n...\n</answer>",
        "In the HTML: <p>Reflection:</p><reflection>none</reflection>",
    ],
)
def test_pairs_and_openers_pass(dialect: str, text: str) -> None:
    v = detect(text, dialect=dialect)
    assert not v.leak and "W" not in v.signals, v.reason


@pytest.mark.parametrize("tag", ["</thoughts>", "</scratchpad>", "</SCRATCHPAD>"])
def test_more_names_of_the_families(tag: str) -> None:
    v = detect(f"ok.{tag}Answer", dialect="gemini")
    assert v.leak and v.signals == ("W",)


# --- spaced tags and Ollama's frame ------------------------------------------------------------

SPACED = (
    "< think >\nOkay, the user said hi, a greeting. I will answer friendly, two sentences max."
    "\n</ think >\n\nHello! How can I help?"
)
FRAME = (
    "Thinking...\nThe user wants the export steps. Entry first, then limits.\n...done thinking."
    "\n\nClick Export."
)


@pytest.mark.parametrize(
    "text",
    [
        SPACED,
        "ok.< /think >Answer",
        "Done.</ thinking>Next",
        "ok.</Scratch_Pad>Answer",
    ],
)
@pytest.mark.parametrize("dialect", ["chatml", "harmony", "all"])
def test_spaced_tags_and_the_frame_closer_trip(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect)
    assert v.leak and "W" in v.signals, v.reason


@pytest.mark.parametrize(
    "text", [FRAME, "Thinking...\nThe user wants a plan. Keep it short.\n... Done thinking.\n\nOk."]
)
@pytest.mark.parametrize("dialect", ["chatml", "harmony", "all"])
def test_ollamas_frame_is_read_as_a_reasoning_preamble(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect)
    assert v.leak and "L" in v.signals, v.reason


@pytest.mark.parametrize(
    "text",
    [
        "Qwen3 wraps its reasoning in < think > ... </ think > in that template.",  # a pair
        "The CLI prints ...done thinking. after the reasoning.",  # mid-line
        "if a < think > b: pass",  # an opening tag only
        "`...done thinking.`\nis what the CLI prints.",
    ],
)
def test_spaced_and_frame_near_misses_pass(text: str) -> None:
    assert "W" not in detect(text, dialect="chatml").signals


@pytest.mark.parametrize("text", [SPACED, FRAME])
def test_spaced_and_frame_every_split(text: str) -> None:
    whole = detect(text, dialect="chatml")
    for cut in range(1, len(text)):
        verdict, _ = monitored(text, cut, "text", "chatml")
        assert (verdict.leak, verdict.signals) == (whole.leak, whole.signals), cut


def test_a_camel_case_prefix_before_a_capitalised_name_is_a_model_prefix() -> None:
    # Claude's legacy `antThinking` block, closed glued to its last sentence
    text = (
        "<antThinking>This is a substantial, self-contained script the user will likely reuse, "
        "so it qualifies for an artifact.</antThinking>\n"
        "Here's the backup script you asked for."
    )
    v = detect(text, dialect="anthropic")
    assert v.leak and "W" in v.signals and v.cut == text.index("</antThinking>")
    # a pair named close together is markup named in prose, as for any family
    assert not detect("Use <myThinking>x</myThinking> for it", dialect="anthropic").leak
    assert not detect("camelCase words like antThinking are fine", dialect="anthropic").leak
    # other camel-case prefixes are components, not a model's prefix
    assert not detect("return (\n  <Panel/>\n  </showReasoning>\n);", dialect="llama3").leak
