"""Third-party signals through the `guard.signals` entry point group."""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import EntryPoint
from typing import Any, Literal

import pytest

import guard
import signals
from guard.models import Hit, ScanContext, Surface, TextView


class Shouting:
    code = "Z"
    name = "shouting"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT})
    max_span = 8

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        i = text.original.find("AAAA")
        if i >= 0:
            yield Hit(signals=("Z",), start=i, end=i + 4, evidence="AAAA", detail="shouting")


class Clash(Shouting):
    code = "H"


def _entry_points(cls: type) -> Any:
    ep = EntryPoint(name="x", value=f"{__name__}:{cls.__name__}", group=signals.ENTRY_POINT_GROUP)

    def fake() -> list[EntryPoint]:
        return [ep]

    return fake


@pytest.fixture(autouse=True)
def _fresh_registry() -> Iterable[None]:
    signals.REGISTRY.clear()
    yield
    signals.REGISTRY.clear()


def test_plugin_signal_is_loaded_and_can_trip_through_a_policy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(signals.REGISTRY, "discover", _entry_points(Shouting))
    assert [s.code for s in signals.load_signals()][-1] == "Z"
    v = guard.detect("calm AAAA calm")
    assert not v.leak and v.hits[0].label == "Z"  # found, but the default policy ignores Z
    rule = guard.DEFAULT_POLICY.rule(Surface.TEXT).model_copy(
        update={"trip_alone": frozenset({"H", "K", "Z"})}
    )
    policy = guard.Policy(surfaces={Surface.TEXT: rule})
    assert guard.detect("calm AAAA calm", policy=policy).cut == 5


def test_plugin_with_a_taken_code_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(signals.REGISTRY, "discover", _entry_points(Clash))
    with pytest.raises(ValueError, match="uses code 'H', already taken by 'control token'"):
        signals.load_signals()
