"""The shortcuts that make leak-heavy text cheap (the performance issue's per-hit cost) give the
answers of the plain searches they stand in for.

- The normalised view gathers the distinct non-ASCII characters of mostly-ASCII text by one scan
  for runs of them, instead of hashing every character: exact because every character it folds
  or deletes is non-ASCII; views equal those built from a plain per-character reference.
- C finds the channel word before a marker by a suffix test instead of trying its end-anchored
  pattern at each position of the window: the same span as the pattern, for every window.
- S skips windows without a non-ASCII character and starts its script search at the first one:
  the same run as the plain search (every script it looks for lies outside ASCII).
"""

from __future__ import annotations

from unittest.mock import patch

import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guard import detect
from guard.models import TextView
from guard.models._fold_table import FOLD, IGNORABLE
from guard.signals import script_mixing
from guard.signals.channel_adjacency import _WORD, WORDS, word_before
from guard.signals.script_mixing import _RUN

PROPS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DELETED = {chr(cp) for first, last in IGNORABLE for cp in range(first, last + 1)}


def _reference_norm(text: str) -> str:
    return "".join(FOLD.get(ord(ch), ch) for ch in text if ch not in DELETED)


def test_view_only_folds_and_deletes_non_ascii_characters() -> None:
    assert all(cp >= 0x80 for cp in FOLD)
    assert all(first >= 0x80 for first, _last in IGNORABLE)


pieces = st.sampled_from(
    [
        "to=functions.f ",
        "plain words ",
        "x" * 300,
        "’",
        "é",
        "大发",
        "\u200b",
        "\u00ad",
        "ｃｏｍｍｅｎｔａｒｙ",
        "<｜end｜>",
        "а",  # Cyrillic a
        "\U000e0041",
        "\n",
    ]
)
texts = st.lists(pieces, max_size=60).map("".join)


@PROPS
@given(texts, st.integers(0, 5000))
def test_view_equals_the_per_character_reference(body: str, padding: int) -> None:
    # Long ASCII padding puts the non-ASCII runs beyond the probe, or makes them sparse in it.
    for text in (body, "a" * padding + body, body + "b" * padding):
        view = TextView(text)
        assert view.norm == _reference_norm(text)
        kept = [i for i, ch in enumerate(text) if ch not in DELETED]
        assert [view.to_original(n) for n in range(len(view.norm))] == kept


def test_view_folds_a_lookalike_far_into_mostly_ascii_text() -> None:
    text = "prose " * 2000 + "<｜end｜>" + " more" * 10
    assert TextView(text).norm.endswith("<|end|> more more more more more more more more more more")


window_text = st.lists(
    st.sampled_from(
        [*"ab ZanlysitcomerfuvpA\t\n}\"'`", "ſ", "K", "ı", "é", "ANALYSIS", "Final", "tool"]
    ),
    max_size=40,
).map("".join)


@PROPS
@given(window_text, st.data())
def test_c_word_before_finds_the_span_of_the_end_anchored_pattern(
    norm: str, data: st.DataObject
) -> None:
    end = data.draw(st.integers(0, len(norm)))
    lo = data.draw(st.integers(0, end))
    m = _WORD.search(norm, lo, end)
    expected = None if m is None else (m.start(), m.start() + len(m.group().rstrip()))
    assert word_before(norm, lo, end) == expected


def test_c_no_channel_word_is_a_suffix_of_another() -> None:
    # word_before tests one suffix and stops: that is only exact while this holds
    assert not [(a, b) for a in WORDS for b in WORDS if a != b and b.endswith(a)]


def test_c_word_before_respects_the_letter_before_the_window() -> None:
    # the pattern's look-behind sees the character before the window's start
    assert word_before("xanalysis ", 1, 10) is None
    assert word_before(" analysis ", 1, 10) == (1, 9)


def test_s_script_runs_are_never_ascii() -> None:
    ascii_chars = "".join(map(chr, range(128)))
    assert _RUN.search(ascii_chars + ascii_chars[::-1]) is None


script_pieces = st.sampled_from(
    ["word ", "大发官网", "é", "Ж", "ქართ", "x" * 40, " analysis", " code ", "\n", "大"]
)


@PROPS
@given(
    st.lists(script_pieces, max_size=12).map("".join),
    st.lists(script_pieces, max_size=12).map("".join),
    st.sampled_from(["prose ", "文字 ", ""]),
)
def test_s_skipping_ascii_windows_keeps_every_script_hit(
    before: str, after: str, filler: str
) -> None:
    text = filler * 40 + before + " to=functions.edit" + after + filler * 40
    fast = detect(text)
    # An empty pattern matches at the window's start: the plain search over the whole window.
    with patch.object(script_mixing, "_NON_ASCII", regex.compile("")):
        plain = detect(text)
    assert fast == plain
