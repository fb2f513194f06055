"""Shapes of stop 41 (issue 31): a pythonic call list and a ``<tool_calls>`` wrapper as text (J),
a stripped role header and a glued or italic ``thought`` opening (K), a Gemini thought summary
(L), and prompt templates inside tool arguments (P's placeholder rule): positives, near misses
and every chunk split."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.monitor import streamed

from guard import detect
from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY, SurfaceMonitor
from guard.models import Surface

# --- J: a pythonic call list -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "dialect", "tools"),
    [
        ('[shell(command="cat README.md")]', "pythonic", ["shell", "text_editor"]),
        ("[search_flights(origin='LIS', date='2026-03-14')]", "lfm2", ["search_flights"]),
        ("[search_flights(origin='LIS', date='2026-03-14')]", "lfm2", None),
        ("[get_time()]", "pythonic", None),
        ('Checking.\n[a(x=1), b(y="two", z=[1, 2])]', "chatml", ["a", "b"]),
    ],
)
def test_a_pythonic_call_list_as_text_trips(text: str, dialect: str, tools: Any) -> None:
    v = detect(text, dialect=dialect, tools=tools)
    assert v.leak and "J" in v.signals and v.cut == text.index("["), v.explain()


@pytest.mark.parametrize(
    ("text", "dialect", "tools"),
    [
        # no declared tools, and the dialect's own call is not a pythonic list
        ("[search_flights(origin='LIS')]", "chatml", None),
        ("[search_flights(origin='LIS')]", "llama3", None),
        # declared tools, none of them named
        ('[shell(command="ls")]', "pythonic", ["grep"]),
        # positional arguments: a Python expression, not a call body
        ("[f(1), g(2)]", "pythonic", None),
        ("values = [len(x) for x in rows]", "pythonic", ["len"]),
        # not at the end of the text
        ('[shell(command="ls")] is how the model writes it.', "pythonic", ["shell"]),
        # closed code
        ('```python\n[shell(command="ls")]\n```', "pythonic", ["shell"]),
    ],
)
def test_pythonic_near_misses_pass(text: str, dialect: str, tools: Any) -> None:
    assert not detect(text, dialect=dialect, tools=tools).leak, text


@pytest.mark.parametrize("cut", range(1, len('Sure.\n[shell(command="ls")]')))
def test_pythonic_every_split_gives_the_whole_verdict(cut: int) -> None:
    text = 'Sure.\n[shell(command="ls")]'
    whole = detect(text, dialect="pythonic", tools=["shell"])
    verdict, release = streamed(text, cut, "text", "pythonic", tools=frozenset({"shell"}))
    assert verdict == whole and whole.leak and release == whole.cut == 6


# --- J: a <tool_calls> wrapper ---------------------------------------------------------------

_WRAPPED = '<tool_calls>[{"name": "bash", "arguments": {"cmd": "ls /tmp"}}]</tool_calls>'


@pytest.mark.parametrize(
    "text",
    [
        _WRAPPED,
        '<tool_calls>{"name": "bash", "arguments": {"cmd": "ls"}}</tool_calls>',
        'Listing.\n<tool_calls>\n[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]\n'
        "</tool_calls>\n",
    ],
)
def test_a_tool_calls_wrapper_as_text_trips(text: str) -> None:
    for dialect in ("llama3", "chatml", "all"):
        v = detect(text, dialect=dialect)
        assert v.leak and "J" in v.signals and v.cut == text.index("<tool_calls>"), dialect


def test_a_tool_calls_wrapper_with_declared_tools_counts_only_when_it_names_one() -> None:
    assert detect(_WRAPPED, dialect="llama3", tools=["bash"]).leak
    assert not detect(_WRAPPED, dialect="llama3", tools=["search"]).leak


@pytest.mark.parametrize(
    "text",
    [
        "<tool_calls>[1, 2]</tool_calls>",  # no call inside
        '<tool_calls>{"name": "bash"}</tool_calls>',  # no arguments
        f"`{_WRAPPED}`",  # inline code
        f"{_WRAPPED} is what the model printed.",  # not the end of the text
    ],
)
def test_tool_calls_wrapper_near_misses_pass(text: str) -> None:
    assert not detect(text, dialect="llama3").leak, text


@pytest.mark.parametrize("cut", range(1, len(_WRAPPED)))
def test_tool_calls_wrapper_every_split_gives_the_whole_verdict(cut: int) -> None:
    whole = detect(_WRAPPED, dialect="llama3")
    verdict, release = streamed(_WRAPPED, cut, "text", "llama3")
    assert verdict == whole and whole.leak and release == whole.cut == 0


# --- K: a stripped role header, a glued or italic thought opening ----------------------------


@pytest.mark.parametrize(
    ("text", "evidence"),
    [
        ("assistant\n\nRome", "assistant"),
        ("  assistant\nHere are three prime numbers:\n\n1. 5", "assistant"),
        ("thoughtThe user said hello. Greet back.Hello!", "thought"),
        ("thought\n*Analyze the request:* a summary.\nThe article argues ...", "thought"),
        ("thought\n**Plan**\nKeep it short.", "thought"),
    ],
)
def test_k_stripped_openings_trip(text: str, evidence: str) -> None:
    for dialect in ("llama3", "gemma", "chatml", "all"):
        v = detect(text, dialect=dialect)
        assert v.leak and v.signals == ("K",), (dialect, v.explain())
        assert v.hits[0].evidence == evidence and v.cut == text.index(evidence)


@pytest.mark.parametrize(
    "text",
    [
        "assistant",  # the header alone: nothing after it (a lone role word is not K's shape)
        "assistant\n",
        "Assistant\nHow can I help?",  # capitalised: a heading
        "assistant: hello",  # a transcript line
        "assistants\nare helpful",
        "The assistant\nanswered.",
        "thoughtful answers help.",
        "thought\nprocess is key.",
        "thoughts\nThe user ...",
    ],
)
def test_k_stripped_opening_near_misses_pass(text: str) -> None:
    assert not detect(text, dialect="llama3").leak, text


def test_k_role_and_thought_openings_count_only_in_the_answer() -> None:
    for text in ("assistant\n\nRome", "thoughtThe user said hello."):
        assert detect(text, dialect="llama3").leak
        assert not detect(text, surface="thinking", dialect="llama3").leak
        assert not detect(text, surface="tool_arg", dialect="llama3").leak


@pytest.mark.parametrize("text", ["assistant\n\nRome", "thoughtThe user said hi.Hello!"])
def test_k_openings_every_split_gives_the_whole_verdict(text: str) -> None:
    whole = detect(text, dialect="llama3")
    for cut in range(1, len(text)):
        verdict, release = streamed(text, cut, "text", "llama3")
        assert verdict == whole and release == whole.cut == 0, cut


# --- L: a Gemini thought summary -------------------------------------------------------------

_SUMMARY = (
    "**Weighing the options**\n\nI'm comparing the two libraries the user mentioned. I'll"
    " recommend httpx.\n\nFor an asyncio codebase, use httpx."
)


def test_a_bold_gerund_heading_then_the_user_in_the_third_person_trips() -> None:
    v = detect(_SUMMARY, dialect="gemma")
    assert v.leak and v.signals == ("L",), v.explain()
    assert "thought summary '**Weighing the options**'" in v.hits[0].detail
    assert v.cut == 0


@pytest.mark.parametrize(
    "text",
    [
        # a bold gerund heading in an ordinary answer: no cue of the reasoning voice after it
        "**Installing the package**\n\nRun `pip install httpx`, then import it.",
        # a heading that is no gerund
        "**Options**\n\nI'm comparing the two libraries the user mentioned.",
        # the gerund heading inside a sentence line, not alone
        "**Weighing the options** is the first step; the user mentioned two libraries.",
    ],
)
def test_bold_gerund_near_misses_pass(text: str) -> None:
    assert not detect(text, dialect="gemma").leak, text


def test_a_bold_heading_where_a_reasoning_part_was_sent_needs_more() -> None:
    # no paragraph of the model's thinking under the heading: a heading and one cue
    text = "**Weighing the options**\n\nRequests is simpler, as the user mentioned.\n\nUse httpx."
    assert detect(text, dialect="gemma").leak
    assert not detect(text, dialect="gemma", reasoning=True).leak
    # the model reporting its own thinking under the title is a thought summary: enough there
    assert detect(_SUMMARY, dialect="gemma", reasoning=True).leak


@pytest.mark.parametrize("cut", range(1, len(_SUMMARY), 7))
def test_a_thought_summary_every_split_gives_the_whole_verdict(cut: int) -> None:
    whole = detect(_SUMMARY, dialect="gemma")
    verdict, release = streamed(_SUMMARY, cut, "text", "gemma")
    assert verdict == whole and release == whole.cut == 0


# --- P: a prompt template in a tool argument -------------------------------------------------


@pytest.mark.parametrize(
    ("content", "dialect"),
    [
        (
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n{system}<|eot_id|>",
            "llama3",
        ),
        ('TEMPLATE """<|im_start|>system\n{{ .System }}<|im_end|>\n"""', "chatml"),
        ("{% for m in messages %}<|im_start|>{{ m.role }}\n<|im_end|>{% endfor %}", "chatml"),
        ("<|tool_calls_section_begin|>{calls}<|tool_calls_section_end|>", "kimi"),
    ],
)
def test_a_prompt_template_in_a_string_is_data(content: str, dialect: str) -> None:
    args = json.dumps({"path": "prompts/template.txt", "content": content})
    v = detect(args, surface="tool_arg", dialect=dialect, tools=["write_file"])
    assert not v.leak, v.explain()


@pytest.mark.parametrize(
    ("value", "dialect"),
    [
        ("ls -la <|tool_call_end|>", "kimi"),  # no placeholder
        ("echo ${name} <|tool_call_end|>", "kimi"),  # a shell variable is no placeholder
        ("echo ${HOME} <|im_end|>", "chatml"),
        ("run {X} <|im_end|>", "chatml"),  # upper case: not a format field
    ],
)
def test_a_call_token_beside_no_placeholder_still_trips(value: str, dialect: str) -> None:
    args = json.dumps({"command": value})
    v = detect(args, surface="tool_arg", dialect=dialect, tools=["bash"])
    assert v.leak and "P" in v.signals, v.explain()


def test_a_placeholder_in_another_string_of_the_arguments_does_not_quote_a_token() -> None:
    args = json.dumps({"template": "{{ .System }}", "command": "ls -la <|tool_call_end|>"})
    v = detect(args, surface="tool_arg", dialect="kimi", tools=["bash"])
    assert v.leak and "P" in v.signals, v.explain()


# --- J: an element named after a declared tool ------------------------------------------------

_EXEC = "Running the suite now.\n<exec>npm test -- --watch=false</exec>"


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        (_EXEC, ["exec", "read"]),
        ("Pins:\n<get_pins>\n<board>stm32f4-disco</board>\n</get_pins>", ["get_pins"]),
        ("<read_file><path>a.py</path></read_file>\n<exec>ls</exec>", ["read_file", "exec"]),
        # inside a call wrapper (MiMo's text form)
        ('<toolcall><shell>{"command": "pwd"}</shell></toolcall>', ["shell"]),
        (
            'Run:\n<toolcall><exec>{"c": 1}</exec></toolcall>\n<toolcall><exec>x</exec></toolcall>',
            ["exec"],
        ),
    ],
)
def test_an_element_named_after_a_declared_tool_trips(text: str, tools: list[str]) -> None:
    v = detect(text, dialect="chatml", tools=tools)
    assert v.leak and v.signals == ("J",), v.explain()
    assert v.cut == text.index("<") and "of declared" in v.hits[0].detail


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        (_EXEC, None),  # no declared tools: any XML or HTML element
        (_EXEC, ["bash"]),  # not a declared tool
        ("Use <b>bold</b>", ["b2"]),
        ("<exec>ls</exec> runs it.", ["exec"]),  # not the end of the text
        ("Write `<exec>ls</exec>`", ["exec"]),  # inline code
        ("<exec>ls</exec2>", ["exec"]),  # unpaired
        ("<toolcall><b>x</b></toolcall>", ["exec"]),  # the inner element names no tool
        ("<toolcall><exec>ls</exec></toolcall>", None),
        ("<toolbar><exec>ls</exec></toolbar>", ["bash"]),
        ("<functions><search>x</search></functions>", ["search"]),  # a configuration's wrapper
        ("<toolset><exec>ls</exec></toolset>", ["exec"]),
    ],
)
def test_element_near_misses_pass(text: str, tools: list[str] | None) -> None:
    assert not detect(text, dialect="chatml", tools=tools).leak, text


def test_a_hermes_call_is_still_read_as_its_own_form() -> None:
    text = '<tool_call>{"name": "a", "arguments": {}}</tool_call>'
    assert "tool call written as text ('a')" in detect(text, dialect="chatml").hits[0].detail
    assert not detect('<tool_calls>{"name": "a"}</tool_calls>', dialect="chatml").leak


@pytest.mark.parametrize("cut", range(1, len(_EXEC)))
def test_an_element_call_every_split_gives_the_whole_verdict(cut: int) -> None:
    whole = detect(_EXEC, dialect="chatml", tools=["exec"])
    verdict, release = streamed(_EXEC, cut, "text", "chatml", tools=frozenset({"exec"}))
    assert verdict == whole and whole.leak and release == whole.cut == _EXEC.index("<")


# --- D and L: a self-check, the model narrating its thinking -----------------------------------

_SELF_CHECK = (
    "I renamed `fetchUser` in the three call sites. The user wants the rename everywhere, so I"
    " should also check the tests. Did I miss the mock? Yes, one more there.\n\nAll four"
    " references now use `loadUser`."
)


def test_a_self_check_in_a_cluster_of_reasoning_cues_trips_d() -> None:
    v = detect(_SELF_CHECK, dialect="kimi")
    assert v.leak and v.signals == ("D",), v.explain()
    assert "self-check 'Did I miss the mock? Yes'" in v.hits[0].detail
    assert v.cut == _SELF_CHECK.index("Did I")


@pytest.mark.parametrize(
    "text",
    [
        "Do I need a GPU? No, the CPU build works.",  # a FAQ asks in the present
        "Did I miss anything? Let me know.",  # not answered
        "Have I covered the question? Yes, I think so.",  # one cue alone
    ],
)
def test_self_check_near_misses_pass(text: str) -> None:
    assert not detect(text, dialect="kimi").leak, text


@pytest.mark.parametrize("cut", range(1, len(_SELF_CHECK), 5))
def test_a_self_check_every_split_gives_the_whole_verdict(cut: int) -> None:
    whole = detect(_SELF_CHECK, dialect="kimi")
    verdict, release = streamed(_SELF_CHECK, cut, "text", "kimi")
    assert verdict == whole and release == whole.cut


_ALOUD = (
    "I'm looking at the weather tool output now. It says 18 degrees and light rain, which"
    " matches the forecast the user mentioned. I should confirm and suggest an umbrella"
)


def test_an_answer_that_narrates_its_thinking_about_the_user_trips_l() -> None:
    v = detect(_ALOUD, dialect="gemma")
    assert v.leak and v.signals == ("L",), v.explain()
    assert "thinking aloud" in v.hits[0].detail and v.cut == 0


@pytest.mark.parametrize(
    "text",
    [
        "I'm looking at the logs now. The failing test is in parser.py; I'll fix the import.",
        "I'm checking the config. It sets the timeout to 30 seconds, which stops the job.",
        "I'm looking forward to it. The user guide has the details.",
        "**Fixing the bug**\n\nI've updated the parser.\n\n**Testing**\n\nI've run the suite.",
        "**Choosing a database**\n\nI've decided to go with Postgres: it handles JSON well.",
    ],
)
def test_an_agent_reporting_its_work_passes(text: str) -> None:
    assert not detect(text, dialect="chatml").leak, text


# --- P: bracket-tag pairs, a tag's opening spelling closed right away --------------------------


@pytest.mark.parametrize(
    ("value", "dialect", "leak"),
    [
        (
            "Magistral wraps its reasoning in [THINK] ... [/THINK]; then the answer",
            "mistral",
            False,
        ),
        ("ls [THINK]", "mistral", True),  # no closer after it
        ("ls\n[/THINK]", "mistral", True),  # no opener before it
        ("a word like <parameter> in your notes is just text.", "anthropic", False),
        ("<parameter> and more", "anthropic", True),  # no word before it
    ],
)
def test_argument_tokens_quoted_as_data(value: str, dialect: str, leak: bool) -> None:
    args = json.dumps({"content": value})
    v = detect(args, surface="tool_arg", dialect=dialect, tools=["write_file"])
    assert v.leak is leak, v.explain()


# --- J: a call object with a type, an id or an input ------------------------------------------


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        ('{"type": "function", "name": "Bash", "parameters": {"command": "ls"}}', ["Bash"]),
        (
            'Updating.\n\n{"type":"tool_use","id":"toolu_1","name":"brief","input":{"a":["b"]}}',
            ["brief"],
        ),
    ],
)
def test_a_typed_call_object_of_a_declared_tool_trips(text: str, tools: list[str]) -> None:
    v = detect(text, dialect="anthropic", tools=tools)
    assert v.leak and v.signals == ("J",) and v.cut == text.index("{"), v.explain()


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        ('{"type": "person", "name": "Bob", "input": {"a": 1}}', None),  # data, no tools
        ('{"type": "person", "name": "Bob", "input": {"a": 1}}', ["search"]),  # undeclared
        ('{"kind": "x", "name": "Bash", "input": {"a": 1}}', ["Bash"]),  # another key first
    ],
)
def test_typed_call_near_misses_pass(text: str, tools: list[str] | None) -> None:
    assert not detect(text, dialect="anthropic", tools=tools).leak, text


# --- H: a spelling with a quote, as JSON escapes it -------------------------------------------


def test_gemmas_string_delimiter_escaped_in_a_tool_argument_trips() -> None:
    args = '{"location": "<|\\"|>hanoi<|\\"|>"}'
    v = detect(args, surface="tool_arg", dialect="gemma", tools=["get_weather"])
    assert v.leak and v.signals == ("H", "P") and v.cut == args.index("<|"), v.explain()
    assert not detect('{"location": "hanoi"}', surface="tool_arg", dialect="gemma").leak


@pytest.mark.parametrize("cut", range(1, len('{"q": "<|\\"|>x"}')))
def test_an_escaped_delimiter_every_split_gives_the_whole_verdict(cut: int) -> None:
    args = '{"q": "<|\\"|>x"}'
    whole = detect(args, surface="tool_arg", dialect="gemma")
    monitor = SurfaceMonitor(Surface.TOOL_ARG, get_dialect("gemma"), DEFAULT_POLICY)
    monitor.feed(args[:cut])
    monitor.feed(args[cut:])
    assert monitor.finish() == whole and whole.leak


def test_a_placeholder_far_from_the_token_does_not_quote_it() -> None:
    value = "print(f'{name}')" + " # pad" * 60 + " <|tool_call_end|>"
    args = json.dumps({"content": value})
    v = detect(args, surface="tool_arg", dialect="kimi", tools=["write_file"])
    assert v.leak and "P" in v.signals, v.explain()


def test_an_answers_own_yes_is_not_held_by_the_self_check() -> None:
    text = "Does it stream? Yes. It sends one chunk per token, and it "
    monitor = SurfaceMonitor(Surface.TEXT, get_dialect("kimi"), DEFAULT_POLICY)
    monitor.feed(text)
    assert monitor.release > text.index("It sends")  # shown while the stream goes on
    held = "I renamed it. Did I miss the mock? Yes, one more there. "
    monitor = SurfaceMonitor(Surface.TEXT, get_dialect("kimi"), DEFAULT_POLICY)
    monitor.feed(held)
    assert monitor.release <= held.index("Did I")  # a self-check may still become D's hit
