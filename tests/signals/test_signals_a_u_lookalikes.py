"""A (marker alone or first) and U (undeclared tool): lookalike positives drawn from the fold
table (every single-character confusable of the marker's and the tool name's characters) and
near-miss negatives."""

from __future__ import annotations

import pytest

from guard import detect
from guard.models._fold_table import FOLD

MARKER = "to=functions.get_weather"
DECLARED = ["get_weather"]


def lookalikes(text: str) -> list[str]:
    """``text`` with one character replaced by each of its confusables in the fold table."""
    by_target: dict[str, list[str]] = {}
    for source, target in FOLD.items():
        by_target.setdefault(target, []).append(chr(source))
    return [
        text[:i] + alt + text[i + 1 :] for i, ch in enumerate(text) for alt in by_target.get(ch, [])
    ]


def test_the_fold_table_has_lookalikes_for_every_character_of_the_marker() -> None:
    variants = lookalikes(MARKER)
    assert len(variants) > 200  # measured: 613
    assert {v[i] for v in variants for i in range(len(v)) if v[i] != MARKER[i]} - set(MARKER)


@pytest.mark.parametrize("text", lookalikes(MARKER))
def test_a_every_single_confusable_of_the_marker_is_still_a_leak(text: str) -> None:
    v = detect(text)
    assert "A" in v.signals and v.cut == 0


@pytest.mark.parametrize(
    "text",
    [
        "Result:\nto=functions.get_weather",  # words before it
        "go to=functions.get_weather",
        "> to=functions.get_weather",  # a quote
        "`to=functions.get_weather`",  # code
        " " * 70 + "to=functions.get_weather",  # past the window
        "To=functions.get_weather",  # not the marker's spelling
        "to=function.get_weather",
        "to=functionsget_weather",
    ],
)
def test_a_near_misses_are_not_leaks(text: str) -> None:
    assert not detect(text).leak


@pytest.mark.parametrize("name", lookalikes("get_weather"))
def test_u_a_confusable_of_a_declared_tool_is_undeclared(name: str) -> None:
    assert "U" in detect(name, "tool_name", tools=DECLARED).signals


@pytest.mark.parametrize(
    ("name", "tools"),
    [
        ("get_weather", DECLARED),
        ("functions.get_weather", ["functions.get_weather"]),  # declared so
        ("get_weather", [{"type": "function", "function": {"name": "get_weather"}}]),
        ("get_weather", [{"name": "get_weather"}]),
        ("get_weathr", None),  # tools unknown: U is silent
        ("$search", ["$search"]),
        ("获取天气", ["获取天气"]),
    ],
)
def test_u_near_misses_are_not_leaks(name: str, tools: list[object] | None) -> None:
    assert not detect(name, "tool_name", tools=tools).leak


@pytest.mark.parametrize(
    "name",
    [
        "Get_Weather",
        "get_weathr",
        "functions.get_weathr",
        "weather",
        "search",
        # the Harmony recipient's namespace left on a declared name: no tool of that name
        "functions.get_weather",
    ],
)
def test_u_positives(name: str) -> None:
    assert detect(name, "tool_name", tools=DECLARED).signals == ("U",)


def test_u_only_reads_tool_names() -> None:
    for surface in ("text", "tool_arg", "thinking"):
        assert not detect("get_weathr", surface, tools=DECLARED).leak
