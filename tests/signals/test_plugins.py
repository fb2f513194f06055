"""Third-party signals through the `guard.signals` entry point group."""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import EntryPoint
from typing import Any, Literal

import pytest

import guard
import guard.signals as signals
from guard.errors import PluginError
from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers


class Shouting:
    code = "Z9"
    name = "shouting"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT})
    max_span = 8

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        i = text.original.find("AAAA")
        if i >= 0:
            yield Hit(signals=("Z9",), start=i, end=i + 4, evidence="AAAA", detail="shouting")


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
    assert [s.code for s in signals.load_signals()][-1] == "Z9"
    v = guard.detect("calm AAAA calm")
    assert not v.leak and v.hits[0].label == "Z9"  # found, but the default policy ignores Z9
    rule = guard.DEFAULT_POLICY.rule(Surface.TEXT).model_copy(
        update={"trip_alone": frozenset({"H", "K", "Z9"})}
    )
    policy = guard.Policy(surfaces={Surface.TEXT: rule})
    assert guard.detect("calm AAAA calm", policy=policy).cut == 5


def test_plugin_with_a_taken_code_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(signals.REGISTRY, "discover", _entry_points(Clash))
    with pytest.raises(ValueError, match="uses code 'H', already taken by 'control token'"):
        signals.load_signals()


class Zork:
    """A plugin of the current protocol: `zorkfinal` trips at its own start; its literal and
    hold spelling are all that streams and the audit prefilter need to know."""

    code = "Z9"
    name = "zork"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT})
    max_span = 9
    reach = (0, 0)
    order = 500
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return Triggers(literals=("zork",), hold_words=("zorkfinal",))

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        start = text.original.find("zorkfinal")
        while start >= 0:
            yield Hit(signals=("Z9",), start=start, end=start + 9, evidence="zorkfinal")
            start = text.original.find("zorkfinal", start + 1)


def _zork_policy() -> guard.Policy:
    rule = guard.DEFAULT_POLICY.rule(Surface.TEXT).model_copy(
        update={"trip_alone": frozenset({"H", "K", "Z9"})}
    )
    return guard.Policy(surfaces={Surface.TEXT: rule})


def _chunks(pieces: list[str]) -> list[dict[str, Any]]:
    return [{"choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces]


def test_plugin_signal_is_held_back_in_streams_with_no_other_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(signals.REGISTRY, "discover", _entry_points(Zork))
    text = "All done here. zorkfinal and then the rest of it"
    policy = _zork_policy()
    whole = guard.detect(text, policy=policy)
    assert whole.leak and whole.cut == text.index("zorkfinal")
    for i in range(1, len(text)):
        stream = guard.guard_stream(
            _chunks([text[:i], text[i:]]), policy=policy, on_leak="truncate"
        )
        shown = "".join(c["choices"][0]["delta"].get("content") or "" for c in stream)
        # without the published hold, a split inside `zorkfinal` would show its first letters
        assert shown == text[: whole.cut], i


def test_plugin_signal_is_prefiltered_in_audit_with_no_other_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(signals.REGISTRY, "discover", _entry_points(Zork))
    from guard.dialects import get_dialect
    from guard.gate import prefilter

    scanned: list[str] = []
    original = Zork.scan

    def counting(self: Zork, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        scanned.append(text.original)
        return original(self, text, ctx)

    monkeypatch.setattr(Zork, "scan", counting)
    filt = prefilter(get_dialect("harmony"), frozenset({Surface.TEXT}))
    assert filt is not None
    texts = [f"clean answer number {i}" for i in range(500)] + ["a zorkfinal here"]
    assert filt.candidates(texts) == [500]
    rows = [{"messages": [{"role": "assistant", "content": t}]} for t in texts]
    report = guard.audit(rows, policy=_zork_policy())
    assert [f.signals for f in report.findings] == [("Z9",)]
    assert scanned == ["a zorkfinal here"]  # the 500 clean texts never reached the signal


class Backwards(Shouting):
    """Reports an anchor before the text starts: a broken plugin."""

    code = "Y9"

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        if "AAAA" in text.original:
            yield Hit(signals=("Y9",), start=-1, end=3, evidence="AAA", detail="broken")


def test_plugin_hit_at_a_negative_offset_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(signals.REGISTRY, "discover", _entry_points(Backwards))
    with pytest.raises(PluginError, match="signal 'Y9' returned a hit at offset -1"):
        guard.detect("calm AAAA calm")
    assert not guard.detect("calm calm").hits  # no hit, nothing to refuse
