"""Signals of issue 11 (V, J, U, A, E; K's glued and lone words; N's charset; C's cut), the
normalised view's Unicode table, and the context (``tools=``, ``reasoning=``): positive,
near-miss, lookalike and chunk-split cases for each rule."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard import detect, detect_message
from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY, SurfaceMonitor
from guard.models import Surface, TextView
from guard.models._fold_table import FOLD, IGNORABLE

TAG = "".join(chr(0xE0000 + ord(c)) for c in "x")
VOICE = (
    "The user asks for the capital of Australia. We need to answer concisely."
    " So answer: it is Canberra.\n\nCanberra."
)


def streamed(text: str, cuts: list[int], surface: str = "text", **context: Any) -> Any:
    """The monitor's final verdict and release when ``text`` arrives split at ``cuts``."""
    monitor = SurfaceMonitor(Surface(surface), get_dialect("harmony"), DEFAULT_POLICY, **context)
    points = sorted({c for c in cuts if 0 < c < len(text)})
    released = 0
    for a, b in zip([0, *points], [*points, len(text)], strict=True):
        monitor.feed(text[a:b])
        assert monitor.release >= released  # never takes back what it showed
        released = monitor.release
        if monitor.tripped is not None:
            assert released <= monitor.tripped.cut
    verdict = monitor.finish()
    return verdict, monitor.release


def every_split(text: str) -> list[list[int]]:
    return [[i] for i in range(1, len(text))] + [list(range(1, len(text)))]


# --- V: reasoning voice -----------------------------------------------------------------------


def test_v_reasoning_voice_without_reasoning_part_is_a_leak() -> None:
    v = detect("The user is asking for the time. Answer briefly: noon.", reasoning=False)
    assert v.leak and v.signals == ("V",) and v.cut == 0


def test_v_strong_voice_trips_without_context() -> None:
    assert detect(VOICE).signals == ("V",)


def test_v_near_miss_documentation_prose_and_natural_we() -> None:
    for text in (
        "The user can configure the retry limit. We need to restart the service afterwards.",
        "When the user asks a question, we answer with citations.",
        "We need to install the package first, then we can run it.",
        "> The user asks for X. We need to answer. So answer: Y.",
        "```\nThe user asks for X. We need to answer. So answer: Y.\n```",
    ):
        assert not detect(text, reasoning=False).leak, text


def test_v_reasoning_part_present_needs_the_strong_voice() -> None:
    text = "The user asked for a summary. We should keep it short."
    assert detect(text, reasoning=False).leak
    assert not detect(text, reasoning=True).leak


def test_v_lookalike_cyrillic_letters_in_the_voice() -> None:
    assert detect("The usеr asks for X. Wе need to answer. So answer: Y.").leak


@pytest.mark.parametrize("cuts", every_split(VOICE[:60]))
def test_v_chunk_split_same_verdict_and_cut(cuts: list[int]) -> None:
    whole = detect(VOICE)
    verdict, release = streamed(VOICE, cuts)
    assert verdict == whole and release == whole.cut


def test_v_detect_message_uses_the_reasoning_part() -> None:
    text = "The user is asking for the time. Answer briefly: noon."
    assert detect_message({"role": "assistant", "content": text})[0].leak
    with_reasoning = {"role": "assistant", "content": text, "reasoning_content": "Time question."}
    assert not detect_message(with_reasoning)[0].leak


# --- J: tool call as text ---------------------------------------------------------------------

CALL = '{"name": "read_file", "arguments": {"path": "a.txt"}}'


def test_j_tool_call_as_the_whole_text() -> None:
    v = detect(CALL, tools=["read_file"])
    assert v.signals == ("J",) and v.cut == 0
    # Llama 3's own call is bare JSON: there it counts with tools unknown
    assert detect(CALL, dialect="llama3").signals == ("J",)


@pytest.mark.parametrize("dialect", ["harmony", "chatml", "deepseek", "all"])
def test_j_bare_json_call_with_tools_unknown_is_no_evidence(dialect: str) -> None:
    # an example call the user asked for reads the same: a JSON call needs declared tools
    for text in (CALL, f"[{CALL}, {CALL}]", "Here is one:\n" + CALL):
        assert not detect(text, dialect=dialect).leak, text
    # the call markup around it still is evidence
    assert detect(f"<tool_call>{CALL}</tool_call>", dialect=dialect).leak


def test_j_prose_ending_in_a_hermes_call_cut_at_the_call() -> None:
    call = '{"name": "get_weather", "arguments": {"city": "Oslo"}}'
    text = f"Let me check.\n<tool_call>\n{call}\n</tool_call>"
    assert detect(text).cut == text.index("<tool_call>")


def test_j_declared_tools_decide() -> None:
    assert detect(CALL, tools=["read_file"]).leak
    assert not detect(CALL, tools=["write_file"]).leak
    definition = {"type": "function", "function": {"name": "read_file", "parameters": {}}}
    assert detect(CALL, tools=[definition]).leak


def test_j_near_miss_json_answers_and_calls_followed_by_prose() -> None:
    for text in (
        '{"name": "Alice", "age": 30}',
        '{"name": "build", "arguments": ["--release"]}',
        '{"name": "Bob", "arguments": "he argues"}',
        CALL + "\nThat is what the log shows.",
        "```json\n" + CALL + "\n```",
    ):
        assert "J" not in detect(text, tools=["read_file", "build", "Bob", "Alice"]).signals, text
        assert not detect(text, dialect="llama3").leak, text
    # with the tool declared, a call of it followed by prose is Y's finding (a call inside the
    # answer), and an answer that only shows data is not
    assert detect(CALL + "\nThat is what the log shows.", tools=["read_file"]).signals == ("Y",)
    for text in ('{"name": "Alice", "age": 30}', '{"name": "Bob", "arguments": "he argues"}'):
        assert not detect(text, tools=["read_file", "build", "Bob", "Alice"]).leak, text


def test_j_lookalike_fullwidth_braces_do_not_hide_the_call() -> None:
    assert detect(CALL.replace("{", "｛", 1), tools=["read_file"]).leak


@pytest.mark.parametrize("cuts", every_split("Sure.\n" + CALL))
def test_j_chunk_split_same_verdict_and_cut(cuts: list[int]) -> None:
    text = "Sure.\n" + CALL
    whole = detect(text, tools=["read_file"])
    verdict, release = streamed(text, cuts, tools=frozenset({"read_file"}))
    assert verdict == whole and release == whole.cut == 6


#: Claude's namespace prefix, built so that no prefixed tag appears literally in this file.
NS = "antml" + ":"
CLAUDE = (
    '<function_calls>\n<invoke name="Bash">\n<parameter name="command">ls -la</parameter>\n'
    "</invoke>\n</function_calls>"
)


@pytest.mark.parametrize(
    "call",
    [
        CLAUDE,
        CLAUDE.replace("</", "\0").replace("<", "<" + NS).replace("\0", "</" + NS),
        '<invoke name="Bash"><parameter name="command">ls</parameter></invoke>',
        '<function_calls><invoke name="Bash"></invoke>'
        '<invoke name="Read"></invoke></function_calls>',
    ],
)
def test_j_claude_style_xml_call_as_text(call: str) -> None:
    text = f"Let me look.\n{call}\n"
    for dialect in ("chatml", "kimi", "harmony"):
        v = detect(text, dialect=dialect)
        assert v.leak and "J" in v.signals and v.cut == text.index("<"), dialect
    assert detect(text, dialect="chatml", tools=["Bash"]).leak
    # a whole call naming a tool the request did not declare is a format's docs as often
    # (review 57: only a call cut short after its opener counts whatever it names)
    assert not detect(text, dialect="chatml", tools=["Other"]).leak


@pytest.mark.parametrize(
    "text",
    [
        'Use <invoke name="x"> elements to call tools, then wait for the result.',
        CLAUDE + "\nThat is the shape Claude used.",
        "```xml\n" + CLAUDE + "\n```",
        '<invoke name="Bash">ls</invoke>',  # text between the tags: no call shape
    ],
)
def test_j_near_miss_claude_style_xml(text: str) -> None:
    assert not detect(text, dialect="chatml").leak, text


@pytest.mark.parametrize("cuts", every_split("Sure.\n" + CLAUDE))
def test_j_claude_style_chunk_split_same_verdict_and_cut(cuts: list[int]) -> None:
    text = "Sure.\n" + CLAUDE
    whole = detect(text, tools=["Bash"])
    verdict, release = streamed(text, cuts, tools=frozenset({"Bash"}))
    assert verdict == whole and release == whole.cut == 6


# --- U: undeclared tool, N: charset -----------------------------------------------------------


def test_u_undeclared_tool_name_with_declared_tools() -> None:
    v = detect("get_weathr", "tool_name", tools=["get_weather"])
    assert v.signals == ("U",)
    assert not detect("get_weather", "tool_name", tools=["get_weather"]).leak
    # the Harmony recipient's namespace left on the name: the dispatcher knows no such tool
    assert detect("functions.get_weather", "tool_name", tools=["get_weather"]).signals == ("U",)
    assert not detect("get_weathr", "tool_name").leak  # unknown tools: U is silent


def test_u_lookalike_homoglyph_of_a_declared_tool() -> None:
    assert "U" in detect("verify_սser", "tool_name", tools=["verify_user"]).signals


def test_n_charset_accepts_identifier_letters_and_dollar() -> None:
    for name in ("$search", "búsqueda", "获取天气", "μέτρηση", "mcp__gh__issue"):
        assert not detect(name, "tool_name").leak, name
    for name in ("get weather", "<b>x</b>", "a\u200bb", "get_weather大发", "x🔍"):
        assert detect(name, "tool_name").signals == ("N",), name


# --- A: marker alone; K: glued and lone words; C: cut -----------------------------------------


def test_a_marker_alone_or_first_is_a_leak() -> None:
    for text in ("to=functions.get_weather", '  to=functions.x {"q": 1}', "to=functions.x" + TAG):
        v = detect(text)
        assert {"M", "A"} <= set(v.signals) and v.cut == text.index("to="), text
    assert not detect("set to=functions.x in the header").leak


def test_k_glued_role_word_and_lone_channel_word() -> None:
    assert detect("assistantSure, here it is.").signals == ("K",)
    assert detect("finalHello!").signals == ("K",)
    assert detect(" commentary \n").signals == ("K",)
    for text in (
        "Finally, done.",
        "final answer: 4",
        "analysis of variance",
        "assistant professor",
    ):
        assert not detect(text).leak, text


def test_k_lookalike_lone_word_with_invisible_characters() -> None:
    assert detect("comm\u200bentary").leak


@pytest.mark.parametrize("text", ["commentary", "final ", "assistantSure."])
def test_k_chunk_split_same_verdict_and_cut(text: str) -> None:
    whole = detect(text)
    for cuts in every_split(text):
        verdict, release = streamed(text, cuts)
        assert verdict == whole and release == whole.cut


LEAK = "Done.}]}analysis to=functions.edit code 大发官网"


def test_c_cut_starts_at_junk_glued_before_the_channel_word() -> None:
    assert detect(LEAK).cut == 5
    assert detect("Done. analysis to=functions.edit code 大发").cut == 6


@pytest.mark.parametrize("cuts", every_split(LEAK))
def test_c_chunk_split_same_cut(cuts: list[int]) -> None:
    verdict, release = streamed(LEAK, cuts)
    assert verdict == detect(LEAK) and release == 5


# --- E: junk inside a JSON string -------------------------------------------------------------


def test_e_collapse_inside_a_string_trips() -> None:
    patch = "+ x\n}]}analysis to=functions.apply_patch code 大发彩票 end"
    args = json.dumps({"patch": patch}, ensure_ascii=False)
    v = detect(args, "tool_arg", tool_name="apply_patch")
    assert v.leak and {"M", "C", "E"} <= set(v.signals)


def test_e_near_miss_legitimate_edits() -> None:
    for content in (
        "docs: `<|channel|>commentary to=functions.get_weather`",
        "the model wrote analysis to=functions.edit code and stopped",
        "// }]}analysis to=functions.edit code 大发快三",
    ):
        args = json.dumps({"path": "x", "content": content}, ensure_ascii=False)
        assert not detect(args, "tool_arg", tool_name="edit").leak, content


def test_e_lookalike_fullwidth_marker_inside_the_string() -> None:
    content = "x}]}analysis ｔｏ=functions.edit code\nto=functions.edit code"
    args = json.dumps({"c": content}, ensure_ascii=False)
    assert detect(args, "tool_arg", tool_name="edit").leak


# --- the normalised view's Unicode table ------------------------------------------------------


def test_fold_table_is_one_to_one_and_never_folds_ascii() -> None:
    assert all(len(t) == 1 and " " < t <= "~" for t in FOLD.values())
    assert all(cp > 0x7F for cp in FOLD)
    ignorable = {cp for a, b in IGNORABLE for cp in range(a, b + 1)}
    assert not ignorable & set(FOLD)


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(
            [chr(cp) for cp in sorted(FOLD)[:400]] + list("ab<|>\u200b\U000e0041\ufe0f")
        )
    )
)
def test_fold_table_one_to_one_offsets_map_back(text: str) -> None:
    view = TextView(text)
    ignorable = {cp for a, b in IGNORABLE for cp in range(a, b + 1)}
    kept = [ch for ch in text if ord(ch) not in ignorable]
    assert len(view.norm) == len(kept)
    for n, ch in enumerate(view.norm):
        assert FOLD.get(ord(text[view.to_original(n)]), text[view.to_original(n)]) == ch


def test_default_ignorables_are_invisible() -> None:
    for ch in ("\U000e0041", "\ufe0f", "\U000e0100", "\u180e", "\u3164", "\u2062"):
        assert TextView(f"a{ch}b").norm == "ab", hex(ord(ch))


def test_mathematical_letters_and_bar_lookalikes_fold() -> None:
    assert TextView("𝚝𝚘=𝚏𝚞𝚗𝚌").norm == "to=func"
    assert detect("<\u2223start\u2223>assistant").leak


# --- tools= never makes detect raise ----------------------------------------------------------

_TOOLS = st.one_of(
    st.none(),
    st.lists(st.text(max_size=12), max_size=4),
    st.lists(
        st.fixed_dictionaries(
            {
                "type": st.just("function"),
                "function": st.fixed_dictionaries({"name": st.text(max_size=12)}),
            }
        ),
        max_size=3,
    ),
)


_PIECES = [
    *'{}[]":, nameargumts<>|=._/\nxaTheusrW',
    "to=functions.",
    '"name": ',
    '"arguments": ',
    "<tool_call>",
    "The user asks",
    "We need to answer",
    "commentary",
    "\u200b",
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=40).map("".join),
    st.sampled_from([s.value for s in Surface]),
    _TOOLS,
    st.sampled_from([None, True, False]),
)
def test_detect_never_raises_with_or_without_tools(
    text: str, surface: str, tools: Any, reasoning: Any
) -> None:
    v = detect(text, surface, tools=tools, reasoning=reasoning)
    if v.leak:
        assert v.cut is not None and 0 <= v.cut <= len(text)


def test_tools_of_the_wrong_type_say_what_came() -> None:
    with pytest.raises(TypeError, match="tools must be"):
        detect("x", tools="read_file")
    with pytest.raises(TypeError, match=r"tools\[0\]"):
        detect("x", tools=[42])
