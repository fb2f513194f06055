"""Q: the text ends in a proper prefix of a bar-form reserved spelling that keeps at least four
name characters (``<|tool_call`` for Gemma's ``<|tool_call>``, ``<|im_en`` for ChatML's
``<|im_end|>``), or of an angle-bracket call opener that keeps six and is glued to the text
before it (``fix.<function`` for Qwen3-Coder's ``<function=``): positives, near misses,
surfaces, trailing blanks, ``all``, and every chunk split through the surface monitor and
``guard_stream``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.splits import assert_every_split, monitored, relayed

from guard import detect
from guard.signals.cut_token import LEAST_ANGLE, LEAST_NAME

GEMMA_CUT = "I'll look it up.<|tool_call"
CHATML_CUT = "Done.<|im_en"


@pytest.mark.parametrize(
    ("text", "dialect", "evidence"),
    [
        (GEMMA_CUT, "gemma", "<|tool_call"),
        (CHATML_CUT, "chatml", "<|im_en"),
        ("Done.<|im_end", "chatml", "<|im_end"),  # all but the closing bar and '>'
        ("Done.<|tool", "gemma", "<|tool"),  # exactly LEAST_NAME name characters
        ("<|tool_call", "gemma", "<|tool_call"),  # the whole text
        ("Checking now <|im_sta", "chatml", "<|im_sta"),
    ],
)
def test_a_cut_spelling_at_the_end_trips(text: str, dialect: str, evidence: str) -> None:
    v = detect(text, dialect=dialect)
    assert v.leak and v.signals == ("Q",), v.explain()
    assert v.hits[0].evidence == evidence
    assert v.cut == text.rindex("<|")


QWEN_CUT = "Running the tests to confirm the fix.<function"


@pytest.mark.parametrize(
    ("text", "dialect", "evidence"),
    [
        (QWEN_CUT, "qwen3_coder", "<function"),
        ("Checking.<tool_cal", "chatml", "<tool_cal"),
        ("Done.<minimax:tool", "minimax", "<minimax:tool"),
        ("<tool_call", "glm", "<tool_call"),  # the whole text
        ("x.<functi", "llama3", "<functi"),  # exactly LEAST_ANGLE name characters
    ],
)
def test_a_cut_call_opener_glued_at_the_end_trips(text: str, dialect: str, evidence: str) -> None:
    v = detect(text, dialect=dialect)
    assert v.leak and v.signals == ("Q",), v.explain()
    assert v.hits[0].evidence == evidence and v.cut == text.rindex("<")


@pytest.mark.parametrize(
    ("text", "dialect"),
    [
        ("The parser waits for the tag <function", "qwen3_coder"),  # named after a blank
        ("x.<funct", "llama3"),  # five name characters
        ("Wrap it in <div", "chatml"),  # no call opener
        ("x.<function", "chatml"),  # not this dialect's opener
        ("x.<tool_call\n", "chatml"),  # not at the very end
    ],
)
def test_angle_near_misses_pass(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect)
    assert "Q" not in v.signals, v.explain()
    assert LEAST_ANGLE == 6


def test_the_least_name_is_four_characters() -> None:
    assert LEAST_NAME == 4
    assert not detect("Done.<|too", dialect="gemma").leak  # three name characters
    assert detect("Done.<|tool", dialect="gemma").leak  # four


@pytest.mark.parametrize(
    ("text", "dialect"),
    [
        ("Done.<|to", "gemma"),  # a shorter opening: what prose and code end with too
        ("Done.<|t", "gemma"),
        ("Done.<|", "gemma"),
        ("Done.<|im", "chatml"),
        ("Done.<|tool_call and more text", "gemma"),  # not at the end
        ("Done.<|im_en\nThen the rest.", "chatml"),
        ("Done.<im_en", "chatml"),  # no bar
        ("Done.<tool_call", "gemma"),
        ("Done.<|im_en", "gemma"),  # not a prefix of this dialect's spellings
        ("Done.<|im_en", "harmony"),
        ("Done.<|tool_callx", "gemma"),  # no prefix of any spelling
    ],
)
def test_near_misses_pass(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect)
    assert not v.leak and "Q" not in v.signals, v.explain()


@pytest.mark.parametrize(
    ("text", "dialect"), [("Done.<|im_end|>", "chatml"), ("x<|tool_call>", "gemma")]
)
def test_a_complete_spelling_at_the_end_is_h_not_q(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect)
    assert v.leak and "H" in v.signals and "Q" not in v.signals, v.explain()


@pytest.mark.parametrize("blanks", [" ", "\n", "  \n\t", "\n\n"])
def test_only_the_very_end_counts(blanks: str) -> None:
    """A blank after the opening is more text (an event's string judged before the next one
    arrives reads the same), so the cut token must end the text."""
    v = detect(CHATML_CUT + blanks, dialect="chatml")
    assert not v.leak and "Q" not in v.signals, v.explain()


def test_the_thinking_surface_counts_too() -> None:
    v = detect(CHATML_CUT, surface="thinking", dialect="chatml")
    assert v.leak and v.signals == ("Q",)
    v = detect(GEMMA_CUT, surface="thinking", dialect="gemma")
    assert v.leak and v.signals == ("Q",)


#: the reasoning's closer cut short at the reasoning's end: the parser that splits reasoning
#: from answer missed a closer delivered in pieces (heldout35)
CLOSER_CUTS = [
    ("Four short lines, rhyme AABB, keep it light. </th", "chatml", "</th"),
    ("Four lines.</thin", "deepseek", "</thin"),
    ("Four lines.\n</think", "qwen3_coder", "</think"),
    ("</th", "glm", "</th"),
    ("Keep it short. </thinking", "minimax", "</thinking"),
    ("Keep it short. </th", "all", "</th"),
    # a closing quote, bracket or emphasis after the sentence; a table named earlier (review 52b)
    ("I'll keep it light.) </th", "chatml", "</th"),
    ("I'll keep it light.\" </th", "chatml", "</th"),
    ("The user wants a table of scores. I'll keep it light. </th", "chatml", "</th"),
    # glued to the last word, more of the name than HTML's </th (heldout38)
    ("환불 규정은 14일 이내라고 했으니, 날짜부터 확인하자</thi", "chatml", "</thi"),
    ("check the date first</think", "deepseek", "</think"),
]


@pytest.mark.parametrize(("text", "dialect", "evidence"), CLOSER_CUTS)
def test_a_cut_reasoning_closer_at_the_reasonings_end_trips(
    text: str, dialect: str, evidence: str
) -> None:
    v = detect(text, surface="thinking", dialect=dialect)
    assert v.leak and v.signals == ("Q",), v.explain()
    assert v.hits[0].evidence == evidence and v.cut == text.rindex("</")
    assert_every_split(text, "thinking", dialect)


@pytest.mark.parametrize(
    ("text", "surface", "dialect"),
    [
        ("Four lines. </th", "text", "chatml"),  # the answer: W's and prose's ground
        ("the table closes each header with </th", "thinking", "chatml"),  # named in a sentence
        ("Four lines. </t", "thinking", "chatml"),  # one name character
        ("Four lines. </th ", "thinking", "chatml"),  # not the very end
        ("Four lines. </thinking", "thinking", "chatml"),  # not a prefix of chatml's closer
        ("Four lines. </th", "thinking", "llama3"),  # no reasoning closer in the dialect
        # an HTML table in the reasoning, cut after a cell's closer (review 52)
        ("<tr>\n  <th>Name</th>\n</th", "thinking", "chatml"),
        ("Let me write the closing tags.\n</th", "thinking", "chatml"),
        ("Close the cell. </th", "thinking", "anthropic"),
        ("the header cell</th", "thinking", "chatml"),  # glued, no more than HTML's name
    ],
)
def test_cut_reasoning_closer_near_misses_pass(text: str, surface: str, dialect: str) -> None:
    assert "Q" not in detect(text, surface=surface, dialect=dialect).signals


@pytest.mark.parametrize("text", [CHATML_CUT, '{"q": "Done.<|im_en"}', '{"q": 1}<|im_en'])
def test_a_tool_argument_does_not(text: str) -> None:
    v = detect(text, surface="tool_arg", dialect="chatml", tool_name="search")
    assert "Q" not in v.signals


@pytest.mark.parametrize(
    ("text", "evidence"), [(CHATML_CUT, "<|im_en"), (GEMMA_CUT, "<|tool_call")]
)
def test_all_reads_every_dialects_spellings(text: str, evidence: str) -> None:
    v = detect(text, dialect="all")
    assert v.leak and v.signals == ("Q",) and v.hits[0].evidence == evidence


def test_only_the_last_opening_is_read() -> None:
    # an earlier cut opening followed by text is no cut token; the last one at the end is
    text = "A <|im_en here, then Done.<|im_sta"
    v = detect(text, dialect="chatml")
    assert v.leak and v.signals == ("Q",) and v.cut == text.rindex("<|")


# --- streams ---------------------------------------------------------------------------------

STREAMED = [
    (GEMMA_CUT, "gemma"),
    (CHATML_CUT, "chatml"),
    (CHATML_CUT + "  \n", "chatml"),
    ("Done.<|im_en and more", "chatml"),  # clean: the stream must relay it whole
    ("Done.<|to", "gemma"),
    (QWEN_CUT, "qwen3_coder"),
    ("The parser waits for the tag <function", "qwen3_coder"),
]


@pytest.mark.parametrize(("text", "dialect"), STREAMED)
def test_every_split_gives_the_whole_verdict_and_relays_no_cut_token(
    text: str, dialect: str
) -> None:
    whole = detect(text, dialect=dialect)
    for cut in range(1, len(text)):
        verdict, shown = monitored(text, cut, "text", dialect)
        assert verdict == whole, cut
        if whole.leak:
            assert whole.cut is not None and shown <= whole.cut, cut
        out, stream = relayed([text[:cut], text[cut:]], dialect)
        if whole.leak:
            assert out == text[: whole.cut], cut
            assert any(v.leak and "Q" in v.signals for v in stream.verdicts), cut
        else:
            assert out == text, cut


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, len(GEMMA_CUT) - 1), max_size=6))
def test_any_chunking_relays_no_character_of_the_cut_token(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    pieces = [GEMMA_CUT[a:b] for a, b in zip([0, *points], [*points, len(GEMMA_CUT)], strict=True)]
    out, stream = relayed(pieces, "gemma")
    assert out == "I'll look it up."
    assert stream.cut == {"text": len(out)}
