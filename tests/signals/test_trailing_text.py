"""Z: on ``tool_arg``, prose or a second object written after the arguments' JSON ends.
Positives, near misses (stray characters, the same words inside a string, arguments another
boundary reads, other surfaces) and every chunk split."""

from __future__ import annotations

import json

import pytest
from support.splits import monitored

from guard import detect

REASONING = '{"query": "TO-DO", "limit": 10}\n\nI\'ll now search the memory store for the items.'
RUN_ON = '{"path": "src/server/app.py"}We need to read the file and then explain the routing.'
SECOND = '{"command": "cat a.java", "workdir": "D:\\\\w"}{"command": "'
TAIL = '", "arguments": {"city": "Paris", "unit": "celsius"}}'
OBSERVED = '{"a": 3, "b": 4}\nObservation: 36'
CLOSED = '{"search_instruction": "protests in Nepal"}</function_call>##ANSWER##'


@pytest.mark.parametrize("text", [REASONING, RUN_ON, SECOND, OBSERVED, CLOSED])
@pytest.mark.parametrize("dialect", ["chatml", "glm", "deepseek", "all"])
def test_text_after_the_arguments_trips(text: str, dialect: str) -> None:
    v = detect(text, surface="tool_arg", dialect=dialect)
    assert v.leak and "Z" in v.signals, v.reason
    after = text.index("}") + 1
    assert v.cut == after + len(text[after:]) - len(text[after:].lstrip())


@pytest.mark.parametrize(
    "text",
    [
        '{"path": "a.txt"}}',  # a stray brace
        '{"path": "a.txt"}\n',
        '{"path": "a.txt"} ok',  # not a sentence
        json.dumps({"text": "} We need to read the file and then explain the routing."}),
        json.dumps({"content": "fn main() {}\nThe end of the file is here."}),
        '{"path": "a.txt"}\n\nthe lower-case words after it',
        json.dumps({"note": "} Observation: 36"}),  # inside a string
        '{"html": "<b>x</b>"}</div>',  # a tag that closes no call
        '{"html": "<b>x</b>"}</',  # no tag's name
        json.dumps({"q": "a}</antml"}),  # inside a string
        # a string cut short with a tag in it; a tag that begins no call's closer (review 52)
        '{"path": "a.jsx", "content": "const L = () => <ul>{items.map(i => <li key={i}>{i}</li',
        '{"a": 1}</xs:element',
        '{"a": 1}</di',
        json.dumps({"q": "a}</invoke>"}),  # inside a string
        '{"path": "a.txt"}\nObservation',  # no label's colon, one word
        "@src/main.rs\n12:fn main() {\n14:}\nRTLU to=functions.edit code",  # no JSON key
    ],
)
def test_near_misses_pass(text: str) -> None:
    v = detect(text, surface="tool_arg", dialect="chatml")
    assert "Z" not in v.signals, v.reason


@pytest.mark.parametrize("surface", ["text", "thinking"])
def test_only_tool_arguments_count(surface: str) -> None:
    assert "Z" not in detect(TAIL, surface=surface, dialect="chatml").signals
    assert "Z" not in detect(RUN_ON, surface=surface, dialect="chatml").signals


@pytest.mark.parametrize(
    "text",
    [
        TAIL,
        '"get_weather", "arguments": {"city": "Paris"}}',
        'weather", "parameters": {"city": "Paris"}}',
        '  ",\n"arguments": "{\\"city\\": \\"Paris\\"}"}',
    ],
)
@pytest.mark.parametrize("dialect", ["chatml", "llama3", "all"])
def test_the_tail_of_a_calls_envelope_as_the_arguments_trips(text: str, dialect: str) -> None:
    v = detect(text, surface="tool_arg", dialect=dialect, tools=["get_weather"])
    assert v.leak and "Z" in v.signals, v.reason
    assert text[v.cut :].startswith(("arguments", "parameters")), v.cut


@pytest.mark.parametrize(
    ("text", "after"),
    [
        ('{"function="edit_file", "path="dag/graph.py", "old_string="x"}}', "edit_file"),
        ('{"function=webfetch","arguments":{"url":"https://example.com"}}', ","),
        ('  { "parameter=path": "a.py"', ":"),
    ],
)
@pytest.mark.parametrize("dialect", ["qwen3_coder", "chatml", "all"])
def test_the_calls_frame_as_the_first_key_trips(text: str, after: str, dialect: str) -> None:
    v = detect(text, surface="tool_arg", dialect=dialect, tools=["edit_file", "webfetch"])
    assert v.leak and "Z" in v.signals, v.reason
    assert text[v.cut :].startswith(after), v.cut


@pytest.mark.parametrize(
    "text",
    [
        '{"function=x": 1}',  # valid JSON: the parse boundary holds it
        json.dumps({"path": "a.py", "note": "function=edit_file"}),  # a value
        json.dumps({"expr": '"function=f"'}),  # not the first key
        '{"functional": "yes", "x": 1}',
    ],
)
def test_a_frame_spelling_elsewhere_is_no_frame(text: str) -> None:
    assert "Z" not in detect(text, surface="tool_arg", dialect="qwen3_coder").signals


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({"note": '", "arguments": {"city": "Paris"}}'}),  # inside a string
        '["get_weather", "arguments"]',  # a list of words
        '{"name": "get_weather", "arguments": {"city": "Paris"}}',  # a whole envelope
        '"a long sentence", "arguments": {}',  # a value with blanks, not a name
    ],
)
def test_an_envelope_key_elsewhere_is_no_tail(text: str) -> None:
    assert "Z" not in detect(text, surface="tool_arg", dialect="chatml").signals


@pytest.mark.parametrize(
    "text", [REASONING, RUN_ON, SECOND, TAIL, '{"path": "a.py"}\n</antml', '{"q": "a}</antml"}']
)
def test_every_split_gives_the_whole_verdict(text: str) -> None:
    whole = detect(text, surface="tool_arg", dialect="chatml")
    for cut in range(1, len(text)):
        verdict, _ = monitored(text, cut, "tool_arg", "chatml")
        assert (verdict.leak, verdict.signals) == (whole.leak, whole.signals), cut


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ('{"search_instruction": "Nepal"}}</function_call>##ANSWER##', "</function_call>"),
        ('{"city": "Paris"}\nObservation: {"temp": 20, "sky": "clear"}', "Observation:"),
        ('{"city": "Paris"}\nObservation: {"t": 20}\nThought: Rome too\nAction: x', "Observation:"),
        # the envelope's closing tag cut short, or a call's closer under a namespace (heldout36)
        ('{"file_path": "tests/test_date.py"}</antml', "</antml"),
        ('{"query": "sanitize", "max_results": 5}\n</antml', "</antml"),
        ('{"query": "x"}</minimax:tool_call>', "</minimax:tool_call>"),
        ('{"query": "x"}</invo', "</invo"),
        ('{"query": "x"}</minimax:tool_ca', "</minimax:tool_ca"),
        # Grok's closer, whole or cut; a namespaced closer with words after it (review 52b)
        ('{"path": "a.py", "limit": 10}</xai:function_call>', "</xai:function_call>"),
        ('{"path": "a.py"}</xai:function_ca', "</xai:function_ca"),
        ('{"a": 1}</minimax:invoke> Done.', "</minimax:invoke>"),
    ],
)
def test_a_closing_tag_or_a_react_step_after_the_last_object_trips(text: str, cut: str) -> None:
    v = detect(text, surface="tool_arg", dialect="chatml")
    assert v.leak and "Z" in v.signals and text[v.cut :].startswith(cut), v.reason


# --- arguments that open with empty objects (heldout34) ----------------------------------------

EMPTY_FIRST = '{}{}{"query": "news today", "searchEngines": ["google"]}'


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        (EMPTY_FIRST, '{"query"'),
        ('{} {"path": "a.py"}', '{"path"'),
    ],
)
@pytest.mark.parametrize("dialect", ["chatml", "qwen3_coder", "anthropic", "all"])
def test_empty_objects_before_the_arguments_trip(text: str, cut: str, dialect: str) -> None:
    v = detect(text, surface="tool_arg", dialect=dialect)
    assert v.leak and "Z" in v.signals and text[v.cut :].startswith(cut), v.reason


@pytest.mark.parametrize(
    "text",
    [
        "{}",
        "[{}, {}]",
        '{"items": [{}, {}], "n": 2}',
        json.dumps({"code": "x = {}\n{}", "note": "{} {"}),  # inside strings
        "print({}); {'a': 1}",  # no object first
        "{}[1, 2]",  # an array after it: no object glued on
        "{}{}",  # nothing real after them (review 51)
        '{}\n{"a": 1}',  # JSON Lines (review 51)
    ],
)
def test_empty_objects_elsewhere_pass(text: str) -> None:
    v = detect(text, surface="tool_arg", dialect="chatml")
    assert "Z" not in v.signals, v.reason


@pytest.mark.parametrize("text", [EMPTY_FIRST])
def test_every_split_of_the_opening_forms_gives_the_whole_verdict(text: str) -> None:
    whole = detect(text, surface="tool_arg", dialect="chatml")
    assert whole.leak
    for cut in range(1, len(text)):
        verdict, _ = monitored(text, cut, "tool_arg", "chatml")
        assert (verdict.leak, verdict.cut) == (whole.leak, whole.cut), cut


# --- DeepSeek V3's call frame left in the arguments ---------------------------------------------

DS_FRAME = 'convert_currency\n```json\n{"amount": 50, "to": "JPY"}\n```'


@pytest.mark.parametrize(
    ("tool_name", "tools"),
    [("function", ["convert_currency"]), ("convert_currency", None)],
)
def test_deepseeks_call_frame_as_the_arguments_trips(
    tool_name: str, tools: list[str] | None
) -> None:
    v = detect(DS_FRAME, surface="tool_arg", dialect="deepseek", tool_name=tool_name, tools=tools)
    assert v.leak and "Z" in v.signals and v.cut == 0, v.reason


@pytest.mark.parametrize(
    ("text", "tool_name", "tools"),
    [
        ('Title\n```json\n{"a": 1}\n```', "write_file", None),  # a document's first line
        (DS_FRAME, "function", ["other"]),  # names neither this tool nor a declared one
        ('{"content": "convert_currency\\n```json\\n{}\\n```"}', "write_file", None),  # a value
    ],
)
def test_other_fenced_json_in_arguments_passes(
    text: str, tool_name: str, tools: list[str] | None
) -> None:
    v = detect(text, surface="tool_arg", dialect="deepseek", tool_name=tool_name, tools=tools)
    assert "Z" not in v.signals, v.reason
