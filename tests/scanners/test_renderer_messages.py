"""The conversation walk and value helpers the renderers share (guard.testing._messages)."""

from __future__ import annotations

from typing import Any

import pytest

from guard.testing._messages import (
    assistant_parts,
    checked_text,
    json_text,
    read_messages,
    render_messages,
)

CALL = {"id": "c1", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
CONVERSATION: list[Any] = [
    {"role": "developer", "content": "be brief"},
    {"role": "user", "content": [{"type": "text", "text": "weather?"}]},
    {"role": "assistant", "content": None, "reasoning_content": "look", "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": {"temp": 20}},
    "<raw wire>",
    {"role": "tool", "name": "named", "content": "x"},
    {"role": "assistant", "content": "sunny"},
]


def test_read_messages_gives_roles_raw_text_and_the_tool_a_result_answers() -> None:
    read = [(role, name) for role, _, name in read_messages(CONVERSATION)]
    assert read == [
        ("system", ""),
        ("user", ""),
        ("assistant", ""),
        ("tool", "get_weather"),
        ("raw", ""),
        ("tool", "named"),
        ("assistant", ""),
    ]
    raw = [msg for role, msg, _ in read_messages(CONVERSATION) if role == "raw"]
    assert raw == [{"content": "<raw wire>"}]


def test_read_messages_refuses_an_unknown_role() -> None:
    with pytest.raises(ValueError, match="unknown role 'bot'"):
        list(read_messages([{"role": "user", "content": "a"}, {"role": "bot", "content": "b"}]))


def test_render_messages_calls_the_renderer_of_each_role() -> None:
    out = render_messages(
        CONVERSATION,
        head="<bos>",
        turn=lambda role, text: f"[{role}:{text}]",
        assistant=lambda msg: f"[a:{assistant_parts(msg)[0]}|{assistant_parts(msg)[1]}]",
        tool=lambda name, content: f"[t:{name}={json_text(content)}]",
    )
    assert out == (
        "<bos>[system:be brief][user:weather?][a:look|]"
        '[t:get_weather={"temp": 20}]<raw wire>[t:named=x][a:|sunny]'
    )
    with_system = render_messages(
        CONVERSATION[:2],
        turn=lambda role, text: f"U:{text};",
        system=lambda role, text: f"S:{text};",
        assistant=lambda msg: "",
        tool=lambda name, content: "",
    )
    assert with_system == "S:be brief;U:weather?;"


def test_assistant_parts() -> None:
    assert assistant_parts(CONVERSATION[2]) == (
        "look",
        "",
        [("c1", "get_weather", '{"city": "Oslo"}')],
    )
    assert assistant_parts({"role": "assistant", "content": "hi"}) == ("", "hi", [])


def test_json_text_and_checked_text() -> None:
    assert json_text("as is") == "as is"
    assert json_text({"é": [1, None]}) == '{"é": [1, null]}'
    assert checked_text(3, "</v>", "a value") == "3"
    with pytest.raises(ValueError, match="a value cannot contain </v>"):
        checked_text("x</v>", "</v>", "a value")
