"""guard.scanners.scanner(): lookup by name, alias or record; register_scanner; the
guard.scanners entry point group, loaded lazily."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import EntryPoint
from typing import ClassVar

import pytest

import guard.scanners as scanning
from guard.dialects import get_dialect
from guard.errors import ConfigError
from guard.models import Event, Scanner, Text, ThinkingDelta, ThinkingEnd, ThinkingStart
from guard.scanners import (
    ChatMLScanner,
    HarmonyScanner,
    available_scanners,
    register_scanner,
    scanner,
)


class Echo:
    def feed(self, text: str) -> list[Event]:
        return [Text(text, text)]

    def flush(self) -> list[Event]:
        return []


def test_fresh_scanner_per_call_by_name_alias_or_record() -> None:
    a, b = scanner("harmony"), scanner(get_dialect("gpt-oss"))
    assert isinstance(a, HarmonyScanner) and isinstance(b, HarmonyScanner)
    assert a is not b
    assert isinstance(a, Scanner)


def test_unknown_dialect_lists_the_ones_with_scanners() -> None:
    with pytest.raises(ValueError, match="no-such-dialect") as info:
        scanner("no-such-dialect")
    for name in ("chatglm3", "chatml", "harmony", "llama3", "glm", "kimi"):
        assert name in str(info.value)
    with pytest.raises(TypeError):
        scanner(3)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def _fresh_registry() -> Iterator[None]:
    scanning.REGISTRY.clear()
    yield
    scanning.REGISTRY.clear()


def test_register_scanner() -> None:
    register_scanner("kimi", Echo)  # overrides the built-in
    assert isinstance(scanner("Kimi-K2"), Echo)  # alias of a known record resolves
    register_scanner("my-dialect", Echo)
    assert isinstance(scanner("my-dialect"), Echo)
    assert "my-dialect" in available_scanners()
    with pytest.raises(TypeError):
        register_scanner("x", 42)  # type: ignore[arg-type]


def test_entry_points_are_loaded_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    eps = [
        EntryPoint("plugin-dialect", "guard.scanners.chatml:ChatMLScanner", "guard.scanners"),
        EntryPoint("broken", "no_such_module_anywhere:factory", "guard.scanners"),
    ]
    seen: list[str] = []

    def fake() -> list[EntryPoint]:
        seen.append(scanning.REGISTRY.group)
        return eps

    monkeypatch.setattr(scanning.REGISTRY, "discover", fake)
    assert isinstance(scanner("plugin-dialect"), ChatMLScanner)
    assert seen == ["guard.scanners"]
    # listing names does not import anything; only asking for "broken" would
    assert "broken" in available_scanners()
    assert isinstance(scanner("harmony"), HarmonyScanner)
    with pytest.raises(ModuleNotFoundError):
        scanner("broken")


def test_factory_must_return_a_scanner() -> None:
    register_scanner("odd", lambda: object())  # type: ignore[arg-type, return-value]
    with pytest.raises(TypeError):
        scanner("odd")


# --- keywords: start_in_thinking and tools ---------------------------------------------------


class Recording:
    """A factory that takes both keywords and records what it got."""

    seen: ClassVar[list[dict[str, object]]] = []

    def __init__(self, **kwargs: object) -> None:
        Recording.seen.append(kwargs)

    def feed(self, text: str) -> list[Event]:
        return []

    def flush(self) -> list[Event]:
        return []


TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def test_scanner_passes_only_keywords_that_differ_from_defaults() -> None:
    Recording.seen = []
    register_scanner("rec", Recording)
    scanner("rec")
    scanner("rec", start_in_thinking=True)
    scanner("rec", tools=iter(TOOLS))
    assert Recording.seen == [{}, {"start_in_thinking": True}, {"tools": TOOLS}]


def test_zero_argument_factory_still_works_and_gets_no_tools() -> None:
    register_scanner("echo", Echo)
    assert isinstance(scanner("echo"), Echo)
    assert isinstance(scanner("echo", tools=TOOLS), Echo)


def test_start_in_thinking_from_a_factory_that_cannot_is_a_config_error() -> None:
    register_scanner("echo", Echo)
    with pytest.raises(ConfigError, match="start_in_thinking"):
        scanner("echo", start_in_thinking=True)


def test_scanner_keyword_tools_must_be_a_list_of_definitions() -> None:
    for bad in ("tools", TOOLS[0], 3):
        with pytest.raises(TypeError, match="tools must be a list"):
            scanner("chatml", tools=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["harmony", "chatml"])
def test_builtin_scanners_start_in_thinking(name: str) -> None:
    s = scanner(name, start_in_thinking=True, tools=TOOLS)
    events = s.feed("plan") + s.flush()
    assert [type(e) for e in events] == [ThinkingStart, ThinkingDelta, ThinkingEnd]
    assert events[0].raw == "" and events[1].raw == "plan"


@pytest.mark.parametrize("name", ["chatglm3", "llama3"])
def test_builtin_scanners_without_reasoning_refuse_start_in_thinking(name: str) -> None:
    assert scanner(name, tools=TOOLS) is not None
    with pytest.raises(ConfigError, match="no reasoning"):
        scanner(name, start_in_thinking=True)
