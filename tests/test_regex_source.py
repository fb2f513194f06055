"""guard._regex_source.top_level_alternatives: the one scan of a pattern's top-level ``|`` that
the escaper (pattern families hung under a plain first character) and the gate's wake test
share."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guard._escaper import _opens_plain
from guard._regex_source import top_level_alternatives


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("", [""]),
        ("abc", ["abc"]),
        ("a|b", ["a", "b"]),
        ("a||b", ["a", "", "b"]),
        ("|a", ["", "a"]),
        ("a|", ["a", ""]),
        ("(a|b)|c", ["(a|b)", "c"]),
        ("(?:a|(b|c))", ["(?:a|(b|c))"]),
        ("[|]|x", ["[|]", "x"]),
        (r"a\|b", [r"a\|b"]),
        (r"[\]|]|y", [r"[\]|]", "y"]),
        (r"\(|x", [r"\(", "x"]),
        ("<\\|\\w+\\|>|<think>", ["<\\|\\w+\\|>", "<think>"]),
        ("x\\", ["x\\"]),  # a trailing backslash escapes nothing and splits nothing
    ],
)
def test_alternatives_of_a_source(source: str, expected: list[str]) -> None:
    assert top_level_alternatives(source) == expected


_SOURCES = st.text(alphabet="ab|()[]\\", max_size=24)


@given(_SOURCES)
def test_the_alternatives_join_back_to_the_source(source: str) -> None:
    parts = top_level_alternatives(source)
    assert "|".join(parts) == source
    assert parts


@given(_SOURCES)
def test_an_alternative_at_depth_zero_is_not_split_again(source: str) -> None:
    # only when the scan ends balanced: an unclosed group or class changes what later bars mean
    for part in top_level_alternatives(source):
        if part.count("(") == part.count(")") and "[" not in part and "\\" not in part:
            assert top_level_alternatives(part) == [part]


@pytest.mark.parametrize(
    ("source", "opens_plain"),
    [
        ("<\\|\\w+\\|>", True),
        ("<a|<b", False),
        ("<(?:a|b)", True),
        ("<[|]", True),
        ("a*b", False),
        ("(a)", False),
        ("", False),
    ],
)
def test_the_escaper_hangs_only_a_pattern_without_a_top_level_bar(
    source: str, opens_plain: bool
) -> None:
    assert _opens_plain(source) is opens_plain


def test_longest_match_and_literal_prefixes() -> None:
    from guard._regex_source import literal_prefixes, longest_match

    assert longest_match([r"<\|im_end\|>", "<think>"]) == 10
    assert longest_match([r"<\|reserved_\d+\|>"]) is None  # unbounded
    assert longest_match([r"\p{L}"]) is None  # only the regex module reads it
    assert longest_match([]) is None
    assert literal_prefixes([r"<\|a\|>", "<b>"]) == {"<", "<|", "<|a", "<|a|", "<b"}
    assert literal_prefixes([r"<\| ?(?i:a) ?\|>"]) is None  # not a literal
