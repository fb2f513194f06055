"""A policy file carries the gate's rules and the tables of other components (``[serve]``):
``Policy`` holds only the rules; ``read_policy_file`` hands the other tables back."""

from __future__ import annotations

from pathlib import Path

import pytest

from guard.errors import PolicyError
from guard.gate import Policy, read_policy_file

FILE = """
disabled = ["S"]

[serve]
on_leak = "truncate"

[serve.dialects]
"my-model" = "chatml"
"""


def test_the_serve_table_is_read_beside_the_policy(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(FILE)
    policy, tables = read_policy_file(path)
    assert policy.disabled == frozenset({"S"})
    assert tables == {"serve": {"on_leak": "truncate", "dialects": {"my-model": "chatml"}}}
    assert Policy.load(path) == policy
    assert "serve" not in Policy.model_fields


def test_a_mapping_with_a_serve_table_still_loads() -> None:
    policy = Policy.from_mapping({"disabled": ["S"], "serve": {"on_leak": "report"}})
    assert policy == Policy(disabled=frozenset({"S"}))


def test_a_serve_entry_that_is_not_a_table_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    path.write_text('{"serve": 3}')
    with pytest.raises(PolicyError, match=r"\[serve\] must be a table, got int"):
        read_policy_file(path)
    with pytest.raises(PolicyError, match="unknown"):
        Policy.from_mapping({"unknown": 1})
    with pytest.raises(PolicyError, match="cannot read"):
        read_policy_file(tmp_path / "none.toml")
