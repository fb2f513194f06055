"""guard serve's configuration: values that cannot work fail when the config is made, with
guard's own exceptions."""

from __future__ import annotations

from typing import Any

import pytest

from guard.errors import ConfigError, GuardError, UnknownNameError
from guard.gate import DEFAULT_POLICY
from guard.serve import ServeConfig


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"upstream": "ftp://example.test"}, "upstream must be an http"),
        ({"upstream": "http://example.test", "on_leak": "explode"}, "on_leak must be one of"),
        ({"upstream": "http://example.test", "max_body_bytes": 0}, "max_body_bytes"),
    ],
)
def test_invalid_serve_config_is_a_config_error(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as raised:
        ServeConfig(**options)
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, GuardError)


def test_serve_config_unknown_dialect_is_an_unknown_name() -> None:
    with pytest.raises(UnknownNameError, match="klingon"):
        ServeConfig(upstream="http://example.test", dialects={"house-*": "klingon"})


def test_serve_config_policy_must_be_a_policy() -> None:
    with pytest.raises(TypeError, match=r"policy must be a guard\.Policy"):
        ServeConfig(upstream="http://example.test", policy={"x": 1})  # type: ignore[arg-type]
    default = ServeConfig(upstream="http://example.test", policy=None)  # type: ignore[arg-type]
    assert default.policy is DEFAULT_POLICY
