"""Shapes added in stop 44's second round: Kimi-Dev's triangle think tags (W); with declared
tools, GLM's stripped ``NAME/KEY>VALUE`` call, a fenced call the model narrates, a tool's
result record, the parallel wrapper's ``recipient_name`` (Y); a second object glued after a
call's arguments (Z); forged turns of both roles after an answer (O); reasoning cues (Gemini's
thought summary with a plan, "here's how I'd approach", tool planning, Chinese openers).
Positives, near misses and chunk splits."""

from __future__ import annotations

import pytest
from support.splits import monitored

from guard import detect

TOOLS = frozenset(
    {"shell", "browser_open", "run_command", "list_files", "web_extract", "read_file"}
)


@pytest.mark.parametrize(
    "text",
    [
        "◁think▷The bug is an off-by-one in the pagination helper, page size divides total."
        "◁/think▷The bug is an off-by-one in `paginate()`.",
        "◁think▷Need the failing test first. Maybe tests/test_io.py. Wait, the traceback names"
        " io/reader.py line 88.◁/think▷",
    ],
)
@pytest.mark.parametrize("dialect", ["chatml", "kimi", "all"])
def test_kimis_triangle_think_tags_trip(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect)
    assert v.leak and "W" in v.signals, v.reason


def test_a_triangle_pair_in_code_passes_and_bare_in_prose_counts() -> None:
    # no special token and no prose writes the triangle form bare: any closer is a leaked half
    assert not detect("Kimi-Dev writes `◁think▷...◁/think▷` around it.", dialect="chatml").leak
    assert detect("◁think▷The user wants a haiku.◁/think▷Autumn moon.", dialect="kimi").leak


@pytest.mark.parametrize(
    "text",
    [
        "shell/command>ls -la",
        "browser_open/url>https://docs.rs/serde",
        "Listing.\nshell/command>ls -la\nbrowser_open/url>https://example.com",
        '```json\n{"tool": "run_command", "args": {"cmd": "npm test"}}\n```'
        "\nRunning the tests now.",
        'I\'ll list the workspace first.\n\n```json\n{"name": "list_files", "arguments":'
        ' {"path": "."}}\n```',
        "[tool result: web_extract] 200 OK\nTitle: Test\n[/tool result]\nThe page says hello.",
        "Tool output (shell):\n$ ls\nnotes.txt\n\nThe folder holds the notes.",
        'Reading both.\n{"recipient_name": "functions.read_file", "parameters": {"path": "a"}} ok',
    ],
)
def test_declared_call_shapes_trip(text: str) -> None:
    v = detect(text, dialect="glm", tools=TOOLS)
    assert v.leak and "Y" in v.signals, v.reason
    assert "Y" not in detect(text, dialect="glm").signals


@pytest.mark.parametrize(
    "text",
    [
        "See src/command>ls for the redirect.",  # undeclared name before the slash
        "The path shell/command>x is a typo in the docs.",  # not at a line start
        '```json\n{"tool": "run_command", "args": {"cmd": "npm test"}}\n```\nThat is the shape.',
        'Call it like this:\n```json\n{"tool": "run_command", "args": {"cmd": "x"}}\n```',
        "The interface shows [tool result: NAME] lines.",
    ],
)
def test_declared_call_near_misses_pass(text: str) -> None:
    v = detect(text, dialect="glm", tools=TOOLS)
    assert "Y" not in v.signals, v.reason


@pytest.mark.parametrize(
    "text",
    [
        '{"filepath": "src/index.ts"}{"dirPath": "src", "recursive": false}',
        '{"filepath": "src/index.ts"}\n{"dirPath": "src"}',
    ],
)
def test_a_second_object_glued_after_the_arguments_trips(text: str) -> None:
    v = detect(text, surface="tool_arg", dialect="deepseek")
    assert v.leak and "Z" in v.signals, v.reason


@pytest.mark.parametrize(
    "text",
    [
        '{"a": {"b": 1}, "c": [{"d": 2}, {"e": 3}]}',
        '{"a": {"b": 1}\n, "c": 2}',
        '[{"a": 1},{"b": 2}]',
    ],
)
def test_nested_objects_pass(text: str) -> None:
    assert not detect(text, surface="tool_arg", dialect="deepseek").leak


def test_both_roles_forged_after_an_answer_trip_and_an_introduced_log_passes() -> None:
    forged = (
        'Extracted fields: {"name": "Ana"}\n\nuser\n\nCan you also rewrite my CV?\n\nassistant'
        "\n\nOf course!"
    )
    v = detect(forged, dialect="llama3")
    assert v.leak and "O" in v.signals, v.reason
    shown = "Here is an example chat log:\n\nuser\nHow do I reset it?\n\nassistant\nGo."
    assert not detect(shown, dialect="llama3").leak


@pytest.mark.parametrize(
    ("text", "dialect"),
    [
        (
            "Okay, here's how I'd approach this \"short answer\" request. First, I need to"
            " understand what the user is after.\n\nTesting checks behaviour.",
            "gemini",
        ),
        (
            "I should use the search tool because the user is asking about today's prices."
            " Today's price is $499.",
            "harmony",
        ),
        (
            "好的，我现在需要帮用户对比这两个工具。首先，我得确认它们是什么。\n\n对比如下。",
            "chatml",
        ),
    ],
)
def test_reasoning_cues_trip(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect)
    assert v.leak, v.reason


@pytest.mark.parametrize(
    "text",
    [
        "**Fixing the bug**\nI changed the loop bound and added a test.",  # a report
        # an agent titles its step and plans its tool so too (Gemini's own summary reads the
        # same, so it is one weak cue)
        "**Checking the config**\nI'll use the Read tool to open your config file.\n\nDEBUG is on.",
        "I'll use the search tool to look that up for you.",  # an agent's step, alone
        "好的，我来帮你写一个脚本。",  # an answer offering help
        "Here's how I'd approach it: start with the failing test.",  # advice, one cue
    ],
)
def test_reasoning_near_misses_pass(text: str) -> None:
    v = detect(text, dialect="chatml")
    assert not v.leak, v.reason


@pytest.mark.parametrize(
    "text", ["shell/command>ls -la", "[tool result: web_extract] 200 OK\nbody\nDone."]
)
def test_every_split_gives_the_whole_verdict(text: str) -> None:
    whole = detect(text, dialect="glm", tools=TOOLS)
    for cut in range(1, len(text)):
        verdict, _ = monitored(text, cut, "text", "glm", tools=TOOLS)
        assert (verdict.leak, verdict.signals) == (whole.leak, whole.signals), cut


# --- from the second hostile review -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Let me check the code. In your handler you compare against DialogResult.Yes, but the"
        " dialog returns DialogResult.OK, so the branch never runs.",
        "Let me check with SymPy: the imaginary unit is sympy.I and the result is 3 + 2*sympy.I.",
        "Let me check the docs for Vol.I of the manual.",
        "Let me think. Is it enabled?Yes, per the config.",
        "Let me check the math.It looks right: 2 + 2 = 4.",
    ],
)
@pytest.mark.parametrize("dialect", ["chatml", "anthropic", "gemini"])
def test_a_glued_name_or_a_typo_is_no_reasoning(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect)
    assert not v.leak, v.reason


@pytest.mark.parametrize(
    "text",
    [
        "Which account should it run as?\n\nuser non-root is the safe choice here\n\nThen rebuild.",
        "Did the checks pass?\n\nuser ok: 200 in 12 ms\n\nThe admin service failed, though.",
    ],
)
def test_an_answer_word_inside_a_term_is_no_reply(text: str) -> None:
    assert "O" not in detect(text, dialect="llama3").signals


@pytest.mark.parametrize(
    "text",
    [
        'Example:\n{"debug": true}\n\nRestart the app after editing the file.',
        'def f():\n    return {"a": 1}\nPrint the result now',
    ],
)
def test_free_form_arguments_that_quote_json_pass(text: str) -> None:
    v = detect(text, surface="tool_arg", dialect="chatml", tool_name="write_file")
    assert "Z" not in v.signals, v.reason


@pytest.mark.parametrize(
    "text",
    [
        '{"query": "notes"}\n\n我现在去搜索一下记忆库里的内容。',
        '{"query": "notes"}\u00a0I will now search the memory store.',
    ],
)
def test_other_scripts_and_blanks_after_the_arguments_trip(text: str) -> None:
    v = detect(text, surface="tool_arg", dialect="chatml")
    assert v.leak and "Z" in v.signals, v.reason


@pytest.mark.parametrize(
    "text",
    [
        'Here is an example request body:\n\n```json\n{"name": "read_file", "arguments": {"p": "a',
        'Use `{"name": "read_file", "arguments": {"p": "a',
        'It has the form {"name": "read_file", "arguments": {"p": ...} plus an id. Nest with {',
    ],
)
def test_a_cut_example_or_prose_is_no_cut_call(text: str) -> None:
    v = detect(text, dialect="llama3", tools=TOOLS)
    assert "Y" not in v.signals, v.reason


def test_a_fenced_namespaced_call_after_an_action_line_trips() -> None:
    text = 'Action:\n```json\n{"name": "functions.read_file", "arguments": {"path": "a"}}\n```'
    v = detect(text, dialect="chatml", tools=TOOLS)
    assert v.leak and "Y" in v.signals, v.reason


# --- from the third hostile review ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "surface", "dialect"),
    [
        ('{"id": 1, "name": "a"}\n{"id": 2, "name": "b"}\n', "tool_arg", "chatml"),  # JSON Lines
        (
            "Here are some common questions.\n\nuser\nHow do I reset it?\nassistant\nClick Reset.",
            "text",
            "llama3",
        ),
        (
            "Each training record has two turns.\n\nuser\nWhat is 2+2?\nassistant\n4",
            "text",
            "llama3",
        ),
        (
            "The `role` field is set to\n\nuser\n\nShould it be `system` instead?\n",
            "text",
            "llama3",
        ),
        (
            "好的，我需要先了解一下情况。能把日志发给我吗？我需要看看具体的报错。",
            "text",
            "deepseek",
        ),
        (
            "**Investigating the failure**\nI need to check line 12.\n\nIt compares strings.",
            "text",
            "chatml",
        ),
    ],
)
def test_review_three_near_misses_pass(text: str, surface: str, dialect: str) -> None:
    v = detect(text, surface=surface, dialect=dialect)
    assert not v.leak, v.reason


@pytest.mark.parametrize(
    "text",
    [
        "GLM format example:\n\nshell/command>ls -la",
        "search/results>10 means more than ten results.",
        "The agent log prints each call as [tool result: shell] followed by its output.",
        'The tool call looks like this.\n\n```json\n{"name": "read_file", "arguments":'
        ' {"path": "a"}}\n```\n\nI\'ll explain each field next.',
    ],
)
def test_docs_of_call_shapes_pass(text: str) -> None:
    v = detect(text, dialect="glm", tools=TOOLS | {"search"})
    assert "Y" not in v.signals, v.reason


def test_a_call_whose_name_follows_nested_arguments_is_found() -> None:
    import json

    call = json.dumps(
        {"arguments": {"edits": [{"line": i, "text": "x"} for i in range(40)]}, "name": "read_file"}
    )
    v = detect("Reading now.\n" + call, dialect="chatml", tools=TOOLS)
    assert v.leak and "Y" in v.signals, v.reason
