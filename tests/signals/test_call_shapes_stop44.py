"""Shapes added in stop 44: Kimi's call id before a text call's arguments (J), Hermes's
``<scratch_pad>`` closer (W), Gemma 3's ``tool_code`` fence under the ``gemma`` dialect (H), a
parameter tag for the string's own key inside a tool argument (P), and reasoning cues (a word
budget, the model weighing its tools, "Wait, no,"). Positives, near misses, chunk splits."""

from __future__ import annotations

import json

import pytest
from support.splits import monitored

from guard import detect

KIMI = 'functions.search_repo:1 {"query": "auth middleware", "limit": 5}'
SCRATCH = (
    "<scratch_pad>\nGoal: get TSLA fundamentals. Action: call get_stock_fundamentals with"
    " symbol TSLA, then summarise the P/E ratio for the user.\n</scratch_pad>\nLet me pull those."
)
TOOL_CODE = '```tool_code\nget_weather(city="London")\n```'


@pytest.mark.parametrize("dialect", ["kimi", "chatml", "all"])
def test_kimis_call_id_before_the_arguments_is_a_call(dialect: str) -> None:
    v = detect(KIMI, dialect=dialect, tools=["search_repo"])
    assert v.leak and "J" in v.signals, v.reason
    assert "J" not in detect(KIMI, dialect=dialect, tools=["other"]).signals


def test_kimis_call_id_in_prose_is_no_call() -> None:
    text = "The id functions.search_repo:1 names the first call; see the docs."
    assert not detect(text, dialect="kimi", tools=["search_repo"]).leak


@pytest.mark.parametrize("dialect", ["chatml", "llama3", "all"])
def test_the_scratch_pad_closer_trips(dialect: str) -> None:
    v = detect(SCRATCH, dialect=dialect)
    assert v.leak and "W" in v.signals, v.reason


def test_a_scratch_pad_pair_named_in_prose_passes() -> None:
    text = "Hermes plans inside <scratch_pad>...</scratch_pad> before it calls a tool."
    assert not detect(text, dialect="chatml").leak


def test_gemma_reads_gemma_3s_tool_code_fence() -> None:
    v = detect(TOOL_CODE, dialect="gemma", tools=["get_weather"])
    assert v.leak and "H" in v.signals, v.reason
    # quoted in an inline span, it is exempt as every spelling is
    assert not detect("Gemma 3 writes ```` ```tool_code ```` fences.", dialect="gemma").leak


@pytest.mark.parametrize("dialect", ["minimax", "qwen3_coder", "anthropic", "all"])
@pytest.mark.parametrize(
    "value",
    [
        '<parameter name="filePath">src/store/search.js</parameter>',
        "<parameter=filePath>src/store/search.js</parameter>",
    ],
)
def test_the_parameter_tag_of_the_strings_own_key_is_no_data(dialect: str, value: str) -> None:
    text = json.dumps({"filePath": value})
    v = detect(text, surface="tool_arg", dialect=dialect, tools=["read"])
    assert v.leak and "P" in v.signals, v.reason


@pytest.mark.parametrize("dialect", ["minimax", "qwen3_coder", "anthropic", "all"])
@pytest.mark.parametrize(
    "value",
    [
        'Prefers metric units.</content>\n<parameter name="reason">said twice</parameter>',
        "Prefers metric units.</content> <parameter=reason>said twice</parameter>",
    ],
)
def test_a_value_closed_by_its_own_keys_tag_before_the_next_parameter_is_no_data(
    dialect: str, value: str
) -> None:
    v = detect(json.dumps({"content": value}), surface="tool_arg", dialect=dialect)
    assert v.leak and "P" in v.signals, v.reason


@pytest.mark.parametrize("dialect", ["minimax", "anthropic", "all"])
@pytest.mark.parametrize(
    "value",
    [
        'Keep the retry budget at 3.\n<parameter name="tags">retry,fallback</parameter>',
        'Keep the retry budget at 3.\n  <parameter name="tags">retry</parameter>\n',
        # a file written, Qwen3-Coder's spelling, more attributes, two merged (review 52b)
        "Keep it.\n<parameter=tags>\nretry\n</parameter>",
        'Keep it.\n<parameter name="tags" type="str">retry</parameter>',
        'Keep it.\n<parameter name="a">1</parameter>\n<parameter name="b">2</parameter>',
    ],
)
def test_the_next_parameter_merged_into_the_values_end_is_no_data(dialect: str, value: str) -> None:
    # heldout35: the parser left the neighbouring parameter's element in this value
    v = detect(json.dumps({"content": value}), surface="tool_arg", dialect=dialect)
    assert v.leak and "P" in v.signals, v.reason
    v = detect(
        json.dumps({"path": "README", "content": value}), surface="tool_arg", dialect=dialect
    )
    assert v.leak and "P" in v.signals, v.reason  # a file written carries it as well


@pytest.mark.parametrize(
    "args",
    [
        # a document of parameters, or prose after the element, or inside a line
        {"content": '<c>\n<parameter name="a">1</parameter>\n<parameter name="b">2</parameter>'},
        {"content": 'Docs:\n<parameter name="a">1</parameter> sets the limit.'},
        {"content": 'Inline <parameter name="a">1</parameter>'},  # not on a line of its own
        # markup before it, a file written, a sample, a heredoc (review 52)
        {"new_str": '<!-- mtom -->\n<parameter name="enableMTOM">true</parameter>'},
        {"path": "axis2.xml", "content": '<service>\n<parameter name="S">x.Echo</parameter>'},
        {"content": 'Each argument is an element, e.g.\n<parameter name="city">Paris</parameter>'},
        {"content": 'Each argument is written as an element.\n<parameter name="c">P</parameter>'},
        {"command": 'cat >> conf.xml <<EOF\n<parameter name="timeout">30</parameter>'},
        {"content": 'Set it so:\n<parameter name="timeout">30</parameter>'},  # no sentence end
    ],
)
def test_a_parameter_element_in_a_document_is_data(args: dict[str, str]) -> None:
    v = detect(json.dumps(args), surface="tool_arg", dialect="anthropic")
    assert "P" not in v.signals, v.reason


@pytest.mark.parametrize(
    "args",
    [
        # another key's closer before the pair, or the own key's closer with prose after it
        {"doc": 'x</content>\n<parameter name="reason">said twice</parameter> in the docs'},
        {"content": 'End with </content>, then <parameter name="k">v</parameter> follows.'},
        # an XML file whose own <content> element closes before a <parameter> element (review 48)
        {"content": '<c>\n<content>hi</content>\n<parameter name="t">30</parameter>\n</c>'},
    ],
)
def test_a_closer_of_another_key_or_before_prose_is_data(args: dict[str, str]) -> None:
    v = detect(json.dumps(args), surface="tool_arg", dialect="anthropic")
    assert not v.leak, v.reason


@pytest.mark.parametrize(
    "args",
    [
        {"content": '<parameter name="path">a.js</parameter> is how the call looks'},
        {"doc": 'Write <parameter name="path">VALUE</parameter> inside an invoke element.'},
    ],
)
def test_a_parameter_pair_for_another_key_is_data(args: dict[str, str]) -> None:
    v = detect(json.dumps(args), surface="tool_arg", dialect="minimax")
    assert not v.leak, v.reason


@pytest.mark.parametrize(
    "text",
    [
        "The user wants a summary of the report. I need the revenue first. Keep it under 80"
        " words.\n\nQuarterly summary: revenue rose 12%.",
        "We need to answer: what is 2+2. The user asks simple arithmetic; no tool needed."
        " Answer: 4.\n\n4",
    ],
)
@pytest.mark.parametrize("dialect", ["deepseek_v32", "harmony", "all"])
def test_reasoning_with_a_budget_or_a_tool_decision_trips(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect)
    assert v.leak, v.reason


@pytest.mark.parametrize(
    "text",
    [
        "Keep it under 80 words: editors cut anything longer.",  # advice to the reader
        "No tool needed: the CLI does this by itself. Run `make docs`.",
        "Wait, no changes are needed on your side; the fix is server-side.",
        "Is it cached? Wait, no. The first call always misses.",
    ],
)
def test_lone_cues_pass(text: str) -> None:
    v = detect(text, dialect="deepseek")
    assert not v.leak, v.reason


@pytest.mark.parametrize("text", [KIMI, SCRATCH, TOOL_CODE])
def test_every_split_gives_the_whole_verdict(text: str) -> None:
    dialect = "gemma" if text is TOOL_CODE else "kimi"
    tools = frozenset({"search_repo", "get_weather"})
    whole = detect(text, dialect=dialect, tools=tools)
    for cut in range(1, len(text)):
        verdict, _ = monitored(text, cut, "text", dialect, tools=tools)
        assert (verdict.leak, verdict.signals) == (whole.leak, whole.signals), cut


# --- Codex's apply_patch: its envelope written as text (Y), its result forged (O) -------------

PATCH_ARGS = (
    'Applying the fix now:\n\n{"command": ["apply_patch", "*** Begin Patch\\n*** Update File:'
    ' README.md\\n@@\\n- old\\n+ new\\n*** End Patch\\n"]}'
)
PATCH_TEXT = "Here it is.\n*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\nDone."
PATCHED = "apply_patch\nSuccess. Updated the following files:\nM src/main.rs\n\nDone, it applied."


@pytest.mark.parametrize("text", [PATCH_ARGS, PATCH_TEXT])
def test_the_patch_envelope_with_apply_patch_declared_trips(text: str) -> None:
    v = detect(text, dialect="harmony", tools=["apply_patch", "shell"])
    assert v.leak and "Y" in v.signals, v.reason
    assert "Y" not in detect(text, dialect="harmony", tools=["shell"]).signals
    assert "Y" not in detect(text, dialect="harmony").signals


def test_the_patch_envelope_in_code_passes() -> None:
    text = "The format:\n\n```\n*** Begin Patch\n*** End Patch\n```"
    assert not detect(text, dialect="harmony", tools=["apply_patch"]).leak


@pytest.mark.parametrize("dialect", ["harmony", "chatml", "all"])
def test_a_forged_apply_patch_result_trips(dialect: str) -> None:
    v = detect(PATCHED, dialect=dialect, tools=["apply_patch"])
    assert v.leak and "Y" in v.signals and v.cut == PATCHED.index("Success"), v.reason
    assert not detect(PATCHED, dialect=dialect).leak  # without apply_patch declared


@pytest.mark.parametrize(
    "text",
    [
        "Codex prints `Success. Updated the following files:` after a patch.",
        "Success. Updated the following files: none, the patch was empty.",
    ],
)
def test_a_mention_of_the_result_passes(text: str) -> None:
    assert not detect(text, dialect="harmony").leak


@pytest.mark.parametrize("text", [PATCH_TEXT, PATCHED])
def test_patch_shapes_every_split(text: str) -> None:
    tools = frozenset({"apply_patch"})
    whole = detect(text, dialect="harmony", tools=tools)
    for cut in range(1, len(text)):
        verdict, _ = monitored(text, cut, "text", "harmony", tools=tools)
        assert (verdict.leak, verdict.signals) == (whole.leak, whole.signals), cut


@pytest.mark.parametrize("dialect", ["harmony", "chatml", "kimi", "llama3"])
@pytest.mark.parametrize(
    "text",
    [
        'The failing call was logged at src/functions.js:12 {"status": 500}',
        'Traceback points to utils/functions.py:88 {"user_id": 7}',
        'See functions.php:3 {"a": 1}',
    ],
)
def test_a_file_and_line_number_is_no_kimi_call(text: str, dialect: str) -> None:
    assert "J" not in detect(text, dialect=dialect).signals


@pytest.mark.parametrize(
    "value",
    [
        '<parameter name = "filePath">a.js</parameter>',
        '<parameter name="filePath" string="true">a.js</parameter>',
    ],
)
def test_the_own_parameter_tag_with_blanks_or_attributes(value: str) -> None:
    v = detect(json.dumps({"filePath": value}), surface="tool_arg", dialect="minimax")
    assert v.leak and "P" in v.signals, v.reason
