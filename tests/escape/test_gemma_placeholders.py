"""Gemma's placeholder tokens ``<unused0>`` .. ``<unused6241>`` (the pattern
``<unused[0-9]{1,4}>``, reserved by the ``gemma`` and ``gemini`` records): detection flags them,
``escape`` puts a backslash after the ``<`` (as for a bar-less literal) and ``unescape`` takes it
back, for every text, already escaped forms and backslash runs included."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from guard import detect, escape, get_dialect, unescape

PATTERN = "<unused[0-9]{1,4}>"
SOME = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("dialect", ["gemma", "gemini"])
def test_the_records_reserve_the_placeholders(dialect: str) -> None:
    assert PATTERN in get_dialect(dialect).reserved_patterns


@pytest.mark.parametrize("dialect", ["gemma", "gemini", "all"])
@pytest.mark.parametrize("token", ["<unused0>", "<unused12>", "<unused6226>", "<unused9999>"])
def test_detect_flags_a_placeholder_in_the_answer(dialect: str, token: str) -> None:
    text = f"The answer is{token} 42."
    v = detect(text, dialect=dialect)
    assert v.leak and v.signals == ("H",), v.explain()
    assert v.hits[0].evidence == token and v.cut == text.index(token)


@pytest.mark.parametrize(
    "text",
    [
        "<unused>",  # no digits
        "<unused12345>",  # five digits
        "<unused12",  # not closed
        "<unused-1>",
        "<UNUSED12>",
        "<\\unused12>",  # escaped
        "unused12",
    ],
)
def test_near_misses_are_no_placeholder(text: str) -> None:
    assert not detect(f"Done {text} here.", dialect="gemma").leak


def test_other_dialects_do_not_reserve_them() -> None:
    assert not detect("The answer is<unused6226> 42.", dialect="chatml").leak


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("<unused12>", "<\\unused12>"),
        ("a<unused0>b<unused6241>c", "a<\\unused0>b<\\unused6241>c"),
        ("<\\unused12>", "<\\\\unused12>"),  # an escaped form is escaped once more
        ("\\<unused3>", "\\<\\unused3>"),  # a backslash before the `<` is no escape run
        ("<unused12345>", "<unused12345>"),  # no placeholder: unchanged
        ("<unused>", "<unused>"),
        ("<unused12><start_of_turn>", "<\\unused12><\\start_of_turn>"),
    ],
)
@pytest.mark.parametrize("dialect", ["gemma", "gemini"])
def test_escape_puts_a_backslash_after_the_opening_bracket(
    dialect: str, text: str, escaped: str
) -> None:
    assert escape(text, dialect=dialect) == escaped
    assert unescape(escaped, dialect=dialect) == text


def test_all_escapes_them_too() -> None:
    assert escape("<unused6226>", dialect="all") == "<\\unused6226>"
    assert unescape("<\\unused6226>", dialect="all") == "<unused6226>"


def test_escaped_text_is_clean() -> None:
    text = "x<unused1>y<unused6226>z"
    assert detect(text, dialect="gemma").leak
    assert not detect(escape(text, dialect="gemma"), dialect="gemma").leak


_PIECES = [
    "<unused",
    "<unused1",
    "<unused12>",
    "<unused6226>",
    "<unused99999>",
    "<\\unused3>",
    "<\\\\unused3>",
    "unused",
    "<",
    ">",
    "\\",
    "\\\\",
    "0",
    "7",
    "<start_of_turn>",
    "<end_of_turn>",
    "<|tool_call>",
    "a",
    " ",
]
TEXTS = st.lists(
    st.one_of(st.sampled_from(_PIECES), st.text(alphabet="<>\\unsed0123|", max_size=3)),
    max_size=24,
).map("".join)


@pytest.mark.parametrize("dialect", ["gemma", "gemini", "all"])
@SOME
@given(text=TEXTS)
@example(text="<\\\\unused12>")
@example(text="<<unused1>>")
@example(text="<unused1<unused2>>")
def test_escape_round_trips(dialect: str, text: str) -> None:
    escaped = escape(text, dialect=dialect)
    assert unescape(escaped, dialect=dialect) == text
    # the escaped text holds no placeholder left to flag, and unescaping is the inverse on it
    assert escape(unescape(escaped, dialect=dialect), dialect=dialect) == escaped
    assert not any(h.evidence.startswith("<unused") for h in detect(escaped, dialect=dialect).hits)
