"""J's forms of issue 31: Gemma's ``call:NAME{...}`` body, an ``<invoke>`` whose parameters are
elements, a call at the end of the reasoning part (``thinking``), and bare JSON calls that need
declared tools (or Llama 3's own call form): positive, negative and every chunk split."""

from __future__ import annotations

import pytest
from support.monitor import streamed
from support.splits import assert_every_split

from guard import detect

# --- Gemma's call body -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        "call:write_notes{title:Groceries,body:eggs and rice}",
        'call:get_time{zone:"Europe/Oslo"}',
        "call:nested{a:{b:1},c:[1,2]}",
        "call:ping{}",
        'call:lookup_tide(port: "Lisbon", day: "today")',
        "call:f(x=1)",
    ],
)
def test_gemma_call_body_as_text_trips(call: str) -> None:
    text = f"On it.\n{call}\n"
    for dialect in ("gemma", "chatml", "all"):
        v = detect(text, dialect=dialect)
        assert v.leak and "J" in v.signals and v.cut == text.index("call:"), dialect


def test_gemma_call_with_declared_tools_counts_only_when_it_names_one() -> None:
    text = "call:list_missions{status:open}"
    assert detect(text, dialect="gemma", tools=["list_missions"]).leak
    assert not detect(text, dialect="gemma", tools=["search"]).leak


@pytest.mark.parametrize(
    "text",
    [
        "Gemma writes call:NAME{key:value} between two tokens, and the shim reads it back.",
        "The recall:f{a:1}",  # `call:` inside a word
        "call:f{ no key }",  # no key:value inside
        "call:f{a:1",  # unclosed
        "call:f(just words)",
        "```\ncall:f{a:1}\n```",  # closed code
        "Use `call:f{a:1}`",
    ],
)
def test_gemma_near_misses_pass(text: str) -> None:
    assert not detect(text, dialect="gemma").leak, text


@pytest.mark.parametrize("cut", range(1, len("Sure.\ncall:ls{dir:src}")))
def test_gemma_every_split_gives_the_whole_verdict(cut: int) -> None:
    text = "Sure.\ncall:ls{dir:src}"
    whole = detect(text, dialect="gemma")
    verdict, release = streamed(text, cut, "text", "gemma")
    assert verdict == whole and release == whole.cut == 6


# --- <invoke> with parameter elements ------------------------------------------------------------

INVOKE = '<invoke name="grep">\n<pattern>def handle_</pattern>\n<path>src</path>\n</invoke>'


def test_invoke_with_parameter_elements_trips() -> None:
    text = "Searching.\n" + INVOKE
    v = detect(text, dialect="chatml", tools=["grep"])
    assert v.leak and v.signals == ("J",) and v.cut == text.index("<invoke")
    assert not detect(text, dialect="chatml", tools=["Bash"]).leak


@pytest.mark.parametrize(
    "text",
    [
        '<invoke name="grep"><pattern>x</path></invoke>',  # mismatched element
        '<invoke name="grep"><pattern><b>x</b></pattern></invoke>',  # markup inside a value
        INVOKE + "\nThat was the old transcript's shape.",
    ],
)
def test_invoke_near_misses_pass(text: str) -> None:
    assert not detect(text, dialect="chatml").leak, text


# --- calls at the end of the reasoning part ------------------------------------------------------

THINKING_CALL = (
    "Next I should check the recent commits.\n"
    '<invoke name="shell">\n  <cmd>git log --oneline -5</cmd>\n</invoke>'
)


@pytest.mark.parametrize("dialect", ["glm", "kimi", "harmony", "all"])
def test_a_call_at_the_end_of_the_reasoning_trips(dialect: str) -> None:
    v = detect(THINKING_CALL, "thinking", dialect=dialect)
    assert v.leak and "J" in v.signals and v.cut == THINKING_CALL.index("<invoke")


@pytest.mark.parametrize(
    "text",
    [
        "Some models write `<function=...>`, others wrap JSON in `<tool_call>`; explain both.",
        'I could call search with {"query": "x"}, but the answer is in the context already.',
        THINKING_CALL + "\nActually the log is in the pasted output; no call needed.",
    ],
)
def test_reasoning_that_names_or_drafts_a_call_passes(text: str) -> None:
    assert not detect(text, "thinking", dialect="kimi").leak, text


@pytest.mark.parametrize("cut", range(1, len(THINKING_CALL), 3))
def test_thinking_every_split_gives_the_whole_verdict(cut: int) -> None:
    whole = detect(THINKING_CALL, "thinking", dialect="glm")
    verdict, release = streamed(THINKING_CALL, cut, "thinking", "glm")
    assert verdict == whole and release == whole.cut


# --- bare JSON calls ---------------------------------------------------------------------------

CALL = '{"name": "web_search", "parameters": {"query": "hello"}}'


def test_bare_json_needs_declared_tools_or_llama3() -> None:
    assert not detect(CALL, dialect="chatml").leak
    assert not detect(CALL, dialect="all").leak
    assert detect(CALL, dialect="chatml", tools=["web_search"]).leak
    assert detect(CALL, dialect="llama3").signals == ("J",)
    assert not detect(CALL, dialect="llama3", tools=["other"]).leak


@pytest.mark.parametrize("cut", range(1, len("Ok.\n" + CALL), 2))
def test_llama3_bare_json_every_split_gives_the_whole_verdict(cut: int) -> None:
    text = "Ok.\n" + CALL
    whole = detect(text, dialect="llama3")
    verdict, release = streamed(text, cut, "text", "llama3")
    assert verdict == whole and release == whole.cut == 4


# --- Gemini's tool namespace and <tool_code> inside <function_calls> ---------------------------

GEMINI_CALLS = [
    'declaration:default_api:lookup_order{order_id:"A-1042"}',
    "default_api:get_time{zone:Europe/Oslo}",
    "<function_calls>\n<tool_code>grep_search(pattern='AIza', dir_path='.')</tool_code>\n"
    "</function_calls>",
]


@pytest.mark.parametrize("call", GEMINI_CALLS)
def test_gemini_call_forms_as_text_trip(call: str) -> None:
    text = f"Let me look that up.\n\n{call}\n"
    start = min(
        i for i in (text.find("declaration:"), text.find("default_api"), text.find("<")) if i >= 0
    )
    for dialect in ("gemini", "gemma", "chatml", "all"):
        v = detect(text, dialect=dialect)
        assert v.leak and "J" in v.signals and v.cut == start, dialect


def test_gemini_call_forms_with_declared_tools_count_only_when_they_name_one() -> None:
    text = "default_api:lookup_order{order_id:1}"
    assert detect(text, dialect="gemini", tools=["lookup_order"]).leak
    assert not detect(text, dialect="gemini", tools=["search"]).leak


@pytest.mark.parametrize(
    "text",
    [
        "Call default_api.lookup_order(order_id=...) from your code, then print the result.",
        "In the generated SDK use default_api.list_pets(limit=10)",  # Python, not Gemini's form
        "Tools live under the `default_api` namespace.",
        "my_default_api:f{a:1}",  # inside a word
        "<function_calls>\n<tool_code>not a call</tool_code>\n</function_calls>",
        "```python\nprint(default_api.search(query='x'))\n```",
    ],
)
def test_gemini_near_misses_pass(text: str) -> None:
    assert not detect(text, dialect="gemini").leak


GEMINI_SPLIT = "Sure.\ndefault_api:ls{dir:src}"


@pytest.mark.parametrize("cut", range(1, len(GEMINI_SPLIT)))
def test_gemini_every_split_gives_the_whole_verdict(cut: int) -> None:
    whole = detect(GEMINI_SPLIT, dialect="gemini")
    verdict, release = streamed(GEMINI_SPLIT, cut, "text", "gemini")
    assert verdict.leak == whole.leak and verdict.cut == whole.cut
    assert release <= whole.cut


# --- <function name="..."> with <param> elements -----------------------------------------------

NAMED_FUNCTION = '<function name="get_weather"><param name="location">Rome</param></function>'


@pytest.mark.parametrize("dialect", ["anthropic", "chatml", "glm", "all"])
def test_a_named_function_element_with_params_trips(dialect: str) -> None:
    text = "Checking.\n" + NAMED_FUNCTION
    v = detect(text, dialect=dialect)
    assert v.leak and "J" in v.signals and v.cut == text.index("<function")


@pytest.mark.parametrize(
    "text",
    [
        'Use <function name="x"> in your template, then close it.',
        '<function name="get_weather"><param name="location">Rome</param></function> was sent.',
        '```xml\n<function name="f"><param name="a">1</param></function>\n```',
    ],
)
def test_a_named_function_element_near_misses_pass(text: str) -> None:
    assert not detect(text, dialect="chatml").leak


#: Grok's call element, and its unprefixed twin, written as text (heldout35)
GROK_CALL = (
    'I\'ll read the config first.\n\n<xai:function_call name="read">\n'
    '<parameter name="filePath">opencode.json</parameter>\n</xai:function_call>'
)


@pytest.mark.parametrize(
    "text", [GROK_CALL, GROK_CALL.replace("xai:function_call", "function_call")]
)
@pytest.mark.parametrize("tools", [None, ["read"]])
def test_a_function_call_element_with_params_trips(text: str, tools: list[str] | None) -> None:
    v = detect(text, dialect="chatml", tools=tools)
    # (chatml reserves Grok's element too, from the `anthropic` record: H as well as J)
    expected = ("H", "J") if "xai:" in text else ("J",)
    assert v.leak and sorted(v.signals) == sorted(expected) and v.cut == text.index("<"), v.reason
    assert_every_split(text, "text", "chatml", tools=tools)


@pytest.mark.parametrize(
    "text",
    [
        GROK_CALL.replace("</xai:function_call>", "</function_call>"),  # not its own closer
        GROK_CALL + "\n\nThen I'll summarise it.",  # does not end the text
        'Grok writes <xai:function_call name="f"> elements.',  # named, no parameters
    ],
)
def test_a_function_call_element_near_misses_pass(text: str) -> None:
    assert "J" not in detect(text, dialect="chatml", tools=["read"]).signals


@pytest.mark.parametrize("cut", range(1, len(NAMED_FUNCTION), 5))
def test_a_named_function_element_every_split_gives_the_whole_verdict(cut: int) -> None:
    whole = detect(NAMED_FUNCTION, dialect="chatml")
    verdict, release = streamed(NAMED_FUNCTION, cut, "text", "chatml")
    assert verdict.leak == whole.leak and verdict.cut == whole.cut
    assert release <= whole.cut


# --- Claude-style invoke elements under another family's namespace (StepFun's steptml) --------

STEPTML = (
    'Let me search for that...\n<steptml:toolcall>\n<steptml:invoke name="web_search">\n'
    '<steptml:parameter name="query">AI news</steptml:parameter>\n</steptml:invoke>\n'
    "</steptml:toolcall>"
)


@pytest.mark.parametrize("dialect", ["qwen3_coder", "chatml", "all"])
def test_a_namespaced_invoke_call_as_text_trips(dialect: str) -> None:
    v = detect(STEPTML, dialect=dialect, tools=["web_search"])
    assert v.leak and "J" in v.signals, v.reason
    assert v.cut == STEPTML.index("<steptml:toolcall>")


def test_a_namespaced_invoke_call_in_a_fence_or_naming_another_tool_passes() -> None:
    fenced = "The steptml format:\n```xml\n" + STEPTML.split("\n", 1)[1] + "\n```"
    assert not detect(fenced, dialect="qwen3_coder", tools=["web_search"]).leak
    assert "J" not in detect(STEPTML, dialect="qwen3_coder", tools=["open_url"]).signals
    bpel = (
        'Add the invoke activity.\n\n<bpel:invoke name="checkCredit">\n  <bpel:parameter'
        ' name="amount">500</bpel:parameter>\n</bpel:invoke>'
    )
    assert not detect(bpel, dialect="chatml").leak  # another XML vocabulary (review 49c)


# --- Mistral's call token with its brackets lost in decoding ----------------------------------

#: Devstral's call as some stacks print it: ``[TOOL_CALLS]`` decoded without its brackets and
#: glued to the prose before it, the arguments after the name (heldout36)
BARE_TOOL_CALLS = [
    "I will track the remaining work first.TOOL_CALLStodowrite"
    '{"todos": {"content": "Add tests", "status": "pending"}, {"content": "Log", "id": "t7"}}',
    'TOOL_CALLSbash{"command": "go mod init example.com/todo"}',
    'TOOL_CALLSbash[ARGS]{"command": "ls"}',
    'Checking.\nTOOL_CALLS[{"name": "bash", "arguments": {"command": "ls"}}]',
    # one blank before the object, single quotes, no arguments (review 52b)
    'Let me look.TOOL_CALLSbash {"command": "ls"}',
    "Let me look.TOOL_CALLSbash{'command': 'ls'}",
    "Let me look.TOOL_CALLSbash{}",
]


@pytest.mark.parametrize("text", BARE_TOOL_CALLS)
@pytest.mark.parametrize("dialect", ["mistral", "chatml", "all"])
def test_mistrals_bare_call_token_with_a_call_trips(text: str, dialect: str) -> None:
    tools = ["todowrite", "bash", "write"]
    v = detect(text, dialect=dialect, tools=tools)
    assert v.leak and "J" in v.signals, v.reason
    assert v.cut == text.index("TOOL_CALLS")
    assert_every_split(text, "text", dialect, tools=tools)


@pytest.mark.parametrize(
    "text",
    [
        "The TOOL_CALLS token starts a call.",  # named, no call after it
        'Set MY_TOOL_CALLSbash{"a": 1}',  # inside a longer name
        'TOOL_CALLSrm{"command": "ls"}',  # not a declared tool
        'TOOL_CALLSbash{"command": "ls"} and then I stop.',  # not the end of the text
        # code and settings whose names start so (review 52)
        "enum TOOL_CALLS_KIND {\n    Single,\n    Parallel,\n}",
        "struct TOOL_CALLS_STATE { count: u32 }",
        'Use the env var TOOL_CALLS_DEBUG{"on": true}',
        "TOOL_CALLSbash {x}",
    ],
)
def test_mistrals_bare_call_token_near_misses_pass(text: str) -> None:
    v = detect(text, dialect="mistral", tools=["todowrite", "bash"])
    assert "J" not in v.signals, v.reason


# --- an invented pair of elements: the name, then the arguments (heldout36) --------------------

NAME_AND_ARGUMENTS = [
    '<function-name>Bash</function-name>\n<arguments>{"command": "cat src/x.cs"}</arguments>',
    "No ReadFile tool is listed, so I will use Edit.\n<function_name>Edit</function_name>\n"
    '<parameters>{"file_path": "src/x.cs", "old_string": ""}</parameters>',
]


@pytest.mark.parametrize("text", NAME_AND_ARGUMENTS)
def test_a_name_element_then_an_arguments_element_trips(text: str) -> None:
    tools = ["Bash", "Edit"]
    v = detect(text, dialect="chatml", tools=tools)
    # (chatml reserves Grok's element too, from the `anthropic` record: H as well as J)
    expected = ("H", "J") if "xai:" in text else ("J",)
    assert v.leak and sorted(v.signals) == sorted(expected) and v.cut == text.index("<"), v.reason
    assert_every_split(text, "text", "chatml", tools=tools)


@pytest.mark.parametrize(
    "text",
    [
        NAME_AND_ARGUMENTS[0].replace("Bash", "Rm"),  # not a declared tool
        NAME_AND_ARGUMENTS[0] + "\n\nThat is the format.",  # not the end of the text
        "<function-name>Bash</function-name>\n<arguments>command=ls</arguments>",  # no JSON
    ],
)
def test_a_name_and_arguments_pair_near_misses_pass(text: str) -> None:
    assert "J" not in detect(text, dialect="chatml", tools=["Bash", "Edit"]).signals


@pytest.mark.parametrize(
    "text",
    [
        *NAME_AND_ARGUMENTS,
        # a format's docs end with it (review 52c)
        "Reply in this format:\n\n<function-name>NAME</function-name>\n"
        '<arguments>{"key": "value"}</arguments>',
        'Test fixture:\n<tool_name>get_weather</tool_name>\n<parameters>{"c": "P"}</parameters>',
    ],
)
def test_the_pair_without_declared_tools_is_not_read(text: str) -> None:
    assert "J" not in detect(text, dialect="chatml").signals


# --- OLMo 3: pythonic calls inside <function_calls> ------------------------------------------

OLMO = (
    'Let me check the trains.<function_calls>find_trains(origin="Utrecht", '
    'destination="Gent")</function_calls>'
)


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        (OLMO, ["find_trains"]),
        (
            '<function_calls>\nfind_trains(origin="A")\nget_weather(city="B")\n</function_calls>',
            ["find_trains", "get_weather"],
        ),
    ],
)
def test_pythonic_calls_in_function_calls_trip(text: str, tools: list[str] | None) -> None:
    v = detect(text, dialect="pythonic", tools=tools or None)
    assert v.leak and v.signals == ("J",), v.reason
    assert v.cut == text.index("<function_calls>")


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        (OLMO, ["other"]),  # names no declared tool
        (OLMO, None),  # no declared tools: a sample ending docs reads the same
        ('Example:\n<function_calls>\nprint(x="hi")\n</function_calls>', None),
        ("The wrapper is <function_calls>print(x)</function_calls> in the docs.", None),
        ("<function_calls>find_trains(origin)</function_calls>", None),  # no keyword argument
        (OLMO + "\nThat is the format.", None),  # prose after it
    ],
)
def test_other_function_calls_text_passes(text: str, tools: list[str] | None) -> None:
    assert not detect(text, dialect="pythonic", tools=tools).leak


def test_pythonic_calls_in_function_calls_every_split() -> None:
    assert assert_every_split(OLMO, "text", "pythonic", tools=["find_trains"]).leak


# --- a bare JSON call of a declared tool whose arguments are broken JSON ----------------------

BROKEN = '{"name": "lookup_invoice", "parameters": {invoice_id: 4471, include_lines: true}}'


@pytest.mark.parametrize(
    "text",
    [
        BROKEN,
        '{"name": "lookup_invoice", "arguments": {\'id\': 4471,}}',  # quotes, trailing comma
        "Looking it up.\n" + BROKEN,
    ],
)
@pytest.mark.parametrize("dialect", ["llama3", "chatml", "all"])
def test_a_declared_call_with_broken_json_trips(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect, tools=["lookup_invoice"])
    assert v.leak and v.signals == ("J",), v.reason
    assert "broken" in v.hits[0].detail


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        (BROKEN, None),  # no declared tools: an answer's data as often
        (BROKEN, ["other"]),  # names no declared tool
        (BROKEN + "\nThat is the request.", ["lookup_invoice"]),  # prose after it
        ('{"name": "lookup invoice", "parameters": {id: 1}}', ["lookup invoice"]),  # no name
        ('{"name": "lookup_invoice", "parameters": {...}}', ["lookup_invoice"]),  # placeholders
        ('{"name": "lookup_invoice", "parameters": {invoiceId}}', ["lookup_invoice"]),
        ('{"name": "lookup_invoice", "parameters": {"id": invoice_id}}', ["lookup_invoice"]),
    ],
)
def test_broken_json_that_is_no_declared_call_passes(text: str, tools: list[str] | None) -> None:
    assert not detect(text, dialect="llama3", tools=tools).leak


def test_a_declared_call_with_broken_json_every_split() -> None:
    assert assert_every_split(BROKEN, "text", "llama3", tools=["lookup_invoice"]).leak


# --- calls cut short, invoke with <param> children, undeclared names (blind set heldout46a) -----

CUT_CALLS = [
    ("<function=search>", "harmony", ["search_web", "scrape"]),  # a shortened name
    ("I'll look up this week's news for you.\n<function=search>", "chatml", ["search"]),
    (
        "Checking.\n<function=search>\n<parameter=query>\nsubsidies\n</parameter>\n",
        "chatml",
        ["search"],
    ),
]


@pytest.mark.parametrize(("text", "dialect", "tools"), CUT_CALLS)
def test_a_call_cut_short_after_its_opener_trips(
    text: str, dialect: str, tools: list[str] | None
) -> None:
    """Qwen3-Coder's call opened and never closed, the rest of the answer being its complete
    parameters at most: the stream ended inside a call written as text."""
    v = detect(text, dialect=dialect, tools=tools)
    assert v.leak and v.signals == ("J",) and v.cut == text.index("<function="), v.reason
    assert_every_split(text, "text", dialect, tools=tools)


@pytest.mark.parametrize(
    "text",
    [
        "Calls open with\n<function=NAME>",  # a placeholder
        "Each call opens with <function=name>",  # a placeholder
        "The opener <function=search> starts a call, and the parameters follow.",
        "Open it with\n<function=search>\nthen write each parameter.",  # prose after it
        "<function=search>\n<parameter=query>x",  # a parameter not closed: not read as a cut call
    ],
)
def test_an_opener_named_or_followed_by_prose_passes(text: str) -> None:
    assert not detect(text, dialect="chatml").leak, text
    assert not detect(text, dialect="chatml", tools=["search"]).leak, text


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        # review 57b: without declared tools, or naming none of them, a cut opener is a sample
        ("<function=search>", None),
        ("Use this template:\n\n<function=example_function_name>", ["search"]),
        ("Here is how to call it:\n\n<function=search>", ["search"]),  # review 57c
        ("Example\n<function=get_weather>", ["search"]),
        ("<function=your_function>", ["search"]),
        ("<function=my_tool>", None),
    ],
)
def test_a_cut_opener_of_no_declared_tool_passes(text: str, tools: list[str] | None) -> None:
    assert not detect(text, dialect="chatml", tools=tools).leak, text


INVOKE_PARAMS = (
    "I should open the config first.\n<function_calls>\n"
    '<invoke name="read_file">\n<param name="path">src/config/settings.py</param>\n</invoke>\n'
    "</function_calls>"
)


@pytest.mark.parametrize("surface", ["text", "thinking"])
def test_invoke_with_param_children_trips(surface: str) -> None:
    v = detect(INVOKE_PARAMS, surface, dialect="deepseek", tools=["read_file"])
    assert v.leak and v.signals == ("J",), v.reason
    assert_every_split(INVOKE_PARAMS, surface, "deepseek", tools=["read_file"])


def test_a_whole_call_naming_an_undeclared_tool_passes() -> None:
    # a format's docs end so as often (review 57); only the cut call counts whatever it names
    text = 'Example:\n<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>'
    assert not detect(text, dialect="deepseek", tools=["search", "read_file"]).leak


def test_json_naming_an_undeclared_tool_still_passes() -> None:
    # the bare JSON form is an answer's data as often: only a declared name makes it a call
    text = 'Here it is:\n{"name": "Bob", "arguments": {"age": 3}}'
    assert not detect(text, dialect="chatml", tools=["search_web"]).leak


# --- a call's closing tags left at the end (blind set heldout46c) ----------------------------


@pytest.mark.parametrize(
    ("text", "dialect"),
    [
        ("Mail now has the draft open.</parameter></function></zyphra_tool_call>", "gemma"),
        ("Done.</parameter></function>", "chatml"),
        ("Done.</arg_value></tool_call>\n", "harmony"),
    ],
)
def test_a_calls_closers_left_at_the_end_trip(text: str, dialect: str) -> None:
    v = detect(text, dialect=dialect)
    assert v.leak and v.signals == ("J",) and v.cut == text.index("</"), v.reason
    assert_every_split(text, "text", dialect, never_past_cut=True)


@pytest.mark.parametrize(
    "text",
    [
        "Done.</div></body>",  # no call's closer
        "<function=x><parameter=a>1</parameter></function> is the shape.",  # prose after
        "Use <parameter>x</parameter></function> here",  # not at the end
        "Each call ends with </parameter></function>",  # named after a blank
        "Your XML is missing these closing tags: </invoke></function_calls>",
        "Fix: the snippet was missing </param></params>",  # XML-RPC
        "In Qwen3-Coder the call opens with <function=get_weather>",  # inside a sentence
        "<invoke><parameter>1</parameter></invoke>",  # opened in the text
        "Done.\n</parameter>\n</function>",  # not glued
        # one closer (review 57b: an answer after an `<answer>` prefill ends so)
        "\nParis is the capital of France.\n</answer>",
        "Add this at the end of your file:\n</answer>",
        "Done.</output>",
    ],
)
def test_closers_opened_or_not_a_calls_pass(text: str) -> None:
    assert not detect(text, dialect="gemma").leak, text
