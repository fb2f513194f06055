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


def test_license_file_is_in_the_repository_and_named_for_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["project"]["license"] == "MIT"
    assert config["project"]["license-files"] == ["LICENSE"]  # copied into the wheel's metadata
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the guard authors\n")
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in text
    requires = config["build-system"]["requires"]
    assert any(r.startswith("setuptools>=") and int(r.split(">=")[1]) >= 77 for r in requires)


def test_project_urls() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    urls = config["project"]["urls"]
    assert {"Repository", "Documentation", "Issues"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())
