"""The packages' lazy names (guard/_lazy.py): read from the ``if TYPE_CHECKING:`` re-exports."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from guard._lazy import read_exports

PACKAGE = """
from typing import TYPE_CHECKING
from json import dumps as dumps
from json import loads

from guard._lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from textwrap import dedent as dedent
    from textwrap import indent as other_name

__getattr__, __dir__ = _lazy_exports(__name__, globals())
"""


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    (tmp_path / "lazy_pkg").mkdir()
    (tmp_path / "lazy_pkg" / "__init__.py").write_text(textwrap.dedent(PACKAGE))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("lazy_pkg")
    sys.modules.pop("lazy_pkg", None)


def test_a_name_of_the_block_loads_on_first_use_and_is_kept(package: object) -> None:
    assert "dedent" not in vars(package)
    assert package.dedent is textwrap.dedent  # type: ignore[attr-defined]
    assert vars(package)["dedent"] is textwrap.dedent


def test_only_same_name_reexports_count(package: object) -> None:
    with pytest.raises(AttributeError, match="module 'lazy_pkg' has no attribute 'other_name'"):
        package.other_name  # type: ignore[attr-defined]  # noqa: B018
    assert package.__all__ == ["dedent", "dumps"]  # type: ignore[attr-defined]
    assert "dedent" in dir(package)
    assert "annotations" not in dir(package)


@pytest.mark.parametrize(
    "name",
    ["guard", "guard.models", "guard.audit", "guard.serve", "guard.integrations.ray"],
)
def test_every_lazy_name_of_a_package_resolves(name: str) -> None:
    importlib.import_module(name)
    lazy, _ = read_exports(name)
    assert lazy
    for export, where in lazy.items():
        assert hasattr(importlib.import_module(where), export), f"{name}: {export} from {where}"
