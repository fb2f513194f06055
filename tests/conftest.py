"""Which tests the default run leaves out (README, "Tests").

* ``integration``: the framework integrations with their real packages (LiteLLM, the OpenAI
  Agents SDK, LangChain, Ray, datasets). They need the ``dev`` extra; in a set-up with only the
  ``test`` extra their modules are not even collected (they import the framework at the top).
* ``slow``: the fuzz targets' property runs and the tests listed in :data:`SLOW`.

The default run (``addopts`` in pyproject.toml) is ``-m 'not slow and not integration'``; CI
also runs ``pytest -m "slow or integration"``, so every test runs there.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent

#: test module (relative to tests/) -> the package it needs; marked ``integration``
INTEGRATION_MODULES = {
    "integrations/test_integrations_litellm.py": "litellm",
    "integrations/test_integrations_agents.py": "agents",
    "integrations/test_integrations_langchain.py": "langchain",
    "integrations/test_ray.py": "ray",
}
#: single tests (``module::name``) that need an integration package
INTEGRATION_TESTS = {"audit/test_rows.py::test_hugging_face_datasets_map_recipe"}
#: whole folders marked ``slow``
SLOW_FOLDERS = ("fuzz/",)
#: single tests (``module::name``, parameters ignored) marked ``slow``: measured with
#: ``pytest --durations`` on a 2-core machine, each several seconds or more
SLOW: set[str] = set()


def _relative(path: Path) -> str:
    return path.resolve().relative_to(_HERE).as_posix()


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    try:
        relative = _relative(collection_path)
    except ValueError:
        return None
    package = INTEGRATION_MODULES.get(relative)
    if package is not None and importlib.util.find_spec(package) is None:
        return True  # the test extra alone: the framework is not installed
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        try:
            module = _relative(item.path)
        except ValueError:
            continue
        test = f"{module}::{item.originalname if isinstance(item, pytest.Function) else item.name}"
        if module in INTEGRATION_MODULES or test in INTEGRATION_TESTS:
            item.add_marker(pytest.mark.integration)
        if module.startswith(SLOW_FOLDERS) or test in SLOW:
            item.add_marker(pytest.mark.slow)
