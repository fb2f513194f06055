"""The lookalike view (``TextView``) read in bounded slices gives the view of the whole text:
the same normalised text and the same offset maps, for any text and any slice size."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guard.models import _text
from guard.models._fold_table import FOLD, IGNORABLE
from guard.models._text import TextView

SOME = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_IGNORABLE = frozenset(chr(cp) for first, last in IGNORABLE for cp in range(first, last + 1))
#: ASCII, folded lookalikes, deleted invisibles and other non-ASCII characters
_ALPHABET = [
    *"ab|<>:\n ",
    "\uff5c",
    "\uff1c",
    "\u0430",
    "\u01c0",
    "\u200b",
    "\u202e",
    "\u00ad",
    "\ufe0f",
    "\U000e0041",
    "\u00e9",
    "\u4e2d",
    "\U0001d41a",
]


def _reference(text: str) -> tuple[str, list[int]]:
    """The view character by character: fold, then delete; the original index of each kept
    character."""
    norm: list[str] = []
    kept: list[int] = []
    for i, ch in enumerate(text):
        folded = FOLD.get(ord(ch), ch)
        if folded in _IGNORABLE:
            continue
        norm.append(folded)
        kept.append(i)
    return "".join(norm), kept


SIZES = pytest.mark.parametrize("size", [1, 3, 64, 1 << 16])


@contextmanager
def slices_of(size: int) -> Iterator[None]:
    """Slices (and the probe thresholds) small enough that texts span many of them."""
    saved = _text._SLICE, _text._SHORT, _text._PROBE, _text._SPARSE
    _text._SLICE = size
    _text._SHORT, _text._PROBE, _text._SPARSE = min(size, 8), min(4 * size, 32), 4
    try:
        yield
    finally:
        _text._SLICE, _text._SHORT, _text._PROBE, _text._SPARSE = saved


def _check(text: str) -> None:
    view = TextView(text)
    norm, kept = _reference(text)
    assert view.norm == norm
    assert view.identity == (len(kept) == len(text))
    for n, o in enumerate(kept):
        assert view.to_original(n) == o
        assert view.to_original_end(n + 1) == o + 1
    for o in range(len(text) + 1):
        assert view.to_norm(o) == sum(1 for k in kept if k < o)


@SIZES
@SOME
@given(text=st.text(alphabet=st.sampled_from(_ALPHABET), max_size=120))
def test_the_view_in_slices_is_the_view_of_the_whole_text(size: int, text: str) -> None:
    with slices_of(size):
        _check(text)


@SIZES
@SOME
@given(text=st.text(max_size=60))
def test_the_view_of_any_text(size: int, text: str) -> None:
    with slices_of(size):
        _check(text)


@pytest.mark.parametrize(
    "unit", ["a\u200b<|start|> b ", "\uff1c\uff5cchannel\uff5c\uff1e ", "\u202e<|end|>\u202c"]
)
def test_a_large_text_is_read_in_slices(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = unit * (3 * _text._SLICE // len(unit) + 7)
    seen: list[int] = []
    real = _text._slices

    def counted(n: int) -> range:
        seen.append(n)
        return real(n)

    monkeypatch.setattr(_text, "_slices", counted)
    view = TextView(text)
    assert seen and all(n == len(text) or n == len(view.norm) for n in seen)
    assert view.norm == _reference(text)[0]
