"""An audit line decodes to what ``json.loads`` gives, or fails as ``json.loads`` does: the fast
decoder never changes a report (issue: identical reports, fall back where they disagree)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard._json import decode_line, loads

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63, max_value=2**200)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _standard(raw: bytes) -> object:
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        return ("error", type(exc))


def _fast(raw: bytes) -> object:
    try:
        return decode_line(raw)
    except (ValueError, RecursionError) as exc:
        return ("error", type(exc))


@settings(max_examples=400, deadline=None)
@given(_JSON, st.booleans())
def test_values_decode_as_json_loads_decodes_them(value: object, ascii_only: bool) -> None:
    raw = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    assert repr(_fast(raw)) == repr(_standard(raw))


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=40) | st.text(max_size=30).map(lambda t: t.encode("utf-8", "replace")))
def test_arbitrary_bytes_give_the_same_value_or_the_same_error(raw: bytes) -> None:
    assert repr(_fast(raw)) == repr(_standard(raw))


@pytest.mark.parametrize(
    "raw",
    [
        b'"\\ud800"',  # lone surrogate escape: json takes it, msgspec does not
        b"NaN",
        b"[-Infinity]",
        b"[1e400]",
        b"123456789012345678901234567890",
        b'{"a": 1, "a": 2}',
        b"\xef\xbb\xbf{}",
        b'"\xff"',
        b"[" * 5000 + b"]" * 5000,
        b'{"a": "b"} trailing',
    ],
)
def test_edge_cases_follow_the_standard_parser(raw: bytes) -> None:
    assert repr(_fast(raw)) == repr(_standard(raw))


@settings(max_examples=300, deadline=None)
@given(_JSON | st.text(max_size=30), st.booleans())
def test_text_decodes_as_json_loads_decodes_it(value: object, as_json: bool) -> None:
    """``guard serve`` decodes upstream events (text) with ``loads``."""
    data = json.dumps(value) if as_json else str(value)

    def outcome(fn: object) -> object:
        try:
            return fn(data)  # type: ignore[operator]
        except (ValueError, RecursionError) as exc:
            return ("error", type(exc))

    assert repr(outcome(loads)) == repr(outcome(json.loads))
