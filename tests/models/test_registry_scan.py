"""The registries share one scan of the installed entry points (it reads every distribution's
metadata): done once per process, and again after ``clear()``."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator

import pytest

from guard.models import Registry
from guard.models import _registry as registry_module


@pytest.fixture
def counted_scans(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    calls: list[int] = []
    real = importlib.metadata.entry_points
    eps = importlib.metadata.EntryPoints(
        [importlib.metadata.EntryPoint("extra", "json:dumps", "guard.test_group")]
    )

    class Found:
        groups = frozenset({"guard.test_group"})

        def select(self, group: str) -> importlib.metadata.EntryPoints:
            return eps.select(group=group)

    def scan() -> Found:
        calls.append(1)
        return Found()

    monkeypatch.setattr(importlib.metadata, "entry_points", scan)
    registry_module._installed.cache_clear()
    yield calls
    monkeypatch.setattr(importlib.metadata, "entry_points", real)
    registry_module._installed.cache_clear()


def test_every_registry_reads_one_scan(counted_scans: list[int]) -> None:
    first: Registry[object] = Registry("thing", "guard.test_group", {})
    second: Registry[object] = Registry("other", "guard.other_group", {})
    assert first.names() == ("extra",)
    assert second.names() == ()
    assert first.find("extra") is not None
    assert len(counted_scans) == 1


def test_clear_scans_again(counted_scans: list[int]) -> None:
    reg: Registry[object] = Registry("thing", "guard.test_group", {})
    reg.names()
    reg.clear()
    assert reg.names() == ("extra",)
    assert len(counted_scans) == 2
