"""The protocol guards called as they were written: each names its value (``completion``,
``response``, ``message``, ``source``), checks ``abort`` and pickles by name."""

from __future__ import annotations

import inspect
import pickle
from typing import Any

import pytest

from guard.integrations.anthropic.protocol import guard_message, guard_message_events
from guard.integrations.openai.protocol import (
    ProtocolGuard,
    guard_chat_completion,
    guard_response,
    guard_response_events,
)

_COMPLETION = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}]}
_RESPONSE = {"output": [], "status": "completed"}
_MESSAGE = {"content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn"}

#: each guard, the name of its value, and a value it guards
GUARDS: list[tuple[ProtocolGuard[Any], str, Any]] = [
    (guard_chat_completion, "completion", _COMPLETION),
    (guard_response, "response", _RESPONSE),
    (guard_message, "message", _MESSAGE),
    (guard_response_events, "source", []),
    (guard_message_events, "source", []),
]
IDS = [guard.__name__ for guard, _, _ in GUARDS]


@pytest.mark.parametrize(("guard", "name", "value"), GUARDS, ids=IDS)
def test_the_signature_names_the_value(guard: ProtocolGuard[Any], name: str, value: Any) -> None:
    parameters = inspect.signature(guard).parameters
    assert next(iter(parameters)) == name
    assert parameters[name].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert [p.kind for p in list(parameters.values())[1:]] == [inspect.Parameter.KEYWORD_ONLY] * 5


@pytest.mark.parametrize(("guard", "name", "value"), GUARDS, ids=IDS)
def test_the_value_by_position_or_by_its_name(
    guard: ProtocolGuard[Any], name: str, value: Any
) -> None:
    by_position = guard(value, on_leak="abort", abort="filter")
    by_name = guard(**{name: value}, on_leak="abort", abort="filter")
    assert type(by_position) is type(by_name)
    if isinstance(by_position, tuple):
        assert by_position == by_name


@pytest.mark.parametrize(("guard", "name", "value"), GUARDS, ids=IDS)
def test_the_value_twice_missing_or_misnamed_is_a_type_error(
    guard: ProtocolGuard[Any], name: str, value: Any
) -> None:
    with pytest.raises(TypeError, match=name):
        guard(value, **{name: value})
    with pytest.raises(TypeError, match=name):
        guard()
    with pytest.raises(TypeError, match="on_lek"):
        guard(value, on_lek="abort")
    with pytest.raises(TypeError):  # the old shared name is not the guard's
        guard(value=value)


@pytest.mark.parametrize(("guard", "name", "value"), GUARDS, ids=IDS)
def test_an_unknown_abort_mode_is_refused(guard: ProtocolGuard[Any], name: str, value: Any) -> None:
    with pytest.raises(ValueError, match=r"abort must be 'raise' or 'filter', got 'nope'"):
        guard(value, abort="nope")  # type: ignore[arg-type]


@pytest.mark.parametrize(("guard", "name", "value"), GUARDS, ids=IDS)
def test_a_guard_pickles_as_itself(guard: ProtocolGuard[Any], name: str, value: Any) -> None:
    assert pickle.loads(pickle.dumps(guard)) is guard
