"""The settler's parked hits (guard/gate/_parked.py): walked back equal and in order, whatever
mix of plain hits (kept as offsets and a shared prototype) and other hits is parked."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from guard.gate._parked import MAX_PROTOTYPES, ParkedHits
from guard.models import Hit

SPELLINGS = st.sampled_from(["<|end|>", "<|return|>", "<｜end｜>", "to=functions.x"])


@st.composite
def hits(draw: st.DrawFn) -> Hit:
    start = draw(st.integers(0, 10**12))
    spelled = draw(SPELLINGS)
    hit = Hit((draw(st.sampled_from(["H", "K"])),), start, start + len(spelled), spelled, "d")
    plain = draw(st.booleans())
    if plain:
        return hit
    return hit.replace(
        **draw(
            st.sampled_from(
                [
                    {"lead": max(0, start - 3)},
                    {"support": (Hit(("C",), start, start + 1, "x", "c"),)},
                    {"trips": True, "score": 1.5},
                    {"in_code": True},
                    {"anchor": 0},
                ]
            )
        )
    )


@given(st.lists(hits(), max_size=60))
def test_parked_hits_come_back_equal_and_in_order(parked: list[Hit]) -> None:
    store = ParkedHits()
    for hit in parked:
        store.append(hit)
    assert len(store) == len(parked) and bool(store) == bool(parked)
    assert list(store) == parked


def test_past_the_prototype_cap_hits_are_kept_as_they_are() -> None:
    store = ParkedHits()
    parked = [Hit(("H",), i, i + 3, f"<{i}>", "d") for i in range(MAX_PROTOTYPES + 50)]
    for hit in parked:
        store.append(hit)
    assert list(store) == parked
