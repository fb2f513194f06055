"""The pieces the SDK integrations share: one guard_client, one protocol guard per value kind,
one part renaming and one missing-extra error."""

from __future__ import annotations

import inspect

import pytest

from guard.errors import LeakAborted
from guard.integrations._extras import missing_extra
from guard.integrations._names import renamed, renamed_abort, renamed_cut, same
from guard.models import Verdict


def test_missing_extra_names_the_extra() -> None:
    error = missing_extra("guard.integrations.x", "X 2 or later", "x")
    assert isinstance(error, ImportError)
    assert str(error) == "guard.integrations.x needs X 2 or later: pip install 'inband-guard[x]'"


def test_both_sdks_guard_client_take_the_same_options() -> None:
    from guard.integrations.anthropic import guard_client as anthropic_client
    from guard.integrations.openai import guard_client as openai_client

    a = inspect.signature(anthropic_client)
    o = inspect.signature(openai_client)
    assert a == o
    assert list(a.parameters) == [
        "client",
        "dialect",
        "dialects",
        "policy",
        "on_leak",
        "escape_inputs",
        "allow_passthrough",
    ]
    assert anthropic_client.__name__ == openai_client.__name__ == "guard_client"
    assert anthropic_client.__module__ == "guard.integrations.anthropic._client"
    assert "Anthropic" in (anthropic_client.__doc__ or "")


def test_openai_guard_client_refuses_an_anthropic_client() -> None:
    from guard.integrations.openai import guard_client

    anthropic_like = type("Anthropic", (), {"__module__": "anthropic._client"})()
    with pytest.raises(TypeError, match="anthropic"):
        guard_client(anthropic_like)


@pytest.mark.parametrize(
    "name",
    ["guard_chat_completion", "guard_response", "guard_response_events"],
)
def test_protocol_guards_share_one_set_of_options(name: str) -> None:
    from guard.integrations.anthropic import protocol as anthropic_protocol
    from guard.integrations.openai import protocol

    guard = getattr(protocol, name)
    assert guard.__name__ == name
    # the options are one set; the value keeps each guard's own name (see test_protocol_guards)
    options = list(inspect.signature(guard).parameters.values())[1:]
    shared = list(inspect.signature(anthropic_protocol.guard_message).parameters.values())[1:]
    assert options == shared
    defaults = {k: p.default for k, p in inspect.signature(guard).parameters.items()}
    assert defaults["on_leak"] == "truncate"
    assert defaults["abort"] == "raise"
    assert defaults["dialect"] == "harmony"


def test_renaming_parts() -> None:
    verdict = Verdict(leak=True, surface="text", dialect="harmony", part="text")
    upper = str.upper
    assert [v.part for v in renamed([verdict], upper)] == ["TEXT"]
    assert renamed_cut({"text": 3}, upper) == {"TEXT": 3}
    error = renamed_abort(LeakAborted(verdict, "rest"), upper)
    assert error.verdict.part == "TEXT"
    assert error.withheld == "rest"
    assert same("text") == "text"
