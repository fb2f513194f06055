"""J's call wrappers (``<tool>``, ``<TOOLCALL>``, ``[TOOL_CALL]`` and a lone closing wrapper tag,
with ``tool``/``args`` keys inside them), L's think tags with attributes, and the Chinese
"the user wants me to" and first-person plan words: positive, negative and every chunk split."""

from __future__ import annotations

import pytest
from support.monitor import streamed

from guard import detect

WRAPPED = [
    ('[TOOL_CALL] {"tool": "write", "args": {"path": "a.html"}} [/TOOL_CALL]', ["write"]),
    ('[TOOL_CALLS] [{"name": "write", "arguments": {"path": "a"}}] [/TOOL_CALLS]', None),
    ('<tool>\n{"name": "get_weather", "parameters": {"city": "Oslo"}}\n</tool>', ["get_weather"]),
    ('<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</TOOLCALL>', None),
    ('[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</TOOLCALL>', None),
    ('<function_call>{"name": "ls", "arguments": {}}</function_call>', None),
]


@pytest.mark.parametrize(("text", "tools"), WRAPPED)
def test_a_wrapped_call_trips(text: str, tools: list[str] | None) -> None:
    for dialect in ("chatml", "minimax", "llama3", "all"):
        v = detect("On it.\n" + text, dialect=dialect, tools=tools)
        # (a dialect that reserves the wrapper's spelling finds it as a control token too)
        assert v.leak and "J" in v.signals and v.cut == 7, (dialect, text)


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        # names a tool that was not declared
        ('[TOOL_CALL] {"tool": "write", "args": {"path": "a"}} [/TOOL_CALL]', ["read"]),
        # the wrapper tags do not match
        ('<tool>{"name": "ls", "arguments": {}}</toolbox>', None),
        # prose after the wrapper
        ('<tool>{"name": "ls", "arguments": {}}</tool> and that is the format.', None),
        # no call inside: a record
        ('<tool>{"name": "hammer", "weight": 2}</tool>', None),
        # closed code
        ('```\n[TOOL_CALL] {"tool": "ls", "args": {}} [/TOOL_CALL]\n```', None),
        # a bare object with tool/args keys, without a wrapper or declared tools
        ('{"tool": "ls", "args": {}}', None),
    ],
)
def test_wrapper_near_misses_pass(text: str, tools: list[str] | None) -> None:
    assert not detect(text, dialect="chatml", tools=tools).leak, text


@pytest.mark.parametrize("text", [WRAPPED[0][0], WRAPPED[4][0]])
def test_a_wrapped_call_every_split_gives_the_whole_verdict(text: str) -> None:
    text = "Sure.\n" + text
    tools = frozenset({"write"}) if "write" in text else None
    whole = detect(text, dialect="chatml", tools=tools)
    assert whole.leak
    for cut in range(1, len(text)):
        verdict, release = streamed(text, cut, "text", "chatml", tools=tools)
        assert verdict == whole and release == whole.cut == 6, cut


# --- think tags with attributes ------------------------------------------------------------

TAGGED = [
    '<think redacted="true">Eo4DCosDARFNMg7kQ2vX9pLr0Tz5</think>\nI added the retry wrapper.',
    "<think signature='sig-01'>Earlier I planned to check the loader.</think>\nIt reads the file.",
]


@pytest.mark.parametrize("text", TAGGED)
def test_a_think_tag_with_attributes_trips(text: str) -> None:
    v = detect(text, dialect="gemini")
    assert v.leak and "L" in v.signals and v.cut == 0


@pytest.mark.parametrize(
    "text",
    [
        'Gemini writes `<think signature="...">` blocks; strip them before replay.',
        "<thinker>Rodin</thinker> is the element name in this XML sample.",
        '<think redacted="true> is not a closed tag, and the answer goes on.',
    ],
)
def test_think_tag_near_misses_pass(text: str) -> None:
    assert not detect(text, dialect="gemini").leak, text


def test_a_think_tag_with_attributes_every_split_gives_the_whole_verdict() -> None:
    text = TAGGED[0]
    whole = detect(text, dialect="gemini")
    for cut in range(1, len(text), 3):
        verdict, release = streamed(text, cut, "text", "gemini")
        assert verdict == whole and release == whole.cut == 0, cut


# --- Chinese: "the user wants me to", "I'll first say" ---------------------------------------

ZH = (
    "好的，用户要我解释一下什么是向量数据库。我先说定义，再举一个例子。"
    "\n\n向量数据库是专门存储向量的数据库。"
)


def test_chinese_reasoning_with_the_new_words_trips() -> None:
    v = detect(ZH, dialect="qwen3_coder")
    assert v.leak and v.signals == ("L",) and v.cut == 0


@pytest.mark.parametrize(
    "text",
    [
        "如果用户要我删除账户，系统会先发送确认邮件。",  # documentation: "if the user asks me to"
        "向量数据库是专门存储向量的数据库。我先说一个例子：图片检索。",  # one weak cue
    ],
)
def test_chinese_near_misses_pass(text: str) -> None:
    assert not detect(text, dialect="qwen3_coder").leak, text


def test_chinese_every_split_gives_the_whole_verdict() -> None:
    whole = detect(ZH, dialect="qwen3_coder")
    for cut in range(1, len(ZH)):
        verdict, release = streamed(ZH, cut, "text", "qwen3_coder")
        assert verdict == whole and release == whole.cut == 0, cut
