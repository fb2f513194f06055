"""`Hit`: a msgspec struct that pydantic models hold, validate and round-trip."""

from __future__ import annotations

import pickle
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from guard.models import Hit, Surface, Verdict

_offsets = st.integers(min_value=0, max_value=10**9)
_codes = st.tuples(st.sampled_from("HKMCGS")).map(tuple) | st.lists(
    st.sampled_from("HKMCGS"), min_size=1, max_size=4
).map(tuple)


@st.composite
def hits(draw: st.DrawFn, depth: int = 1) -> Hit:
    start = draw(_offsets)
    support = tuple(draw(st.lists(hits(depth - 1), max_size=2))) if depth > 0 else ()
    return Hit(
        signals=draw(_codes),
        start=start,
        end=start + draw(st.integers(min_value=0, max_value=100)),
        evidence=draw(st.text(max_size=12)),
        detail=draw(st.text(max_size=12)),
        anchor=draw(st.none() | st.integers(min_value=0, max_value=50)),
        support=support,
        in_code=draw(st.booleans()),
        trips=draw(st.booleans()),
        score=draw(st.floats(min_value=0, max_value=10, allow_nan=False)),
        lead=draw(st.none() | _offsets),
    )


def _verdict(*held: Hit) -> Verdict:
    return Verdict(leak=False, surface=Surface.TEXT, dialect="harmony", hits=held)


@given(st.lists(hits(), max_size=4))
def test_verdict_round_trips_its_hits_through_json_and_python(held: list[Hit]) -> None:
    verdict = _verdict(*held)
    assert Verdict.model_validate_json(verdict.model_dump_json()) == verdict
    assert Verdict.model_validate(verdict.model_dump()) == verdict
    assert pickle.loads(pickle.dumps(verdict)) == verdict


def test_a_verdict_keeps_the_hit_objects_it_is_given() -> None:
    hit = Hit(("H",), 0, 7, "<|end|>", "control token '<|end|>'")
    assert _verdict(hit).hits[0] is hit


def test_a_hit_dumps_to_its_fields_with_support_nested() -> None:
    inner = Hit(("C",), 0, 8, "analysis", "channel word", anchor=0)
    outer = Hit(("M", "C"), 9, 27, "to=functions.edit", "routing marker", support=(inner,))
    dumped = _verdict(outer).model_dump(mode="json")["hits"][0]
    assert dumped["signals"] == ["M", "C"]
    assert dumped["support"][0]["evidence"] == "analysis"
    assert set(dumped) == set(Hit.__struct_fields__)


@pytest.mark.parametrize("field", ["start", "end", "lead"])
def test_validation_refuses_a_negative_offset(field: str) -> None:
    fields = {"signals": ["H"], "start": 1, "end": 2, "evidence": "x", field: -1}
    with pytest.raises(ValidationError, match=re.escape(f"hits.0.mapping.{field}")):
        Verdict.model_validate(
            {"leak": False, "surface": "text", "dialect": "harmony", "hits": [fields]}
        )


def test_validation_refuses_unknown_fields_and_wrong_types() -> None:
    base = {"leak": False, "surface": "text", "dialect": "harmony"}
    with pytest.raises(ValidationError, match="extra_forbidden"):
        Verdict.model_validate(
            {
                **base,
                "hits": [
                    {"signals": ["H"], "start": 1, "end": 2, "evidence": "x", "colour": "red"}
                ],
            }
        )
    with pytest.raises(ValidationError, match=re.escape("hits.0")):
        Verdict.model_validate({**base, "hits": ["<|end|>"]})


def test_replace_makes_a_changed_copy() -> None:
    hit = Hit(("H",), 3, 10, "<|end|>")
    moved = hit.replace(trips=True, score=1.0)
    assert (moved.trips, moved.score, hit.trips) == (True, 1.0, False)
    assert moved.cut == 3 and moved.code == "H" and moved.label == "H"


def test_the_json_schema_describes_a_hit() -> None:
    schema = Verdict.model_json_schema()
    hit = schema["$defs"]["Hit"]
    assert hit["properties"]["start"]["minimum"] == 0
    assert set(hit["required"]) == {"signals", "start", "end", "evidence"}
