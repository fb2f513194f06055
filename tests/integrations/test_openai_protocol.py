"""guard.integrations.openai.protocol and guard.integrations.anthropic.protocol: the
wire-protocol layers the SDK wrappers and guard serve share import no SDK, and guard serve
reaches them through public names only."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import types

import pytest
from support.paths import ROOT

from guard.integrations.openai.protocol import (
    GuardSettings,
    ResponseEventBridge,
    guard_response_events,
)


def test_protocol_imports_no_sdk_or_web_stack() -> None:
    code = (
        "import sys, guard.integrations.openai, guard.integrations.openai.protocol\n"
        "import guard.integrations.anthropic, guard.integrations.anthropic.protocol\n"
        "print(sorted(m for m in ('openai', 'anthropic', 'starlette', 'httpx')"
        " if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"


def _imports(path: str) -> list[tuple[str, str]]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return [
        (node.module or "", alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    ]


def test_serve_uses_only_public_names_of_the_protocol() -> None:
    serve = sorted((ROOT / "guard" / "serve").glob("*.py"))
    assert serve
    found = [
        (path.name, module, name)
        for path in serve
        for module, name in _imports(str(path.relative_to(ROOT)))
        if module.startswith("guard.integrations")
    ]
    assert found, "guard serve is expected to use the wire-protocol modules"
    protocols = ("guard.integrations.openai.protocol", "guard.integrations.anthropic.protocol")
    for file, module, name in found:
        assert module in protocols, (file, module)
        assert not name.startswith("_"), (file, name)


def test_guard_settings_resolve_checks_each_argument() -> None:
    settings = GuardSettings.resolve("gpt-oss", None, "report")
    assert settings.dialect.name == "harmony" and settings.on_leak == "report"
    with pytest.raises(ValueError, match="on_leak"):
        GuardSettings.resolve(on_leak="explode")
    with pytest.raises(TypeError, match="policy"):
        GuardSettings.resolve(policy={"x": 1})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown dialect"):
        GuardSettings.resolve(dialect="klingon")


def test_event_bridge_hands_back_an_unchanged_event_as_it_came() -> None:
    bridge = ResponseEventBridge()
    event = {
        "type": "response.output_text.delta",
        "output_index": 0,
        "content_index": 0,
        "delta": "hello",
        "sequence_number": 7,
    }
    chunk = bridge.chunk(event)
    assert chunk["choices"] == [{"index": 0, "delta": {"content": "hello"}, "finish_reason": None}]
    assert bridge.event(chunk) is event
    assert bridge.sequence == 7
    assert bridge.event(chunk) is None  # delivered once


def test_clean_event_stream_passes_unchanged_and_has_no_terminal_events() -> None:
    events = [
        {"type": "response.created", "response": {"id": "r1", "status": "in_progress"}},
        {"type": "response.output_text.delta", "output_index": 0, "delta": "plain text"},
    ]
    stream = guard_response_events(iter(events))
    assert list(stream) == events
    assert not stream.forged and not stream.cut and stream.last_sequence == -1


@pytest.mark.parametrize(
    "name",
    [
        "guard.integrations.openai",
        "guard.integrations.openai.protocol",
        "guard.integrations.anthropic",
        "guard.integrations.anthropic.protocol",
        "guard.serve",
    ],
)
def test_public_names_are_exactly_all(name: str) -> None:
    module = importlib.import_module(name)
    public = {
        n
        for n in dir(module)
        if not n.startswith("_")
        and n != "annotations"
        and not isinstance(getattr(module, n), types.ModuleType)
    }
    assert public == set(module.__all__)
