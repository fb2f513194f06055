"""Growth of ``escape`` and ``unescape`` under the dialects whose spellings overlap (DeepSeek,
MiniMax) and under the union ``all``, on the adversarial families that load the spelling tree:
runs of a spelling's first characters, spellings cut apart, dense spellings, invisibles around
them. Time at 4x the input is at most 5x; the peak grows at most with the output. Each engine
is measured on its own (texts of 64K characters or more go to the ``regex`` engine, searched
without the GIL; shorter ones to the stdlib engine): both sizes are sent to one of them."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from growth import check_growth, costs

from benchmarks._adversarial import build
from guard import _escaper, escape, unescape

pytestmark = pytest.mark.complexity

#: large enough that the union's cheapest family is timed above the noise floor
SIZE = 64_000
SLACK = 1_280_000
FAMILIES = (
    "run of <",
    "run of <|",
    "run of [",
    "markers split",
    "repeated <think>",
    "bidi around markers",
    "backslash run",
)
DIALECTS = ("all", "deepseek", "minimax")


def _runner(entry: str, family: str, dialect: str, size: int) -> Callable[[], object]:
    # the union has no scanner of its own: its families are built with Harmony's markers and
    # calls, and the union escapes every dialect's spellings in them
    text = build(family, "harmony" if dialect == "all" else dialect, size)
    if entry == "unescape":
        text = escape(text, dialect)
        return lambda: unescape(text, dialect)
    return lambda: escape(text, dialect)


#: the size from which texts go to the `regex` engine, per engine measured
ENGINES = {"stdlib": 1 << 62, "regex": 0}


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("entry", ["escape", "unescape"])
def test_escape_growth(
    entry: str, family: str, dialect: str, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_escaper, "_FREE_FROM", ENGINES[engine])
    small_run = _runner(entry, family, dialect, SIZE)
    large_run = _runner(entry, family, dialect, 4 * SIZE)
    for attempt in range(2):
        small, large = costs(small_run, large_run)
        try:
            check_growth(
                small,
                large,
                bounded=False,
                slack=SLACK,
                what=f"{entry} on {family} ({dialect}, {SIZE:,} chars)",
            )
            return
        except AssertionError:
            if attempt:
                raise
