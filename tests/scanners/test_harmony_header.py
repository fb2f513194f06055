"""Harmony header parsing (``guard.scanners.parse_header``): the one parser of the scanner and the
audit's transcript splitter. Agreement with openai-harmony is in test_harmony_differential.py."""

from __future__ import annotations

import pytest

from guard.models import ToolStart
from guard.scanners import HarmonyHeader, HarmonyScanner, parse_header


def fields(header: HarmonyHeader) -> tuple[str, str | None, str | None, str | None]:
    return header.author, header.recipient, header.channel, header.content_type


def test_header_parsing_accepts_both_recipient_positions_and_content_types() -> None:
    # the content type is spelled as openai-harmony reports it: `<|constrain|>json`
    header = parse_header("assistant<|channel|>commentary to=functions.f <|constrain|>json")
    assert fields(header) == (
        "assistant",
        "functions.f",
        "commentary",
        "<|constrain|>json",
    )
    assert fields(parse_header("assistant to=functions.f<|channel|>commentary json")) == (
        "assistant",
        "functions.f",
        "commentary",
        "json",
    )
    assert fields(parse_header("functions.f to=assistant<|channel|>commentary")) == (
        "functions.f",
        "assistant",
        "commentary",
        None,
    )
    assert fields(parse_header("assistant<|channel|>final")) == ("assistant", None, "final", None)


def test_start_and_message_markers_are_optional() -> None:
    raw = "<|start|>assistant<|channel|>commentary to=functions.f<|constrain|>json<|message|>"
    header = parse_header(raw)
    assert fields(header) == ("assistant", "functions.f", "commentary", "<|constrain|>json")
    assert header.raw == raw
    assert fields(parse_header(raw)) == fields(parse_header(raw[len("<|start|>") : -11]))


def test_implied_header_is_the_assistants() -> None:
    """A completion primed with `<|start|>assistant` starts at `<|channel|>` or ` to=`."""
    assert fields(parse_header("<|channel|>analysis<|message|>", implied=True)) == (
        "assistant",
        None,
        "analysis",
        None,
    )
    assert fields(
        parse_header(" to=functions.f<|channel|>commentary json<|message|>", implied=True)
    ) == ("assistant", "functions.f", "commentary", "json")


@pytest.mark.parametrize(
    "header",
    [
        "assistant to=functions.a to=functions.b<|channel|>commentary",  # both in the role part
        "assistant<|channel|>commentary to=functions.a to=functions.b",  # both in the channel part
        "assistant to=functions.a<|channel|>commentary to=functions.b",  # one in each
        "assistant to=functions.a<|channel|>commentary to=functions.b <|constrain|>json",
    ],
)
def test_header_rule_last_recipient_wins(header: str) -> None:
    parsed = parse_header(header)
    assert (parsed.recipient, parsed.tool_name, parsed.channel) == (
        "functions.b",
        "b",
        "commentary",
    )


def test_header_rule_to_alone_names_no_recipient() -> None:
    """`to= functions.x`: openai-harmony reads an empty recipient and the next word as the
    content type; so does guard (an empty recipient is none)."""
    parsed = parse_header("assistant<|channel|>commentary to= functions.x")
    assert (parsed.recipient, parsed.tool_name, parsed.content_type) == (None, None, "functions.x")
    # an empty `to=` after a real one is still the last: no recipient
    assert parse_header("assistant<|channel|>commentary to=functions.a to=").recipient is None


def test_header_rule_only_to_words_name_a_recipient() -> None:
    assert fields(parse_header("assistant<|channel|>final json")) == (
        "assistant",
        None,
        "final",
        "json",
    )
    assert parse_header("assistant<|channel|>commentary foo json").recipient is None


def test_header_rule_channel_is_the_value_after_the_first_channel_marker() -> None:
    assert parse_header("assistant<|channel|>to=functions.f").channel == "to=functions.f"
    assert parse_header("assistant<|channel|>commentary<|constrain|>json").channel == "commentary"
    assert parse_header("assistant<|channel|><|message|>").channel is None


def test_header_author_is_the_first_word_as_written() -> None:
    assert parse_header("<|start|>functions.get_weather to=assistant<|channel|>x").author == (
        "functions.get_weather"
    )
    assert parse_header("<|start|><|channel|>final").author == ""


def test_tool_name_strips_functions_only() -> None:
    assert parse_header("assistant to=functions.get_weather").tool_name == "get_weather"
    assert parse_header("assistant to=browser.search").tool_name == "browser.search"
    assert parse_header("assistant to=functions.").tool_name == "functions."
    assert parse_header("assistant<|channel|>final").tool_name is None


def test_scanner_calls_the_last_recipient() -> None:
    text = (
        "<|start|>assistant to=functions.a<|channel|>commentary to=functions.b<|message|>{}<|call|>"
    )
    starts = [e for e in HarmonyScanner().feed(text) if isinstance(e, ToolStart)]
    assert [s.name for s in starts] == ["b"]
