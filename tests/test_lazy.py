"""The packages' lazy names (guard/_lazy.py): read from the ``if TYPE_CHECKING:`` re-exports."""

from __future__ import annotations

import compileall
import importlib
import os
import shutil
import subprocess
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


def _run(code: str, path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(path), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=path, env=env, capture_output=True, text=True
    )


def test_a_byte_code_only_install_reads_its_names_from_the_code(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    shutil.copytree(
        root / "guard", tmp_path / "guard", ignore=shutil.ignore_patterns("__pycache__")
    )  # symlinked packages followed, as an install has them
    assert compileall.compile_dir(tmp_path / "guard", quiet=2, legacy=True)
    for source in (tmp_path / "guard").rglob("*.py"):
        source.unlink()
    code = textwrap.dedent("""
        import guard, guard.models
        assert not hasattr(guard, "nope") and not hasattr(guard.models, "nope")
        from guard.dialects import get_dialect
        assert guard.__spec__.origin.endswith(".pyc")
        print(guard.escape("<|im_start|>", dialect=get_dialect("chatml")))
        print(guard.__all__ == %r)
    """) % (importlib.import_module("guard").__all__,)
    run = _run(code, tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [guard_escape("<|im_start|>"), "True"]


def guard_escape(text: str) -> str:
    import guard

    return str(guard.escape(text, dialect="chatml"))


def test_an_unreadable_module_has_no_such_attribute_rather_than_an_import_error(
    package: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(package.__spec__, "loader", None)  # type: ignore[attr-defined]
    assert not hasattr(package, "dedent")
