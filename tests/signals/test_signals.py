"""Each signal: positive, negative, lookalike and boundary cases (docs/detection.md, "Signals").

Signals are exercised through `guard.detect` so that what is checked is what users get; the
hit labels (`M+C+S`) show which signal fired on which span.
"""

from __future__ import annotations

import pytest
from support.splits import assert_every_split

from guard import detect
from guard.dialects import get_dialect
from guard.models import ScanContext, Surface, TextView
from guard.signals import BUILTIN, load_signals


def labels(text: str, surface: str = "text", **kw: object) -> list[str]:
    return [h.label for h in detect(text, surface, **kw).hits]  # type: ignore[arg-type]


def leak(text: str, surface: str = "text", **kw: object) -> bool:
    return detect(text, surface, **kw).leak  # type: ignore[arg-type]


# --- H: control token ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling",
    [
        "<|start|>",
        "<|end|>",
        "<|message|>",
        "<|channel|>",
        "<|constrain|>",
        "<|return|>",
        "<|call|>",
        "<|startoftext|>",
        "<|endoftext|>",
        "<|reserved_200100|>",
        "<|refusal|>",
        "<|untrusted|>",
        "<|end_untrusted|>",
        "<|meta_end|>",
        "<|assistant to=functions.bash|>",
    ],
)
def test_h_fires_on_every_harmony_spelling(spelling: str) -> None:
    v = detect(f"Sure. {spelling} done")
    assert v.leak and v.hits[0].code == "H" and v.cut == 6


@pytest.mark.parametrize(
    "text",
    ["a | b | c", "x |> f", "<| not a token |>", "<|>", "use the pipe operator <| here", ""],
)
def test_h_negative_bars_that_are_not_tokens(text: str) -> None:
    assert not leak(text)


@pytest.mark.parametrize(
    "lookalike",
    [
        "<\uff5cchannel\uff5c>",  # fullwidth bars
        "<\u2223channel\u2223>",  # divides
        "<|chan\u200bnel|>",  # zero-width space inside
        "<|ch\u00adannel|>",  # soft hyphen
        "<|CHANNEL|>",  # case
        "<| channel |>",  # spaced
        "<|\u0441hannel|>",  # Cyrillic es
    ],
)
def test_h_lookalikes_match_through_the_normalised_view(lookalike: str) -> None:
    text = f"ok {lookalike} tail"
    v = detect(text)
    assert v.leak and v.hits[0].code == "H"
    hit = v.hits[0]
    assert text[hit.start : hit.end] == hit.evidence == lookalike


def test_h_boundaries_start_and_end_of_text() -> None:
    assert detect("<|call|>").cut == 0
    assert detect("tail<|call|>").hits[0].end == len("tail<|call|>")


def test_h_other_dialects_use_their_own_reserved_set() -> None:
    assert leak("x <|im_start|>user", dialect="chatml")
    assert not leak("x <|im_start|>user", dialect="harmony")  # not a Harmony control token
    assert leak("a <\uff5ctool\u2581calls\u2581begin\uff5c>", dialect="deepseek")


# --- K: stripped envelope -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "analysisThe user asks for the weather.assistantfinalIt is sunny.",
        "done.assistantcommentary to the tool",
        'commentary json{"city": "Paris"}',
        'finaljson{"a": 1}',
    ],
)
def test_k_positive(text: str) -> None:
    assert leak(text) and "K" in labels(text)


@pytest.mark.parametrize(
    "text",
    [
        "The analysis shows growth. The assistant answered.",
        "My analysisThe",  # not at the start
        "analysis of the data",  # lower-case word after
        'the final JSON {"a": 1}',
        "assistant final answer",
    ],
)
def test_k_negative(text: str) -> None:
    assert not leak(text)


def test_k_lookalike_zero_width_inside() -> None:
    assert leak("assistant\u200bfinalHello")


@pytest.mark.parametrize(
    "text",
    [
        # "assistant" quoted unglued many times before the glued one (the docs case)
        "The assistant replies. " * 50 + "x assistantanalysis y",
        "an `assistant` reply, {braces} and json " * 20 + 'commentary json{"a": 1}',
        "final\tjson{}",  # the header check runs with a brace and no "assistant" at all
    ],
)
def test_k_found_past_its_substring_pretests(text: str) -> None:
    assert leak(text) and "K" in labels(text)


def test_k_nothing_where_the_pretests_hold_but_nothing_is_glued() -> None:
    assert not leak("The assistant, the final json, a {brace}. " * 30)


# --- M and its co-signals ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "set to=functions.read in the docs",
        "the header carries to=python",
        "goto=functions.php?id=1",
        "use to=browser.search, a built-in",
    ],
)
def test_m_alone_never_trips(text: str) -> None:
    v = detect(text)
    assert not v.leak and [h.code for h in v.hits] == ["M"]


@pytest.mark.parametrize(
    "marker",
    [
        "to=functions.edit",
        "to= functions.edit",
        "to=func\u200btions.edit",
        "to=funct\u0456ons.edit",  # Cyrillic i
        "to=multi_tool_use.parallel",
        "to=container.exec",
        "to=browser.open",
        "to=python",
        "to\uff1dfunctions.edit",  # fullwidth equals
    ],
)
def test_m_variants_with_channel_word_trip(marker: str) -> None:
    text = f"Done.}}]}}analysis {marker} code"
    v = detect(text)
    assert v.leak and v.hits[0].label.startswith("M+C"), v.reason


def test_c_glued_channel_word() -> None:
    v = detect("ok analysisto=functions.edit")
    assert v.leak and v.hits[0].label == "M+C"


def test_c_homoglyph_channel_word() -> None:
    assert leak("ok \u0430nalysis to=functions.edit")  # Cyrillic a


def test_c_negative_word_not_directly_before() -> None:
    assert not leak("analysis of the data then to=functions.edit later")


def test_c_no_window_bleed_between_markers() -> None:
    # The reference detector lends the first marker's channel word to the second (window bleed).
    v = detect("analysis to=functions.a then to=functions.b")
    first, second = v.hits
    assert first.label == "M+C" and second.label == "M"
    assert not second.trips


def test_c_within_64_characters_only() -> None:
    assert leak("analysis " + "to=functions.x")
    far = "analysis" + " " * 70 + "to=functions.x"
    assert not leak(far)  # the word lies outside the 64-character window
    assert detect(far).hits[0].label == "M"


@pytest.mark.parametrize("word", ["changedFiles", "RTLU", "Jsii", "Japgolly_commentary"])
def test_g_glitch_word_near_marker(word: str) -> None:
    v = detect(f"x {word} to=functions.edit")
    assert v.leak and "G" in v.hits[0].signals


def test_g_negative_far_from_marker() -> None:
    assert not leak("changedFiles are listed below, and much later we say to=functions.edit")


@pytest.mark.parametrize(
    "spam", ["大发官网", "เงินฟรี", "ႷႸႹ", "Հայերեն", "తెలుగు", "ひらがな", "한국어"]
)
def test_s_foreign_script_next_to_marker_in_ascii_text(spam: str) -> None:
    text = "I will now apply the edit to the file. " + f"{spam} to=functions.edit code"
    v = detect(text)
    assert v.leak and "S" in v.hits[0].signals


def test_s_negative_when_the_text_is_in_that_script() -> None:
    text = "这是一个关于天气的回答，" * 20 + " to=functions.edit " + "我们继续讨论。" * 20
    v = detect(text)
    assert not v.leak


def test_s_negative_japanese_word_in_english_sentence_without_marker() -> None:
    assert not leak("The Japanese word for cat is 猫, pronounced neko.")


def test_b_cascade() -> None:
    text = "x to=functions.edit code\n to=functions.edit code"
    v = detect(text)
    assert v.leak and "B" in v.hits[0].signals


def test_b_negative_single_marker_followed_by_code() -> None:
    assert not leak("the field to=functions.edit code is documented here")


def test_r_notebook_framing() -> None:
    v = detect("x to=functions.python code_output\nCell 1: 42")
    assert v.leak and "R" in v.hits[0].signals


def test_r_result_open_attaches_to_control_token() -> None:
    v = detect("done <|start|>functions.get_weather to=assistant<|channel|>commentary")
    assert v.hits[0].label == "H+R"


def test_r_assistant_author_is_not_a_result() -> None:
    v = detect("x <|start|>assistant<|channel|>final")
    assert v.hits[0].label == "H"


# --- T and N ----------------------------------------------------------------------------------


def test_t_marker_inside_json_string_is_before_the_boundary() -> None:
    args = '{"content": "docs say analysis to=functions.edit code 大发"}'
    assert not leak(args, "tool_arg", tool_name="write")


def test_t_marker_after_the_json_value_trips() -> None:
    args = '{"path": "a.py"} analysis to=functions.edit code'
    v = detect(args, "tool_arg", tool_name="edit")
    assert v.leak and v.hits[0].signals[-1] == "T" and v.cut == args.index("analysis")


def test_t_explicit_parsed_end_wins() -> None:
    args = "*** Begin Patch\nanalysis to=functions.edit code"
    assert not leak(args, "tool_arg", parsed_end=len(args))
    assert leak(args, "tool_arg", parsed_end=0)


def test_t_invalid_json_has_boundary_zero() -> None:
    assert leak('{"a": "x analysis to=functions.edit', "tool_arg")


def test_n_tool_name_charset() -> None:
    assert leak("lookup<|channel|>commentary", "tool_name")
    assert leak("get weather", "tool_name")
    assert not leak("functions.get_weather", "tool_name")
    assert not leak("ns:tool-name_2.x", "tool_name")


def test_n_a_plain_declared_name_is_the_hosts_own() -> None:
    # the request declared this very name, plain ASCII with '/' or '@': it passes
    for name in ("code/shell/execute", "team@search"):
        assert not detect(name, "tool_name", tools=[name]).leak, name
        assert detect(name, "tool_name").signals == ("N",), name
        assert "N" in detect(name, "tool_name", tools=["code"]).signals, name
    # declared or not, a look-alike, an invisible character, a blank, spam or a token is read
    # (review 58b: a tool list may come from a third-party server)
    for name in ("l\u043e\u043ekup", "get\u200bweather", "get weather", "get_weather\u5927\u53d1"):
        assert "N" in detect(name, "tool_name", tools=[name]).signals, name
    for dialect in ("harmony", "chatml"):
        name = "get_weather<|im_end|>"
        assert detect(name, "tool_name", dialect=dialect, tools=[name]).leak, dialect


@pytest.mark.parametrize(
    ("name", "leak"), [("code/shell/execute", False), ("code/shell/exec", True), ("code/x", True)]
)
def test_n_a_streamed_name_is_held_while_it_may_grow_into_a_declared_one(
    name: str, leak: bool
) -> None:
    # a stream that delivers the name in pieces: "code/" may still become the declared name
    tools = frozenset({"code/shell/execute"})
    assert assert_every_split(name, "tool_name", "chatml", tools=tools).leak is leak


# --- registry ------------------------------------------------------------------------------------


def test_every_signal_module_is_registered_once() -> None:
    codes = [s.code for s in load_signals()]
    assert sorted(codes) == sorted(set(codes))
    assert set("HKMCGSBRTN") <= set(codes)
    assert load_signals()[: len(BUILTIN)] == BUILTIN


def test_signals_are_pure() -> None:
    view = TextView("x analysis to=functions.edit code 大发 to=functions.edit")
    ctx = ScanContext(dialect=get_dialect("harmony"), surface=Surface.TEXT)
    for signal in BUILTIN:
        if signal.kind == "anchor":
            assert list(signal.scan(view, ctx)) == list(signal.scan(view, ctx))
