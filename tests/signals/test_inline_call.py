"""Y: with declared tools, a call of one of them written inside the answer (a JSON call object
with its keys in any order, alone or nested; a bracketed call record; Gemini's
``default_api.NAME(...)``; a Harmony header's ``to=functions.NAME json`` with its arguments).
Positives, near misses (undeclared names, no arguments, code, data, the reasoning part,
without declared tools), J's own finding left to J, and every chunk split."""

from __future__ import annotations

import json
from collections.abc import Iterable

import pytest
from support.splits import assert_every_split, monitored, relayed

from guard import detect

TOOLS = frozenset(
    {
        "HassClimateSetTemperature",
        "calendar_update",
        "read",
        "search_web",
        "exec_command",
        "memory_search",
        "searchReddit",
    }
)

MID_JSON = (
    'Okay, the kitchen is cooler now. {"name": "HassClimateSetTemperature", "arguments":'
    ' {"temperature": 20}} Anything else?'
)
RECORD = (
    'I checked the calendar. [Tool Call: calendar_update] Arguments: {"event_id": "evt_42"}'
    " That should fix it."
)
NESTED = (
    "Let me check the test setup first.\n"
    '{"thought": "vitest config decides it", "call": {"name": "read", "args": {"path": "v.ts"}}}'
)
API = 'thought: the user wants news\ncall: default_api.search_web(query="top news", max_results=5)'
HEADER = 'Running the linter now.\nto=functions.exec_command json\n{"cmd": "npm run lint"}'
CHANNEL = 'Tests passed.\n\nto=functions.exec_command commentary json {"cmd": "date +%s"}'
REVERSED = '{"arguments": {"query": "meeting notes"}, "name": "memory_search"}'
CALLING = 'Let me search. [Calling tool: searchReddit({"query": "pricing", "limit": 10})]'
STRING_ARGS = 'Sure. {"tool": "read", "input": "{\\"path\\": \\"a.py\\"}"} then I summarise.'
CALLED = '[Called function "memory_search" with args: {"query": "train times Zurich Bern"}]'
SDK_CALL = (
    "I'll look at it next.\n"
    '{"type":"tool-call","toolCallId":"call_7f3a","toolName":"read","args":{"path":"a.ts"}}'
    " then more"
)
SDK_RESULT = (
    '{\n  "type": "tool-result",\n  "toolCallId": "call_7f3a",\n  "toolName": "memory_search",'
    '\n  "result": "3 matches"\n}\nGood, three call sites.'
)
NOTE = (
    '[SYSTEM: Tool read was previously called and returned: {"content": "export f"}]\n'
    "The helper already handles it."
)
LM_STUDIO = (
    'Here is the result:\n[TOOL_REQUEST]\nsearch_web {"q": "news"}\n[END_TOOL_REQUEST]\nMore.'
)
REACT = (
    "To answer the question, I need to search first.\n\nAction: search_web\n"
    'Action Input: {"query": "solid-state batteries"}'
)
REACT_AFTER = (
    "Final Answer: The report is attached.\n\nThought: I should double check.\n"
    "Action: **read**\nAction Input: a.py\n\nDone."
)

LISTED = '[read(path="a.py")]\nI called read(path="a.py") and will report back.'
CALL_LINE = 'I\'ll fetch it now.\n\nCalling search_web(query="news", limit=5)…'
CALL_LINES = "I'll update the exporter now.\n\ncall read.\ncall read.\ncall memory_search.\nDone."
CALL_BARE = 'I need your preference first.\n\ncall\n[{"question": "Which env?", "header": "Env"}]'
#: Gemini's code form with no arguments, its fence's backticks stripped (heldout35)
API_EMPTY = "Hi there, nice to meet you!\ntool_codeprint(default_api.search_web())"
FUNCTION_STEP = 'Function: search_web\nArguments: {"query": "news", "recursive": false}'
LISTED_TWO = 'Checking both.\n[search_web(query="news"), read()]\nThen I summarise.'

#: every form Y reads, as whole texts (the stream tests below split each of them too)
POSITIVES = [
    MID_JSON,
    RECORD,
    NESTED,
    API,
    HEADER,
    CHANNEL,
    REVERSED,
    CALLING,
    STRING_ARGS,
    CALLED,
    REACT,
    REACT_AFTER,
    SDK_CALL,
    SDK_RESULT,
    NOTE,
    LM_STUDIO,
    LISTED,
    LISTED_TWO,
    CALL_LINE,
    FUNCTION_STEP,
    CALL_LINES,
    CALL_BARE,
    API_EMPTY,
    "call read.\nThe file has 20 lines.",  # the header opening the text
    CALL_BARE.replace("\n", "\r\n"),  # CRLF line ends
]


@pytest.mark.parametrize("text", POSITIVES)
@pytest.mark.parametrize("dialect", ["chatml", "gemini", "harmony", "all"])
def test_a_declared_call_inside_the_answer_trips(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect, tools=TOOLS)
    assert v.leak and "Y" in v.signals, v.reason


def test_the_hit_is_the_call_object_and_the_cut_its_start() -> None:
    v = detect(MID_JSON, dialect="llama3", tools=TOOLS)
    hit = next(h for h in v.hits if h.code == "Y")
    assert hit.evidence.startswith('{"name"') and hit.evidence.endswith("}}")
    assert v.cut == MID_JSON.index("{")


def test_the_nested_call_is_the_inner_object() -> None:
    v = detect(NESTED, dialect="gemini", tools=TOOLS)
    hit = next(h for h in v.hits if h.code == "Y")
    assert hit.evidence.startswith('{"name": "read"')


@pytest.mark.parametrize(
    "text",
    [
        MID_JSON.replace("HassClimateSetTemperature", "SetTemp"),  # not a declared tool
        RECORD.replace("calendar_update", "calendar_delete"),
        CALLED.replace("memory_search", "web_search"),
        "The log shows [Called function memory_search] for each call.",  # no arguments after it
        "See [Using tool memory_search with arguments](https://x.example/t#a) for details.",
        "The trace reads: [Calling function memory_search with arguments omitted for brevity].",
        API.replace("search_web", "search_news"),
        HEADER.replace("exec_command", "shell"),
        'The user is {"name": "read", "role": "admin"} in the table.',  # no arguments key
        'Config: {"name": "read", "arguments": 3} is wrong.',  # arguments not an object
        'Config: {"name": "read", "arguments": "ls -la"} is wrong.',  # a string, not an object
        'The call is `{"name": "read", "args": {"path": "a"}}` in the docs.',  # code
        '```json\n{"name": "read", "args": {"path": "a"}}\n```\nThat is the shape.',
        "The interface prints [Tool Call: NAME] lines.",  # no declared name
        "Use default_api.search_web without arguments.",  # no call
        "default_api.search_web() takes no arguments here.",  # empty call
        "print(default_api.search_web() + 1)",  # an empty call in an expression
        # inside a sentence, or introduced (review 52)
        "To check it, run print(default_api.search_web()) and look at the output.",
        "Try this in the code cell:\nprint(default_api.search_web())",
        "Use the check like this\nprint(default_api.search_web())",
        "to=functions.exec_command is the header's recipient.",  # no arguments after it
        REACT.replace("search_web", "search_news"),  # not a declared tool
        "Use this format:\nAction: search_web\nAction Input: the query",  # introduced: a sample
        "```\nAction: search_web\nAction Input: {}\n```",  # code
        "Action: the action to take, one of [search_web]\nAction Input: the input",  # template
        "Action: search_web\n\nThat is the tool I would use.",  # no Action Input line
        "Action: search_web\nAction Input:",  # no input yet
        # a step introduced by a colon, past its Thought line, is a sample
        "Here's what the trace looked like:\n\nThought: I need it.\nAction: read\nAction Input: x",
        SDK_CALL.replace('"toolName":"read"', '"toolName":"write"'),  # not a declared tool
        SDK_RESULT.replace("memory_search", "web_fetch"),
        '{"type": "tool-result", "toolName": "read", "result": "x", "kind": 1} as data',  # data
        "[SYSTEM: Tool write was called and returned: ok]",  # not a declared tool
        "The note [SYSTEM: Tool read returned ok] sits mid-line.",  # not a line's start
        "```\n[TOOL_REQUEST]\nsearch_web {}\n[END_TOOL_REQUEST]\n```",  # code
        "[TOOL_REQUEST] is LM Studio's marker.",  # no call after it
        LISTED.replace("[read(", "[write("),  # not a declared tool
        'Call it like this:\n[read(path="a.py")]\nThat is all.',  # introduced: a sample
        'Use [read(path="a.py")] in your agent.',  # inside a sentence
        '[read(path="a.py")] is the list form.',  # the line goes on
        "[read(p) for p in paths]\nok",  # a comprehension, no keyword argument
        '```\n[read(path="a.py")]\n```\nok',  # code
        # an agent's log line quoted, a pipeline's stages (review 48): no result form
        'Looking at the trace, the second step was\n[read] -> {"error": "not found"}\nso fix it.',
        "The pipeline is simple.\n[search_web] -> [read] -> [memory_search]\nEach stage is async.",
        'x = read(path="a.py")\nok',  # an assignment: code
        'read(path="a.py") returns the file as text.',  # the line goes on
        "Calling read(a.py) now",  # no keyword argument, and the line goes on
        # a bare call on its line is code shown without a fence as often (review 48)
        'read(path="a.py")\nThen I summarise the file.',
        'Finally, start it.\nsearch_web(query="x", limit=5)\nIt listens on all interfaces.',
        'Example usage\n\n    Calling read(path="a.py")\n\nreturns the text.',  # a code block
        # a tool list describing parameters, not a call (review 48)
        "I have two tools.\n\nTool: search_web\nParameters: query (string, required)",
        "**Function:** `search_web`\n**Parameters:** `query`, the words.\n**Returns:** hits.",
        'Function: search_web\nParameters: {"type": "object", "properties": {"query": {}}}',
        'Usage:\nread(path="a.py")\nThat is all.',  # introduced: a sample
        "Function: search_web\nAction Input: x",  # the labels of two protocols
        "Action: search_web\nArguments: x",
        "Function: search_web\nReturns the top results.",  # a description
        'The API:\nFunction: search_web\nArguments: {"query": "x"}',  # introduced: a sample
        "You can call read. It returns text.",  # a sentence
        "Options:\ncall\ntext\nemail",  # a list of words
        "Then\ncall mom.",  # not a declared tool
        "Steps:\ncall read.\n",  # introduced: a sample
        # a sentence run on to the line, a sample under a heading (review 48b)
        "To trigger the hook, you'd\ncall read.\nThat's it.",
        'The JSON-RPC request looks like this\n\ncall\n{"jsonrpc": "2.0"}',
        'Verbs of the CLI\n\nput\nget\ncall\n{"id": 3} is sent as the body.',
        "call me maybe",
    ],
)
def test_near_misses_pass(text: str) -> None:
    v = detect(text, dialect="chatml", tools=TOOLS)
    assert "Y" not in v.signals, v.reason


@pytest.mark.parametrize("text", [MID_JSON, RECORD, NESTED, API, HEADER, REVERSED])
def test_without_declared_tools_it_is_silent(text: str) -> None:
    assert "Y" not in detect(text, dialect="chatml").signals


@pytest.mark.parametrize("text", [MID_JSON, RECORD, NESTED])
def test_the_reasoning_part_drafts_calls(text: str) -> None:
    assert "Y" not in detect(text, surface="thinking", dialect="chatml", tools=TOOLS).signals


def test_a_call_by_its_name_ending_the_text_is_fs_finding() -> None:
    v = detect('read(path="a.py")', dialect="chatml", tools=TOOLS)
    assert v.signals == ("F",), v.reason
    v = detect('Calling read(path="a.py")…', dialect="chatml", tools=TOOLS)
    assert v.signals == ("Y",), v.reason


def test_a_call_ending_the_text_in_js_form_is_js_finding() -> None:
    text = 'Checking.\n{"name": "read", "arguments": {"path": "a.py"}}'
    v = detect(text, dialect="chatml", tools=TOOLS)
    assert v.leak and "J" in v.signals and "Y" not in v.signals


def test_a_records_type_reads_any_case() -> None:
    for text in (
        'x\n{"type": "TOOL-RESULT", "toolName": "read", "result": "ok"}\nok',
        'x {"Type": "Tool_Call", "Name": "read", "Args": {"p": 1}} more',
    ):
        assert "Y" in detect(text, dialect="chatml", tools=TOOLS).signals, text


def test_the_record_reads_any_case() -> None:
    for word in ("TOOL CALL", "tool_call", "Function call", "Using tool", "Called tool"):
        text = f"Fine. [{word}: read] path=a.py"
        assert "Y" in detect(text, dialect="chatml", tools=TOOLS).signals, word


# --- streams ---------------------------------------------------------------------------------

STREAMED = [
    *POSITIVES,
    "Done.\nAction: read\nAction Input: a.py\nThen I will summarise it in the usual format.",
    'The user is {"name": "read"}.',
]


@pytest.mark.parametrize("text", STREAMED)
def test_every_split_gives_the_whole_verdict(text: str) -> None:
    whole = detect(text, dialect="chatml", tools=TOOLS)
    for cut in range(1, len(text)):
        verdict, _ = monitored(text, cut, "text", "chatml", tools=TOOLS)
        assert (verdict.leak, verdict.signals) == (whole.leak, whole.signals), cut


@pytest.mark.parametrize("text", [MID_JSON, RECORD])
def test_a_stream_cuts_what_follows_the_call(text: str) -> None:
    whole = detect(text, dialect="chatml", tools=TOOLS)
    end = next(h for h in whole.hits if h.code == "Y").end
    for cut in range(1, len(text), 7):
        out, stream = relayed([text[:cut], text[cut:]], "chatml", tools=TOOLS)
        assert out == text[: len(out)] and len(out) <= end, cut
        assert any(v.leak for v in stream.verdicts), cut


# --- from the stop's hostile review ------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        'x {"name": "read", "arguments": ' + "[" * 1000,
        'ok {"name": "read", "arguments": "' + "[" * 5000 + '"} done',
    ],
)
def test_deep_nesting_is_no_error(text: str) -> None:
    v = detect(text, dialect="chatml", tools=TOOLS)
    assert "Y" not in v.signals
    out, _ = relayed([text[:100], text[100:]], "chatml", tools=TOOLS)
    assert out.startswith(text[:10])


@pytest.mark.parametrize(
    "text",
    [
        # a tool's definition names its parameters as a JSON Schema
        'It is defined as {"name": "read", "parameters": {"type": "object", "properties":'
        ' {"path": {"type": "string"}}, "required": ["path"]}} in the request.',
        'Tools: {"type": "function", "function": {"name": "read", "parameters": {"type":'
        ' "object", "properties": {}}}} is what the server sent.',
        # an example the answer introduces with a colon
        'Call it like this:\n{"tool": "read", "args": {"path": "a.py"}}\nThat is all.',
        # a Markdown link that reads like a record
        "See [Function call: read](https://example.com/docs) for the format.",
    ],
)
def test_definitions_examples_and_links_pass(text: str) -> None:
    v = detect(text, dialect="chatml", tools=TOOLS)
    assert "Y" not in v.signals, v.reason


@pytest.mark.parametrize(
    "text",
    [
        'Sure. {"name": "functions.read", "arguments": {"path": "a"}} Anything else?',
        'Sure. {"action": "read", "action_input": {"path": "a"}} Anything else?',
        'Sure. {"tool": "read", "tool_input": {"path": "a"}} Anything else?',
        'Sure. {"name": "read", "arguments": {"path": "a"}, "thought": "need it"} Next?',
        'Reading.\r\nto=functions.read\r\n{"path": "a"}',
        'Reading.\nto=functions.read json\n\n{"path": "a"}',
        "Fine. [Tool: read] path=a.py",
        "Fine. [Tool Call - read] path=a.py",
        "Fine. [Tool Call: `read`] path=a.py",
        "Fine. [Executing tool: read] path=a.py",
        "Fine. [Invoking tool: read] path=a.py",
        'Fine. [Tool Call: read{"path": "a"}]',
        # review 47b: a word near a real ReAct step is no sample; what follows a step is not read
        "Sure, I can print that report for you.\nThought: need data\nAction: read\nAction Input: a",
        "Let me check the parser config.\nAction: read\nAction Input: config.yaml",
        "Done.\nAction: read\nAction Input: a.py\nThen I will summarise it in the usual format.",
        "**Action:** read\n**Action Input:** a.py\n\nThat's the format the parser reads.",
    ],
)
def test_close_variants_trip(text: str) -> None:
    v = detect(text, dialect="chatml", tools=TOOLS)
    assert v.leak and "Y" in v.signals, v.reason


# --- forms decided at the end: a fenced call as the whole answer, a call cut short -------------

FENCED = '```json\n{"name": "read", "parameters": {"path": "a.py"}}\n```'
COHERE = 'Action: ```json\n[\n  {"tool_name": "read", "parameters": {"path": "a.py"}}\n]\n```'
CUT = '<TOOLCALL>[{"name": "read", "arguments": {"pa'
FENCED_XML = (
    'I\'ll search for that.\n```xml\n<function_calls>\n<invoke name="search_web">\n'
    '<parameter name="query">rust async</parameter>\n</invoke>\n</function_calls>\n```'
)
FENCED_TAG = (
    'I\'ll read it.\n```\n<tool_call>\n{"name": "read", "arguments": {"p": 1}}\n</tool_call>\n```'
)


@pytest.mark.parametrize(
    "text", [FENCED, COHERE, CUT, 'Sure. {"name": "read", "args": {"p', FENCED_XML, FENCED_TAG]
)
def test_a_fenced_whole_answer_or_a_cut_call_trips(text: str) -> None:
    v = detect(text, dialect="chatml", tools=TOOLS)
    assert v.leak and "Y" in v.signals, v.reason
    assert "Y" not in detect(text, dialect="chatml").signals  # tools unknown


@pytest.mark.parametrize(
    "text",
    [
        "Here is the call:\n" + FENCED,  # prose around the fence: code shown
        FENCED + "\nThat is the shape.",
        '```json\n{"name": "read", "parameters": {"type": "object", "properties": {}}}\n```',
        '```json\n{"name": "write", "parameters": {"path": "a.py"}}\n```',  # undeclared
        'Sure. {"name": "read", "args": {"p": 1}} and then {',  # not cut: closed
        'Sure. {"name": "read"',  # no arguments begun
        "The format looks like this:\n" + FENCED_XML.split("\n", 1)[1],  # introduced: shown
        # narration that shows the reader a format (review 48)
        "Let me show you the raw request the SDK sends.\n\n" + FENCED_XML.split("\n", 1)[1],
        FENCED_XML.replace("search_web", "web_fetch"),  # not a declared tool
        FENCED_XML.replace("</invoke>\n", "</invoke>\n<note>x</note>\n"),  # more than calls
    ],
)
def test_fenced_and_cut_near_misses(text: str) -> None:
    v = detect(text, dialect="chatml", tools=TOOLS)
    hits = [h for h in v.hits if h.code == "Y"]
    assert not hits or not hits[0].detail.endswith(("fenced call of a declared tool", "at the end"))


def test_hyphens_written_as_underscores_name_the_tool() -> None:
    tools = frozenset({"resolve-library-id"})
    text = 'Checking. {"name": "resolve_library_id", "arguments": {"n": "astro"}} ok'
    v = detect(text, tools=tools)
    assert v.leak and "Y" in v.signals, v.reason


@pytest.mark.parametrize("text", [FENCED, COHERE, CUT, FENCED_XML, FENCED_TAG])
def test_end_forms_every_split(text: str) -> None:
    whole = detect(text, dialect="chatml", tools=TOOLS)
    for cut in range(1, len(text)):
        verdict, _ = monitored(text, cut, "text", "chatml", tools=TOOLS)
        assert (verdict.leak, verdict.signals) == (whole.leak, whole.signals), cut


@pytest.mark.parametrize(
    "text",
    [
        'Sure. {"Name": "read", "Arguments": {"path": "a"}} Anything else?',
        'Sure. {"TOOL": "read", "ARGS": {"path": "a"}} Anything else?',
    ],
)
def test_call_keys_in_any_case_trip(text: str) -> None:
    v = detect(text, dialect="chatml", tools=TOOLS)
    assert v.leak and "Y" in v.signals, v.reason


# --- a fenced call under the API's tool_calls field ------------------------------------------

FENCED_TOOL_CALLS = (
    'I\'ll read it.\n```json\n{"tool_calls":[{"name":"read","input":{"path":"a"}}]}\n```'
)


def test_a_fenced_tool_calls_object_trips() -> None:
    v = detect(FENCED_TOOL_CALLS, dialect="chatml", tools=TOOLS)
    assert v.leak and v.signals == ("Y",), v.reason
    assert v.cut == FENCED_TOOL_CALLS.index("```")


@pytest.mark.parametrize(
    "text",
    [
        'I\'ll read.\n```json\n{"tool_calls": [], "note": "x"}\n```',  # no call, another key
        'Call it like this:\n```json\n{"tool_calls":[{"name":"read","input":{}}]}\n```',
        # Python and XML bodies are not read: a stream could not hold them back
        'Running it now.\n```python\nexec_command("npm test")\n```',
    ],
)
def test_fenced_tool_calls_near_misses_pass(text: str) -> None:
    assert "Y" not in detect(text, dialect="chatml", tools=TOOLS).signals


def test_fenced_tool_calls_every_split_gives_the_whole_verdict() -> None:
    assert_every_split(FENCED_TOOL_CALLS, "text", "chatml", tools=TOOLS)


# --- a fenced call: OpenAI's entries, a <function_call> wrapper, the call opening the answer ---

OPENAI_ENTRY = (
    '```json\n{"tool_calls": [{"type": "function", "function": {"name": "read",'
    ' "arguments": "{\\"path\\": \\"a.py\\"}"}}]}\n```'
)
WRAPPED_CALL = (
    '```xml\n<function_call>\n  {"name": "search_web", "arguments": {"query": "x"}}\n'
    "</function_call>\n```"
)
OPENS_ANSWER = (
    '\n```json\n{"name": "search_web", "arguments": {"query": "MCP history"}}\n```\n\n---\n\n'
    "### Outline for the article\n\n#### 1. Origins\n- Who introduced the protocol and why."
)
TWICE = (
    "Sure. I'll add the file now.\n\n" + OPENAI_ENTRY + "\n\nYou're right, I slipped there. I"
    " should answer with a tool call.\n\nHere is the corrected version:\n\n" + OPENAI_ENTRY
)


@pytest.mark.parametrize(
    "text",
    [
        OPENAI_ENTRY,
        WRAPPED_CALL,
        TWICE,
        # keys in any case, as every other call reader takes them
        OPENAI_ENTRY.replace('"tool_calls"', '"TOOL_CALLS"')
        .replace('"type"', '"Type"')
        .replace('"function": {"name"', '"Function": {"Name"')
        .replace('"arguments"', '"Arguments"'),
        '```json\n{"Name": "read", "Arguments": {"path": "a.py"}}\n```',
    ],
)
def test_more_fenced_call_shapes_trip(text: str) -> None:
    v = detect(text, dialect="chatml", tools=TOOLS)
    assert v.leak and "Y" in v.signals, v.reason
    assert v.cut == text.index("```")
    assert "Y" not in detect(text, dialect="chatml").signals  # tools unknown


@pytest.mark.parametrize(
    "text",
    [
        # the call opening the answer, then more prose: explained in words no list holds
        # (review 59: "`unit` is optional; ...", "is what your model is producing", Chinese)
        OPENS_ANSWER,
        OPENS_ANSWER.split("---")[0] + "`unit` is optional; without it the tool uses Celsius.",
        OPENS_ANSWER.split("---")[0] + "其中 `query` 是搜索词，默认返回五条结果。",
        OPENS_ANSWER.split("---")[0] + "This is the request the agent would send.",
        OPENS_ANSWER.replace("search_web", "web_fetch"),  # not a declared tool
        WRAPPED_CALL.replace("search_web", "web_fetch"),
        # an entry with a key a call has not is data
        OPENAI_ENTRY.replace('"type": "function",', '"type": "function", "status": "done",'),
        # both blocks introduced: samples
        "The tool call looks like:\n\n" + OPENAI_ENTRY + "\n\nor again:\n\n" + OPENAI_ENTRY,
        # a long answer that shows the call in its middle
        "The agent keeps a queue of steps. " * 10 + "\n\n" + WRAPPED_CALL + "\n\nThen it waits.",
    ],
)
def test_more_fenced_call_near_misses_pass(text: str) -> None:
    v = detect(text, dialect="chatml", tools=TOOLS)
    hits = [h for h in v.hits if h.code == "Y"]
    assert not hits or not hits[0].detail.endswith("the model's own"), v.reason


@pytest.mark.parametrize("text", [OPENAI_ENTRY, WRAPPED_CALL, OPENS_ANSWER])
def test_more_fenced_call_shapes_every_split(text: str) -> None:
    assert_every_split(text, "text", "chatml", tools=TOOLS)


# --- an element named after a declared tool (Cline-style text protocol) ----------------------

ELEMENT_TOOLS = frozenset({"read_file", "execute_command"})
ELEMENTS = [
    "<execute_command> npm run build </execute_command>\n\nThe build should pass now.",
    "I'll check.\n<read_file>\n<path>config.json</path>\n</read_file>\nThen I'll edit it.",
]


@pytest.mark.parametrize("text", ELEMENTS)
def test_an_element_call_inside_the_answer_trips(text: str) -> None:
    v = detect(text, dialect="glm", tools=ELEMENT_TOOLS)
    assert v.leak and v.signals == ("Y",), v.reason
    assert v.cut == text.index("<")


@pytest.mark.parametrize(
    "text",
    [
        "Use it like this:\n<read_file><path>a</path></read_file>\nok",  # introduced
        "The <read_file> tool reads </read_file> files.",  # not opening its line
        "<div_box>hi</div_box> and more",  # not a declared tool
        "<readfile>x</readfile> and more",  # no _ or - in the name
        "```xml\n<read_file><path>a</path></read_file>\n```\nThat is the format.",  # code
    ],
)
def test_element_near_misses_pass(text: str) -> None:
    tools = ELEMENT_TOOLS | {"readfile"}
    assert "Y" not in detect(text, dialect="glm", tools=tools).signals


@pytest.mark.parametrize("text", ELEMENTS)
def test_element_every_split_gives_the_whole_verdict(text: str) -> None:
    assert_every_split(text, "text", "glm", tools=ELEMENT_TOOLS)


#: Cline's text protocol with other tools declared: the model writes it instead of calling
PROTOCOL = [
    "<execute_command>\n  <command>cat ci.yml</command>\n</execute_command>",
    "Let me look.\n\n<read_file><path>tsconfig.json</path></read_file>\n\nThen I'll edit.",
    "Let me look at the config.\n\n<read_file>\n  <path>tsconfig.json</path>\n",  # cut short
]


@pytest.mark.parametrize("text", PROTOCOL)
def test_clines_text_protocol_with_other_tools_declared_trips(text: str) -> None:
    v = detect(text, dialect="qwen3_coder", tools=["bash", "read", "write"])
    assert v.leak and v.signals == ("Y",), v.reason
    assert v.cut == text.index("<")
    assert_every_split(text, "text", "qwen3_coder", tools=["bash", "read", "write"])


@pytest.mark.parametrize(
    "text",
    [
        PROTOCOL[0].replace("<command>", "cat ").replace("</command>", ""),  # no parameter element
        "Cline's format:\n<read_file>\n<path>a.py</path>\n</read_file>",  # introduced
        "```xml\n<read_file><path>a</path></read_file>\n```",  # code
        "Cut short:\n<user_info>\n  <name>Ann</name>",  # not a protocol tool
        "<read_file>\n  <path>a.json</path>\n  and more text",  # not the end
        # an answer about the protocol shows it unfenced (review 49b)
        "Cline writes calls as XML. For example, to read a file it emits\n\n<read_file>\n"
        "<path>src/main.ts</path>\n</read_file>\n\nThe extension runs it.",
        "In Roo Code, finishing looks like this\n\n<attempt_completion>\n<result>\nDone.\n"
        "</result>\n</attempt_completion>\n\nThe result is shown.",
        "Example from the docs\n<read_file>\n<path>README.md</path>",
        "The model printed the call instead, e.g.\n<execute_command>\n<command>ls</command>\n"
        "</execute_command>\nThis happens when native calls are off.",
    ],
)
def test_clines_text_protocol_near_misses_pass(text: str) -> None:
    assert "Y" not in detect(text, dialect="qwen3_coder", tools=["bash"]).signals


@pytest.mark.parametrize(
    "before",
    ["I'll fix the date format in the helper.", "Per the docs, such as utils.py, check it."],
)
def test_a_coding_agents_own_words_do_not_hide_the_protocol(before: str) -> None:
    text = before + "\n\n<read_file>\n<path>src/utils.py</path>\n</read_file>"
    assert "Y" in detect(text, dialect="qwen3_coder", tools=["bash"]).signals  # review 49c


#: an agent log's line for a call, unbracketed, opening its line (heldout36)
LOGGED = [
    'Calling tool "read" with arguments: {"path": "README"}',
    'Let me check.\nCalling tool read with args: {"path": "a"}\nDone.',
    "Running the tool `memory_search` with input: {}",
]


@pytest.mark.parametrize("text", LOGGED)
def test_a_logged_call_line_trips(text: str) -> None:
    v = detect(text, dialect="gemini", tools=TOOLS)
    assert v.leak and v.signals == ("Y",), v.reason
    assert text[v.cut :].startswith(("Calling tool", "Running the tool"))
    assert_every_split(text, "text", "gemini", tools=TOOLS)


@pytest.mark.parametrize(
    "text",
    [
        'The log shows:\nCalling tool "read" with arguments: {"path": "a"}',  # introduced
        'For example\nCalling tool "read" with arguments: {"path": "a"}',  # a sample
        'Calling tool "write" with arguments: {"path": "a"}',  # not declared
        'Calling tool "read" with arguments omitted.',  # no arguments
        'It printed calling tool "read" with arguments: {"path": "a"}',  # not a line's start
        # quoted from a log, a trace or steps; a line that goes on (review 52)
        'The log shows the loop:\n\nCalling tool "read" with arguments: {"path": "a"}\n'
        'Calling tool "read" with arguments: {"path": "a"}\n\nThe agent never sees it.',
        'Steps to reproduce:\n1. Start it.\nCalling tool "read" with arguments: {}\n2. Hang.',
        'Running tool read with input: {"path": "a"} failed with exit code 2, so I retried.',
        'Calling tool "read" with arguments: {"path": "a"} is what the log prints each time.',
    ],
)
def test_logged_call_line_near_misses_pass(text: str) -> None:
    assert "Y" not in detect(text, dialect="gemini", tools=TOOLS).signals


#: OpenHands' CodeAct protocol with other tools declared: the command inside its element
#: (heldout35)
CODEACT = [
    "I will start by reading the entry point.\n\n<execute_bash>\nread run_agent.py\n"
    "</execute_bash>",
    "Trying once more.\n\n<execute_bash>\nls -F src/\n</execute_bash>\n\nThen I'll look.",
    "<execute_ipython>\nprint(open('a.txt').read())\n</execute_ipython>",
    "<execute_read>\nREADME\n</execute_read>",  # execute_ and a declared tool's name
]


@pytest.mark.parametrize("text", CODEACT)
def test_codeact_protocol_with_other_tools_declared_trips(text: str) -> None:
    v = detect(text, dialect="chatml", tools=["bash", "read"])
    assert v.leak and v.signals == ("Y",), v.reason
    assert v.cut == text.index("<")
    assert_every_split(text, "text", "chatml", tools=["bash", "read"])


@pytest.mark.parametrize(
    "text",
    [
        "In OpenHands the agent writes\n\n<execute_bash>\nls\n</execute_bash>\n\nand waits.",
        "CodeAct agents emit\n<execute_bash>\nls\n</execute_bash>\nwhich the runtime runs.",
        "Run it:\n<execute_bash>\nls\n</execute_bash>",  # introduced
        "```\n<execute_bash>\nls\n</execute_bash>\n```",  # code
        "<execute_write>\nREADME\n</execute_write>",  # write is not declared
        "The <execute_bash> element </execute_bash> holds a command.",  # not opening its line
        # a prompt template or a parser's test: the line before introduces it (review 52)
        "When you need a shell, write\n<execute_bash>\ncommand\n</execute_bash>",
        "The parser now accepts blocks such as\n<execute_bash>\nls\n</execute_bash>",
    ],
)
def test_codeact_protocol_near_misses_pass(text: str) -> None:
    assert "Y" not in detect(text, dialect="chatml", tools=["bash", "read"]).signals


def test_codeact_protocol_without_declared_tools_is_not_read() -> None:
    assert not detect(CODEACT[0], dialect="chatml").leak  # a CodeAct agent's own protocol


def test_clines_text_protocol_without_declared_tools_is_not_read() -> None:
    assert not detect(PROTOCOL[0], dialect="qwen3_coder").leak  # a Cline agent's own protocol


def test_elements_that_end_the_text_are_js_in_every_split() -> None:
    text = "<read_file><path>a.py</path></read_file>\n<execute_command>ls</execute_command>"
    whole = assert_every_split(text, "text", "glm", tools=ELEMENT_TOOLS)
    assert whole.leak and whole.signals == ("J",)


@pytest.mark.parametrize(
    "text",
    [
        "[Note: the tool search_web results may be outdated, so double-check.]",
        "[Context: the user asked which tool search_web returned the best results]",
        'The result part looks like this: {"type": "tool-result", "toolName": "read",'
        ' "result": 1} and you pass it back.',
        'The part looks like {"type":"tool-call","toolName":"read","args":{"q":"x"}} in the SDK.',
    ],
)
def test_notes_and_sdk_records_quoted_as_samples_pass(text: str) -> None:
    v = detect(text, dialect="chatml", tools=TOOLS)
    assert "Y" not in v.signals, v.reason


# --- the forms that depend on the end of the text, longer than a stream's scanning window -----
# Y's fenced call that is the whole answer and its call cut short by the end are its ending part
# (``Detection.ends``): a stream runs them once at the end over the last 2,048 characters, so a
# call longer than the window a monitor scans around a trigger (about 600 characters) is found
# in every split, as ``detect`` finds it.

LONG_BODY = "Dear team, the quarterly numbers are attached. " * 30  # about 1,400 characters


def _long_fenced(body: str) -> str:
    call = {"name": "read", "arguments": {"path": "notes.txt", "note": body}}
    return "```json\n" + json.dumps(call) + "\n```"


LONG_FENCED = _long_fenced(LONG_BODY)
LONG_FENCED_NARRATED = "I'll read the notes now.\n\n" + LONG_FENCED
LONG_CUT = 'Saving it.\n{"name": "read", "arguments": {"path": "notes.txt", "note": "' + LONG_BODY
#: Cline's element cut short by the end, after a long answer: the ending part reads it there
LONG_ELEMENT_CUT = (
    LONG_BODY + "\n\nLet me look at the config.\n\n<read_file>\n  <path>ts.cfg</path>\n"
)


def _same_in_splits(
    text: str, cuts: Iterable[int], dialect: str = "chatml", tools: Iterable[str] = TOOLS
) -> None:
    """Assert that ``text`` cut in two at each of ``cuts`` gets ``detect``'s whole verdict
    (every field: hits, cut, score) from a surface monitor."""
    whole = detect(text, dialect=dialect, tools=tools)
    for cut in cuts:
        verdict, _ = monitored(text, cut, "text", dialect, tools=tools)
        assert verdict == whole, cut


def _cuts(text: str) -> list[int]:
    """Cuts spread over the text, and every cut around the scanning window's edge."""
    return sorted({*range(1, len(text), 47), *range(560, min(len(text), 700), 3)})


@pytest.mark.parametrize("text", [LONG_FENCED, LONG_FENCED_NARRATED, LONG_CUT])
def test_long_end_forms_are_found_in_every_split(text: str) -> None:
    assert len(text) > 1200
    whole = detect(text, dialect="chatml", tools=TOOLS)
    assert whole.leak and whole.signals == ("Y",), whole.reason
    _same_in_splits(text, _cuts(text), "chatml", TOOLS)


def test_a_cut_element_after_a_long_answer_is_found_in_every_split() -> None:
    tools = frozenset({"bash", "read", "write"})
    whole = detect(LONG_ELEMENT_CUT, dialect="qwen3_coder", tools=tools)
    assert whole.leak and whole.signals == ("Y",), whole.reason
    assert whole.cut == LONG_ELEMENT_CUT.index("<read_file>")
    _same_in_splits(LONG_ELEMENT_CUT, _cuts(LONG_ELEMENT_CUT), "qwen3_coder", tools)


@pytest.mark.parametrize("size", [20, 80])
def test_a_long_fenced_call_in_small_chunks_is_a_leak(size: int) -> None:
    pieces = [LONG_FENCED[i : i + size] for i in range(0, len(LONG_FENCED), size)]
    _, stream = relayed(pieces, "chatml", tools=TOOLS)
    assert [v.leak for v in stream.verdicts] == [True]


def test_a_fenced_call_past_the_reach_is_no_whole_answer_in_either() -> None:
    # the whole answer is longer than 2,048 characters: neither detect nor a stream reads the
    # block as the whole answer, however the text arrives
    text = _long_fenced(LONG_BODY * 2)
    assert len(text) > 2048
    assert "Y" not in detect(text, dialect="chatml", tools=TOOLS).signals
    for cut in range(1, len(text), 97):
        verdict, _ = monitored(text, cut, "text", "chatml", tools=TOOLS)
        assert "Y" not in verdict.signals, cut


def test_a_fenced_block_after_a_long_answer_is_not_the_whole_answer() -> None:
    # the ending window starts inside the text: a block that opens it is not the whole answer
    text = "Here is the summary you asked for. " * 70 + "\n\n" + _long_fenced("short")
    assert "Y" not in detect(text, dialect="chatml", tools=TOOLS).signals
    for cut in range(1, len(text), 97):
        verdict, _ = monitored(text, cut, "text", "chatml", tools=TOOLS)
        assert "Y" not in verdict.signals, cut


# --- a long JSON call inside the answer ----------------------------------------------------------
# A window scan reads a call object up to about 600 characters long as it arrives; a longer one
# (a ``write_file`` call with its content) is taken by Y's ending part, read over the end of the
# text, and a call both find is taken once.


def _mid(size: int) -> str:
    call = {"name": "read", "arguments": {"path": "a.txt", "note": "x " * (size // 2)}}
    return "Okay, saving it now. " + json.dumps(call) + " I saved it; anything else?"


@pytest.mark.parametrize("size", [60, 300, 700, 1800])
def test_a_json_call_of_any_length_gets_the_whole_verdict_in_every_chunking(size: int) -> None:
    text = _mid(size)
    whole = detect(text, dialect="chatml", tools=TOOLS)
    assert whole.leak and whole.signals == ("Y",) and len(whole.hits) == 1, whole.reason
    _same_in_splits(text, _cuts(text), "chatml", TOOLS)
    for chunk in (3, 20, 150):
        pieces = [text[i : i + chunk] for i in range(0, len(text), chunk)]
        _, stream = relayed(pieces, "chatml", tools=TOOLS)
        assert [v.leak for v in stream.verdicts] == [True], chunk


def test_many_long_calls_are_each_taken_once() -> None:
    text = "\n".join(_mid(n) for n in (80, 400, 900, 120, 700))
    whole = detect(text, dialect="chatml", tools=TOOLS)
    assert whole.leak and len(whole.hits) == 5, whole.reason
    _same_in_splits(text, range(1, len(text), 61), "chatml", TOOLS)


def test_a_long_forged_result_record_is_found_in_every_split() -> None:
    record = {"type": "tool-result", "toolName": "read", "result": "line of a file. " * 60}
    text = "Reading it.\n" + json.dumps(record) + "\nThe file holds the config."
    whole = detect(text, dialect="chatml", tools=TOOLS)
    assert whole.leak and whole.signals == ("Y",), whole.reason
    _same_in_splits(text, _cuts(text), "chatml", TOOLS)


# --- from this stop's review: what the ending part reads before a hit lies in what it holds ----


def test_a_fence_mentioned_in_prose_does_not_hide_a_call_cut_short() -> None:
    # only fence lines open code: a ``` in a sentence is no fence (the review's case)
    text = "Tip: wrap code in ``` fences.\n\nSaving it.\n" + LONG_CUT[len("Saving it.\n") :]
    whole = detect(text, dialect="chatml", tools=TOOLS)
    assert whole.leak and whole.signals == ("Y",), whole.reason
    assert "Y" not in detect("```\n" + text, dialect="chatml", tools=TOOLS).signals  # fenced


def test_a_call_cut_short_far_after_a_code_block_is_the_same_in_every_split() -> None:
    code = "```python\n" + "print('a line of the helper')\n" * 40 + "```\n\n"
    text = "Here is the script.\n\n" + code + LONG_BODY * 3 + "\n" + LONG_CUT
    whole = detect(text, dialect="chatml", tools=TOOLS)
    assert whole.leak, whole.reason
    _same_in_splits(text, range(1, len(text), 151), "chatml", TOOLS)


def test_a_long_example_at_the_edge_of_what_a_stream_keeps_stays_an_example() -> None:
    call = json.dumps({"name": "read", "arguments": {"path": "a.txt", "note": "x" * 120}})
    head = "Some context first.\nYou can call it yourself like this:\n\n"
    text = head + call + "\nThat is the shape of it.\n" + LONG_BODY * 3
    text = text[: len(head) - 1 + 4096]
    whole = detect(text, dialect="chatml", tools=TOOLS)
    assert not whole.leak, whole.reason
    _same_in_splits(text, range(1, len(text), 41), "chatml", TOOLS)


@pytest.mark.parametrize("gap", [100, 3000])
def test_a_result_record_of_the_responses_api_is_read_without_the_word_result(gap: int) -> None:
    record = {"type": "function_call_output", "name": "read", "output": "a line. " * 30}
    text = "Here is what I checked.\n" + json.dumps(record) + "\nSo it is fine. " + "x " * gap
    whole = detect(text, dialect="chatml", tools=TOOLS)
    assert whole.leak and whole.signals == ("Y",), whole.reason
    for size in (1, 5, 20):
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        _, stream = relayed(pieces, "chatml", tools=TOOLS)
        assert [v.leak for v in stream.verdicts] == [True], size
    _same_in_splits(text, range(1, len(text), 53), "chatml", TOOLS)


# --- long calls far from the end: the ending part's sweeps while the text grows ---------------


@pytest.mark.parametrize("size", [120, 250, 600, 1800])
@pytest.mark.parametrize("kind", ["call", "record"])
def test_a_long_object_followed_by_a_long_answer_is_found_however_it_arrives(
    size: int, kind: str
) -> None:
    if kind == "call":
        obj = {"name": "read", "arguments": {"path": "a.txt", "note": "x" * size}}
    else:
        obj = {"type": "tool-result", "toolName": "read", "result": "x" * size}
    text = "Okay. " + json.dumps(obj) + " Then more. " + "y " * 3000
    whole = detect(text, dialect="chatml", tools=TOOLS)
    assert whole.leak and len(whole.hits) == 1, whole.reason
    _same_in_splits(text, range(1, len(text), 97), "chatml", TOOLS)
    for chunk in (1, 64, 3000):
        pieces = [text[i : i + chunk] for i in range(0, len(text), chunk)]
        _, stream = relayed(pieces, "chatml", tools=TOOLS)
        assert [v.leak for v in stream.verdicts] == [True], chunk
        assert stream.verdicts[0].hits == whole.hits, chunk


def test_calls_the_windows_and_the_sweeps_both_read_are_taken_once() -> None:
    text = "\n".join(_mid(n) + " " + "z " * 900 for n in (50, 150, 300, 900, 60, 1500))
    whole = detect(text, dialect="chatml", tools=TOOLS)
    assert whole.leak and len(whole.hits) == 6, whole.reason
    for chunk in (3, 33, 700):
        monitor_verdict = _fed(text, chunk)
        assert monitor_verdict == whole, chunk


def _fed(text: str, chunk: int) -> object:
    from guard.dialects import get_dialect
    from guard.gate import DEFAULT_POLICY, SurfaceMonitor
    from guard.models import Surface

    monitor = SurfaceMonitor(
        Surface.TEXT, get_dialect("chatml"), DEFAULT_POLICY, tools=frozenset(TOOLS)
    )
    for i in range(0, len(text), chunk):
        monitor.feed_release(text[i : i + chunk])
    return monitor.finish()
