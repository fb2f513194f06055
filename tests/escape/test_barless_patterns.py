"""A user dialect file whose ``reserved_patterns`` hold a pattern without a bar: one that opens
with a plain character escapes like a bar-less literal (a backslash after that character) and
round-trips; one that opens with a class, a group, an escape or a quantified character cannot be
escaped that way: the file fails to load (a ``DialectFileError`` naming the field), and a record
built in code with such a pattern is refused by the escaper (a ``ValueError`` naming the
pattern) the first time it is asked to escape or unescape; detection still reads it."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guard import detect, escape, unescape
from guard.dialects import Dialect, DialectFileError, load_dialect, register, unregister

SOME = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def record(pattern: str, name: str = "zeta") -> Dialect:
    # a TOML literal string keeps the pattern's backslashes as they are
    return load_dialect(
        f'name = "{name}"\nreserved = ["<|zeta_end|>", "<zeta>"]\n'
        f"reserved_patterns = ['{pattern}']\n"
    )


SLOT = record("<slot[0-9]{1,3}>")


def test_the_file_keeps_the_pattern_as_written() -> None:
    assert SLOT.reserved_patterns == ("<slot[0-9]{1,3}>",)
    assert record(r"<u(?:nused|nk)\d+>").reserved_patterns == (r"<u(?:nused|nk)\d+>",)


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("a <slot12> b", "a <\\slot12> b"),
        ("<slot1><slot2>", "<\\slot1><\\slot2>"),
        ("<\\slot3>", "<\\\\slot3>"),
        ("\\<slot3>", "\\<\\slot3>"),
        ("<slot>", "<slot>"),
        ("<slot1234>", "<slot1234>"),
        ("<slot7><zeta><|zeta_end|>", "<\\slot7><\\zeta><\\|zeta_end\\|>"),
    ],
)
def test_a_plain_opening_escapes_after_its_first_character(text: str, escaped: str) -> None:
    assert escape(text, dialect=SLOT) == escaped
    assert unescape(escaped, dialect=SLOT) == text


def test_detect_flags_the_pattern_and_not_its_escaped_form() -> None:
    # glued to its text: markup, not a token named in a sentence (that one is I's, see below)
    v = detect("ok <slot42>go", dialect=SLOT)
    assert v.leak and v.signals == ("H",) and v.hits[0].evidence == "<slot42>"
    assert not detect(escape("ok <slot42>go", dialect=SLOT), dialect=SLOT).leak
    named = detect("ok <slot42> go", dialect=SLOT)
    assert not named.leak and named.hits[0].signals == ("H", "I")


def test_an_alternation_inside_a_group_after_a_plain_opening() -> None:
    d = record("<(?:ab|cd)x>")
    assert escape("<abx> <cdx> <efx>", dialect=d) == "<\\abx> <\\cdx> <efx>"
    assert unescape("<\\abx> <\\cdx> <efx>", dialect=d) == "<abx> <cdx> <efx>"


@SOME
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["<slot", "<slot1>", "<slot999>", "<\\slot2>", "<zeta>", "\\", "<"]),
            st.text(alphabet="<>\\slot019|", max_size=3),
        ),
        max_size=20,
    ).map("".join)
)
def test_a_plain_opening_round_trips(text: str) -> None:
    escaped = escape(text, dialect=SLOT)
    assert unescape(escaped, dialect=SLOT) == text
    assert escape(unescape(escaped, dialect=SLOT), dialect=SLOT) == escaped


BAD = [
    r"[<]unused\d+>",  # a class
    r"(<)unused\d+>",  # a group
    r"(?:<)unused\d+>",
    r"\<unused\d+>",  # an escape
    r".unused\d+>",
    "<?slot[0-9]>",  # a quantified first character
    "<a>|<b>",  # an alternation at the top level
]


@pytest.mark.parametrize("pattern", BAD)
def test_a_pattern_that_does_not_open_plain_fails_to_load(pattern: str) -> None:
    with pytest.raises(DialectFileError, match=r"reserved_patterns\[0\]: .*plain character"):
        record(pattern)


def coded(pattern: str, name: str = "zeta") -> Dialect:
    return Dialect(name=name, reserved=("<|zeta_end|>", "<zeta>"), reserved_patterns=(pattern,))


@pytest.mark.parametrize("pattern", BAD)
def test_a_record_built_in_code_with_such_a_pattern_cannot_be_escaped(pattern: str) -> None:
    d = coded(pattern)
    message = "a reserved pattern without a bar must open with a plain character"
    with pytest.raises(ValueError, match=message) as caught:
        escape("nothing reserved here", dialect=d)
    assert repr(pattern) in str(caught.value)
    with pytest.raises(ValueError, match=message):
        unescape("nothing reserved here", dialect=d)


def test_detection_still_reads_such_a_pattern() -> None:
    d = coded(r"[<]unused\d+>")
    v = detect("x <unused5>", dialect=d)
    assert v.leak and v.hits[0].evidence == "<unused5>"


def test_a_registered_record_fails_at_its_first_escape_by_name() -> None:
    d = coded(r"[<]unused\d+>", name="zetabad")
    register(d)
    try:
        with pytest.raises(ValueError, match="must open with a plain character"):
            escape("x", dialect="zetabad")
    finally:
        unregister("zetabad")
