"""The distribution's package list names every package on disk (it is listed, not found,
because `guard.corpora` maps the top-level `corpora/` folder into the wheel)."""

from __future__ import annotations

import tomllib

from support.paths import ROOT


def test_pyproject_lists_every_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    folders = {"guard": "guard", "signals": "guard.signals", "recovery": "guard.recovery"}
    on_disk = {
        ".".join([*package.split("."), *p.parent.relative_to(ROOT / folder).parts])
        for folder, package in folders.items()
        for p in (ROOT / folder).rglob("__init__.py")
    }
    assert listed - {"guard.corpora", "guard.corpora.detect"} == on_disk
    mapped = config["tool"]["setuptools"]["package-dir"]["guard.corpora"]
    assert (ROOT / mapped / "detect").is_dir()


def test_distribution_name_and_extras() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["project"]["name"] == "inband-guard"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install 'guard[" not in readme  # the registry name `guard` is someone else's
