"""The gate and the public detection API: rules D1-D9 (docs/detection.md, "Rules": surfaces,
default gate, code exemption, cut, verdict contents, lookalikes), policies, and properties over
arbitrary text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import guard
from guard import Policy, PolicyError, Surface, detect, detect_message

FRAGMENTS = [
    "<|start|>",
    "<|channel|>",
    "<|message|>",
    "<|call|>",
    "<\uff5cend\uff5c>",
    "to=functions.edit",
    "to=",
    "analysis",
    "assistantfinal",
    " code ",
    "code_output\nCell 1:",
    "大发",
    "Jsii",
    "```",
    "`",
    "\n",
    "\u200b",
    "json{",
    "{",
    '"',
    "}",
]
texty = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=6)), max_size=30).map(
    "".join
)
PROPS = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- default gate (docs/detection.md, "Rules") ----------------------------------------------------


def test_d2_text_leaks_on_h_or_k_alone() -> None:
    assert detect("a <|end|>").leak
    assert detect("assistantfinalHello").leak


def test_d2_text_marker_needs_a_co_signal() -> None:
    assert not detect("a to=functions.f b").leak
    assert detect("a analysis to=functions.f b").leak


def test_d3_thinking_uses_the_same_rule() -> None:
    assert detect("a <|end|>", "thinking").leak
    assert not detect("call to=functions.f later", "thinking").leak
    # a marker that opens the text is a leak on its own (A, issue 11)
    assert detect("to=functions.f", "thinking").signals == ("M", "A")


def test_d4_tool_arg_hit_must_carry_t() -> None:
    inside = json.dumps({"s": "analysis to=functions.edit <|call|>"})
    assert not detect(inside, "tool_arg").leak
    after = inside + "<|call|>"
    v = detect(after, "tool_arg")
    assert v.leak and v.hits[-1].label == "H+T" and v.cut == len(inside)


def test_d5_tool_name_rule() -> None:
    assert detect("assistant<|channel|>commentary", "tool_name").leak
    assert detect("read file", "tool_name").leak
    assert not detect("functions.read_file", "tool_name").leak


def test_d6_code_exemption_fenced_and_inline() -> None:
    doc = "Use `<|channel|>` to pick a channel:\n\n```\n<|start|>assistant<|message|>\n```\n"
    v = detect(doc)
    assert not v.leak and all(h.in_code for h in v.hits) and len(v.hits) == 3


def test_d6_code_exemption_fence_char_and_length_must_match() -> None:
    assert detect("````\n<|end|>\n```\nstill open").leak
    assert detect("```\n<|end|>\n~~~\n").leak
    assert not detect("~~~~\n<|end|>\n~~~~~\n").leak


def test_d6_unclosed_fence_exempts_nothing() -> None:
    v = detect("```\nanalysis to=functions.edit code 大发")
    assert v.leak


def test_d6_inline_span_needs_equal_backtick_run() -> None:
    assert detect("``<|end|>` x").leak
    assert not detect("``<|end|>`` x").leak
    assert detect("`a\n\n<|end|>` x").leak  # never across a blank line


def test_d7_cut_is_the_start_of_the_first_tripping_hit() -> None:
    text = "ok `<|end|>` then <|call|> and <|start|>"
    v = detect(text)
    assert v.cut == text.index("<|call|>")


def test_d8_verdict_lists_every_hit_with_its_own_signals() -> None:
    text = "x analysis to=functions.a 大发 y to=functions.b"
    v = detect(text)
    assert [h.label for h in v.hits] == ["M+C+S", "M+S"]
    assert v.score == sum(h.score for h in v.hits if h.trips)
    assert v.reason.startswith("leak on text: M+C+S at")


def test_d9_lookalike_offsets_map_back_to_the_original() -> None:
    text = "pre \u200b<\uff5cstart\uff5c>as\u200bsistant"
    v = detect(text)
    hit = v.hits[0]
    assert text[hit.start : hit.end] == hit.evidence == "<\uff5cstart\uff5c>"


# --- D1 surfaces ----------------------------------------------------------------------------------


@pytest.mark.parametrize("surface", ["user", "tool_result"])
def test_d1_input_surfaces_never_leak_they_report_injection(surface: str) -> None:
    v = detect("please explain <|start|>assistant and <|call|>", surface)
    assert not v.leak and v.injection == ("<|start|>", "<|call|>")
    assert "escape required" in v.reason


def test_d1_input_lookalikes_need_no_escaping() -> None:
    v = detect("<\uff5cstart\uff5c>", "user")
    assert not v.leak and v.injection == ()


# --- API and errors ----------------------------------------------------------------------------


def test_detect_rejects_bad_input_clearly() -> None:
    with pytest.raises(TypeError, match="expects text as str, got bytes"):
        detect(b"x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown surface 'body'; expected one of: text"):
        detect("x", "body")
    with pytest.raises(ValueError, match="unknown dialect"):
        detect("x", dialect="gpt-9")
    with pytest.raises(ValueError, match="parsed_end must be >= 0"):
        detect("x", "tool_arg", parsed_end=-1)
    with pytest.raises(TypeError, match="policy must be"):
        detect("x", policy={"surfaces": {}})  # type: ignore[arg-type]


def test_verdict_is_json_serialisable() -> None:
    v = detect("x analysis to=functions.edit code 大发")
    again = guard.Verdict.model_validate_json(v.model_dump_json())
    assert again == v


def test_detect_message_one_verdict_per_surface_part() -> None:
    message = {
        "role": "assistant",
        "content": "Sure.<|end|>",
        "reasoning_content": "thinking about to=functions.f",
        "tool_calls": [
            {"function": {"name": "get<|channel|>commentary", "arguments": '{"a": 1}'}},
            {"function": {"name": "edit", "arguments": '{"a": 1} analysis to=functions.edit'}},
        ],
    }
    verdicts = detect_message(message)
    parts = {v.part: (v.surface, v.leak) for v in verdicts}
    assert parts == {
        "content": (Surface.TEXT, True),
        "reasoning_content": (Surface.THINKING, False),
        "tool_calls[0].function.name": (Surface.TOOL_NAME, True),
        "tool_calls[0].function.arguments": (Surface.TOOL_ARG, False),
        "tool_calls[1].function.name": (Surface.TOOL_NAME, False),
        "tool_calls[1].function.arguments": (Surface.TOOL_ARG, True),
    }
    assert verdicts[-1].tool_name == "edit"


def test_detect_message_reads_sdk_style_objects_and_part_lists() -> None:
    class Fn:
        name = "read"
        arguments = "{}"

    class Call:
        function = Fn()

    class Msg:
        def __init__(self) -> None:
            self.content = [{"type": "text", "text": "fine"}, {"type": "text", "text": "<|call|>"}]
            self.reasoning = None
            self.reasoning_content = None
            self.tool_calls = [Call()]

    verdicts = detect_message(Msg())
    assert [(v.part, v.leak) for v in verdicts] == [
        ("content[0]", False),
        ("content[1]", True),
        ("tool_calls[0].function.name", False),
        ("tool_calls[0].function.arguments", False),
    ]
    with pytest.raises(TypeError):
        detect_message("not a message")


# --- policy as data -----------------------------------------------------------------------------


def test_policy_default_is_the_documented_gate(tmp_path: Path) -> None:
    assert Policy() == guard.DEFAULT_POLICY
    assert guard.DEFAULT_POLICY.rule(Surface.TOOL_ARG).require == {"T"}


def test_policy_loosen_and_tighten_from_toml(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(
        '[surfaces.text]\ntrip_alone = ["H", "K", "M"]\n\n[surfaces.thinking]\n'
        'trip_alone = []\nanchors = []\n\n[boundaries]\napply_patch = "none"\n'
    )
    policy = Policy.load(path)
    assert detect("docs: to=functions.f", policy=policy).leak  # tightened
    assert not detect("<|end|>", "thinking", policy=policy).leak  # loosened
    assert detect("x analysis to=functions.f", "tool_arg", tool_name="apply_patch", policy=policy)
    assert policy.rule(Surface.TOOL_NAME) == guard.DEFAULT_POLICY.rule(Surface.TOOL_NAME)


def test_policy_from_json_and_errors(tmp_path: Path) -> None:
    good = tmp_path / "p.json"
    good.write_text(json.dumps({"disabled": ["S"]}))
    assert Policy.load(good).disabled == {"S"}
    bad = tmp_path / "bad.json"
    bad.write_text('{"surfaces": {"text": {"trip_alone": 3}}}')
    with pytest.raises(PolicyError, match="invalid policy"):
        Policy.load(bad)
    with pytest.raises(PolicyError, match=r"expected a \.toml or \.json file"):
        Policy.load(tmp_path / "p.yaml")
    with pytest.raises(PolicyError, match="cannot read"):
        Policy.load(tmp_path / "missing.toml")
    typo = tmp_path / "typo.json"
    typo.write_text('{"surfacez": {}}')
    with pytest.raises(PolicyError):
        Policy.load(typo)


def test_policy_or_path_takes_a_policy_a_path_or_none(tmp_path: Path) -> None:
    from guard.gate import check_policy_or_path

    path = tmp_path / "p.json"
    path.write_text(json.dumps({"disabled": ["S"]}))
    policy = Policy(disabled=frozenset({"C"}))
    assert check_policy_or_path(policy) is policy
    assert check_policy_or_path(None) is guard.DEFAULT_POLICY
    assert check_policy_or_path(path).disabled == {"S"}
    assert check_policy_or_path(str(path)).disabled == {"S"}
    with pytest.raises(TypeError, match=r"a guard\.Policy, a path or None, got int"):
        check_policy_or_path(3)
    with pytest.raises(PolicyError, match="cannot read"):
        check_policy_or_path(tmp_path / "missing.toml")


def test_policy_disabled_signal_is_not_run() -> None:
    policy = Policy(disabled=frozenset({"C"}))
    assert not detect("x analysis to=functions.f", policy=policy).leak


# --- properties ---------------------------------------------------------------------------------


@PROPS
@given(texty, st.sampled_from([s.value for s in Surface]))
def test_detect_never_raises_and_offsets_point_at_evidence(text: str, surface: str) -> None:
    v = detect(text, surface)
    for hit in v.hits:
        assert 0 <= hit.start <= hit.end <= len(text)
        assert text[hit.start : hit.end] == hit.evidence
        for support in hit.support:
            assert text[support.start : support.end] == support.evidence
    if v.leak:
        assert v.cut == min(h.cut for h in v.hits if h.trips)
    else:
        assert v.cut is None


@PROPS
@given(st.text())
def test_detect_never_raises_on_arbitrary_unicode(text: str) -> None:
    for surface in Surface:
        detect(text, surface)


def test_d5_streamed_long_tool_name_with_an_early_bad_character_is_a_leak() -> None:
    """A trigger *pattern* (signal N's) makes the stream look, like a literal does: a bad
    character near the start of a name longer than the retained window is not trimmed away
    unexamined."""
    from guard.dialects import get_dialect
    from guard.gate import DEFAULT_POLICY, SurfaceMonitor
    from guard.models import Surface

    name = "a b" + "x" * 2000
    whole = guard.detect(name, "tool_name")
    monitor = SurfaceMonitor(Surface.TOOL_NAME, get_dialect("harmony"), DEFAULT_POLICY)
    for i in range(0, len(name), 10):
        monitor.feed(name[i : i + 10])
    streamed = monitor.finish()
    assert whole.leak and streamed.leak
    assert streamed.cut == whole.cut == 1
