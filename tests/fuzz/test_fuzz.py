"""The fuzz targets, briefly: their seed corpus, then a few hypothesis examples each (the long,
coverage-guided run is ``python -m tests.fuzz.run``, tests/fuzz/README.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.targets import TARGETS

CORPUS = Path(__file__).resolve().parent / "corpus"
_BUDGET = {
    "escape": 40,
    "scanners": 40,
    "detect": 40,
    "audit": 25,
    "proxy": 10,
    "wire_request": 60,
    "wire_answer": 40,
}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_seed_corpus(name: str) -> None:
    seeds = sorted((CORPUS / name).glob("*"))
    assert seeds, f"no seeds for {name}"
    for seed in seeds:
        TARGETS[name](seed.read_bytes())


def _fuzz(name: str) -> Callable[[], None]:
    @settings(
        max_examples=_BUDGET[name],
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(st.binary(max_size=512))
    def run(data: bytes) -> None:
        TARGETS[name](data)

    return run


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_fuzz_briefly(name: str) -> None:
    _fuzz(name)()
