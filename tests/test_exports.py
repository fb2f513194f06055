"""The public names of each public package are exactly its ``__all__``, and each loads."""

from __future__ import annotations

import importlib
import subprocess
import sys
import types

import pytest

import guard

PUBLIC = [
    "guard",
    "guard.models",
    "guard.errors",
    "guard.dialects",
    "guard.gate",
    "guard.scanners",
    "guard.stream",
    "guard.audit",
    "guard.signals",
    "guard.recovery",
]


def _public_names(module: types.ModuleType) -> set[str]:
    names = set()
    for name in dir(module):
        if name.startswith("_") or name == "annotations":
            continue
        value = getattr(module, name)
        if isinstance(value, types.ModuleType) and not callable(value):
            continue  # submodules bound by imports are not exports
        names.add(name)
    return names


def test_guard_exports_exactly_its_all() -> None:
    exported = set(guard.__all__) - {"__version__"}
    assert _public_names(guard) == exported
    for name in guard.__all__:
        assert getattr(guard, name) is not None


@pytest.mark.parametrize("name", PUBLIC)
def test_every_name_in_all_exists(name: str) -> None:
    module = importlib.import_module(name)
    for export in module.__all__:
        assert hasattr(module, export), f"{name}.__all__ names {export!r}, which is missing"


def test_version_matches_the_distribution() -> None:
    from importlib.metadata import version

    assert guard.__version__ == version("inband-guard")


@pytest.mark.parametrize(
    "first", ["guard", "guard.signals", "guard.recovery", "guard.models", "guard.errors"]
)
def test_each_package_works_as_the_first_import(first: str) -> None:
    code = f"import {first}; import guard; guard.detect('x')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_import_guard_loads_no_action_module() -> None:
    code = (
        "import sys, guard; guard.detect('x'); guard.escape('<|start|>');"
        "print(sorted(m for m in sys.modules if m.startswith('guard')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = done.stdout
    for heavy in ("guard.audit", "guard.serve", "guard.integrations", "guard.stream"):
        assert f"'{heavy}" not in loaded, f"{heavy} loaded by detect/escape: {loaded}"


def test_audit_is_callable_whichever_binding_came_first() -> None:
    code = (
        "import guard.audit, guard, io;"
        "r = guard.audit([{'messages': [{'role': 'user', 'content': 'hi'}]}]);"
        "print(type(r).__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "AuditReport"
