"""The compiled escaper (one prefix tree per dialect) gives exactly the text of the plain scheme
(one alternative per spelling, overlapped search): same escaping, same unescaping, for every
dialect and ``all``, on text built from spellings, their halves, escaped forms and backslashes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.escape_reference import reference_escape, reference_unescape

from guard import _escaper, escape, unescape
from guard._escaper import _opens_plain, _source, escaper_for
from guard.dialects import DIALECTS, get_dialect

SOME = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = [*DIALECTS, "all"]


def _pieces(dialect: str) -> list[str]:
    d = get_dialect(dialect)
    pieces: list[str] = []
    for s in d.reserved:
        half = len(s) // 2
        pieces += [s, s[:half], s[half:], s[0], s[-1], escape(s, dialect)]
    pieces += ["\\", "\\\\", "|", "\uff5c", "<", ">", "<|", "|>", "<\uff5c", "\uff5c>", "]", "["]
    pieces += ["reserved_200100", "place\u2581holder\u2581no\u258112", "a", "_", " ", "\n"]
    pieces += ["<|assistant to=functions.bash|>", "<|<|start|>|>", "<\\|start\\|>", "]~b]~b]"]
    pieces += ["<unused12>", "<unused", "unused6241>", "<\\unused3>"]  # a bar-less family
    return sorted(set(pieces))


def _texts(dialect: str) -> st.SearchStrategy[str]:
    return st.lists(
        st.one_of(st.sampled_from(_pieces(dialect)), st.text(max_size=2)), max_size=20
    ).map("".join)


@pytest.mark.parametrize("name", NAMES)
@SOME
@given(data=st.data())
def test_escape_equals_the_plain_scheme(name: str, data: st.DataObject) -> None:
    text = data.draw(_texts(name))
    assert escape(text, name) == reference_escape(text, name)


@pytest.mark.parametrize("name", NAMES)
@SOME
@given(data=st.data())
def test_unescape_equals_the_plain_scheme(name: str, data: st.DataObject) -> None:
    text = data.draw(_texts(name))
    assert unescape(text, name) == reference_unescape(text, name)
    escaped = escape(text, name)
    assert unescape(escaped, name) == reference_unescape(escaped, name) == text


@pytest.mark.parametrize(
    "text",
    [
        "<" * 50,
        "<|" * 50,
        "[" * 50,
        "\\" * 50 + "|",
        "\\" * 50 + "|DSML|",
        "<\\\\\\|start\\|>",
        "]~b]~b]~b]",
        "<<|start|>|>",
        "<|reserved_200100|><|assistant to=functions.x|>",
        "<\uff5cplace\u2581holder\u2581no\u2581123\uff5c><\uff5ctool\u2581sep\uff5c>",
    ],
)
@pytest.mark.parametrize("name", NAMES)
def test_runs_and_nested_spellings_equal_the_plain_scheme(name: str, text: str) -> None:
    assert escape(text, name) == reference_escape(text, name)
    assert unescape(text, name) == reference_unescape(text, name)
    assert unescape(escape(text, name), name) == text


@SOME
@given(st.text(alphabet="<|>\\\uff5c[]~b!sSdD_ML", max_size=30))
@example("<\\|DSML\\|")
def test_all_on_marker_characters_equals_the_plain_scheme(text: str) -> None:
    assert escape(text, "all") == reference_escape(text, "all")
    assert unescape(text, "all") == reference_unescape(text, "all")


def test_spellings_share_branches() -> None:
    # the tree: one branch per first character at the top, not one per spelling
    source = _source(["<|start|>", "<|end|>", "<think>"], [], r"\\*")
    assert source.count("<") == 1
    assert escaper_for("all").find.pattern.count("(?:") < len(get_dialect("all").reserved)


@pytest.mark.parametrize(
    ("source", "plain"),
    [
        ("<\\|x\\|>", True),
        ("<(?:a|b)>", True),
        ("<a|b>", False),
        ("<*a", False),
        ("\\<a", False),
        ("(?:<a)", False),
        ("<[|]a", True),
    ],
)
def test_a_pattern_hangs_under_its_first_character_only_when_every_match_starts_with_it(
    source: str, plain: bool
) -> None:
    assert _opens_plain(source) is plain


@pytest.mark.parametrize("name", ["all", "deepseek", "minimax"])
@SOME
@given(data=st.data())
def test_overlapped_rewrites_written_in_small_blocks_equal_the_plain_scheme(
    name: str, data: st.DataObject
) -> None:
    # blocks of one position and no remembered offsets: every flush and lookup path runs
    text = data.draw(_texts(name))
    saved = _escaper._BLOCK, _escaper._SPELLINGS_KEPT
    _escaper._BLOCK, _escaper._SPELLINGS_KEPT = 1, 0
    try:
        assert escape(text, name) == reference_escape(text, name)
        assert unescape(text, name) == reference_unescape(text, name)
    finally:
        _escaper._BLOCK, _escaper._SPELLINGS_KEPT = saved


@pytest.mark.parametrize("name", NAMES)
@SOME
@given(data=st.data())
def test_large_texts_searched_without_the_gil_equal_the_plain_scheme(
    name: str, data: st.DataObject
) -> None:
    # every text takes the path of large ones: the `regex` engine, searched concurrently
    text = data.draw(_texts(name))
    saved = _escaper._FREE_FROM
    _escaper._FREE_FROM = 0
    try:
        assert escape(text, name) == reference_escape(text, name)
        assert unescape(text, name) == reference_unescape(text, name)
    finally:
        _escaper._FREE_FROM = saved


@pytest.mark.parametrize("name", ["all", "harmony"])
def test_a_large_text_gives_the_text_of_small_ones(name: str) -> None:
    unit = "see <|start|>, <think> and ]~b] \\<\\|end\\|> | x "
    text = unit * (2 * _escaper._FREE_FROM // len(unit))
    assert len(text) >= _escaper._FREE_FROM
    pieces = [escape(text[i : i + len(unit)], name) for i in range(0, len(text), len(unit))]
    assert escape(text, name) == "".join(pieces)
    assert unescape(escape(text, name), name) == text
