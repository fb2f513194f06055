"""The prefilter is a superset: every text it leaves out yields no hit (docs/detection.md,
"Gate"); its literal search and its regex search agree; signals that need declared tools are
left out only when none are declared."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard import Surface, detect, get_dialect
from guard.gate._literals import _GATE_SPAN, _GATE_TRIES, _find, _gate
from guard.gate._prefilter import _starts, prefilter

_HARMONY = get_dialect("harmony")
_PIECES = st.sampled_from(
    [
        "plain words. ",
        "\n",
        "assistantfinal",
        "assistant",
        "assistantanalysis",
        "<|end|>",
        "to=functions.read",
        '{"name": "read", "arguments": {}}',
        "The user asks for the file. We need to read it. ",
        "ｔｏ＝functions.x",
        "naïve café ",
        "functions.",
        "call:f{a:1}",
        "} ",
        "? No. ",
        "Need short reply. ",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_PIECES, max_size=6).map("".join), min_size=1, max_size=12))
def test_batched_candidates_are_a_superset_of_the_texts_with_hits(texts: list[str]) -> None:
    for surface in (Surface.TEXT, Surface.THINKING, Surface.TOOL_ARG):
        filt = prefilter(_HARMONY, frozenset({surface}), tools_known=False)
        assert filt is not None
        found = set(filt.candidates(texts))
        # one by one, the same answer
        assert found == {i for i, t in enumerate(texts) if filt.could_hit(t)}
        for i, text in enumerate(texts):
            if detect(text, surface=surface).hits:
                assert i in found, (surface, text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(_PIECES, max_size=6).map("".join), min_size=2, max_size=12))
def test_literal_search_agrees_with_the_combined_regex(texts: list[str]) -> None:
    filt = prefilter(_HARMONY, frozenset({Surface.TEXT}), tools_known=False)
    assert filt is not None and filt.pattern is None  # the literal path is the one taken
    sep = filt.sep
    assert sep is not None
    by_regex = set()
    for i, text in enumerate(texts):
        if filt.search.search(text):
            by_regex.add(i)
    assert filt._joined(texts, list(range(len(texts))), normalise=False) == by_regex


def test_undeclared_tool_signal_is_left_out_only_without_declared_tools() -> None:
    names = frozenset({Surface.TOOL_NAME})
    # U needs declared tools: with them every name must be judged, without them the charset
    # rule's promise (a character outside identifiers) decides
    assert prefilter(_HARMONY, names, tools_known=True) is None
    without = prefilter(_HARMONY, names, tools_known=False)
    assert without is not None
    assert without.candidates(["read_file", "get weather", "lookup"]) == [1]
    # and the whole-text gate takes the matching path
    assert detect("get_weathr", surface="tool_name", tools=["get_weather"]).leak
    assert not detect("get_weathr", surface="tool_name").leak


#: Pieces that reach the head and tail checks: opening words after blanks (up to past the head
#: the opening check reads), leads, and ending literals near and far from a text's end.
_ENDS_PIECES = st.sampled_from(
    [
        "final",
        "analysis",
        " ",
        " " * 50,
        "\t\n",
        "We need to ",
        "Okay, the user ",
        "x" * 700,
        "plain words. ",
        '"name"',
        "<tool_call>",
        "functions.",
        "\u00a0",
        "naïve ",
        "}",
        "｝",
        ">",
        "? No",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_ENDS_PIECES, max_size=8).map("".join), min_size=2, max_size=12))
def test_batched_head_and_tail_checks_agree_with_one_text_at_a_time(texts: list[str]) -> None:
    filt = prefilter(_HARMONY, frozenset({Surface.TEXT, Surface.TOOL_ARG}), tools_known=False)
    assert filt is not None and filt.start is not None  # the batched path is the one taken
    assert filt.ending_literals and filt.opening and filt.lead is not None
    assert filt.candidates(texts) == [i for i, t in enumerate(texts) if filt.could_hit(t)]


def test_an_ending_literal_counts_only_in_the_tail() -> None:
    filt = prefilter(_HARMONY, frozenset({Surface.TEXT}), tools_known=False)
    assert filt is not None and filt.ending_span
    far = "<tool_call>" + "x" * filt.ending_span  # the literal ends before the tail
    near = "x" * filt.ending_span + "<tool_call>"
    assert filt.candidates(["plain", far, near, far]) == [2]
    assert not filt.could_hit(far) and filt.could_hit(near)


def test_an_ending_literal_with_a_promised_last_character_counts_only_in_texts_ending_so() -> None:
    # J promises that a text it fires on ends (before blanks) in `}`, `]`, `)` or `>`
    filt = prefilter(_HARMONY, frozenset({Surface.TEXT}), tools_known=False)
    assert filt is not None and filt.ending_last.get('"name"') == "}])>"
    call = '{"name": "read", "arguments": {}}'
    texts = [call + " and then prose", call + "\n ", "the " + call + ".", "x"]
    assert filt.candidates(texts) == [1]
    assert [filt.could_hit(t) for t in texts] == [False, True, False, False]
    # a literal of a signal without such a promise is looked for whatever the text ends in
    assert "Need " not in filt.ending_last and filt.candidates(["Need more. ok"]) == [0]


def test_an_opening_word_counts_only_within_the_head() -> None:
    filt = prefilter(_HARMONY, frozenset({Surface.TEXT}), tools_known=False)
    assert filt is not None and "final" in filt.opening
    inside = " " * (filt.head - len("final")) + "final answer"
    beyond = " " + inside
    assert filt.candidates(["plain", beyond, inside]) == [2]
    assert filt.could_hit(inside) and not filt.could_hit(beyond)


def test_literals_without_a_gate_are_looked_for_behind_their_common_opening() -> None:
    filt = prefilter(_HARMONY, frozenset({Surface.TEXT}), tools_known=False)
    assert filt is not None and filt.shared == "assistant"
    texts = ["an assistant answers", "assistantcommentary", "the assistant", "x assistantfinal"]
    assert filt._joined(texts, [0, 1, 2, 3], normalise=False) == {1, 3}
    assert filt._joined(texts, [0, 2], normalise=False) == set()


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, max_size=8).map("".join))
def test_one_text_check_agrees_with_the_combined_regex(text: str) -> None:
    # the ordered literal checks (gated shortest first, gateless behind their common opening)
    # answer what one search for every literal answers
    filt = prefilter(_HARMONY, frozenset({Surface.TEXT}), tools_known=False)
    assert filt is not None
    assert filt._anywhere(text) == (filt.search.search(text) is not None)


def test_literals_with_a_gate_are_checked_shortest_first_and_before_the_others() -> None:
    filt = prefilter(_HARMONY, frozenset({Surface.TEXT}), tools_known=False)
    assert filt is not None
    gates = [gate for gate, _ in filt.checks]
    gated = [lit for gate, lit in filt.checks if gate is not None]
    assert gated == sorted(gated, key=lambda lit: (len(lit), lit))
    assert gates.index(None) == len(gated)
    # a brace without "json{" and "<|" after it: found without the longer literal deciding
    assert filt._anywhere("{x} " * 10 + "<|end|>")
    assert not filt._anywhere("{x} the assistant answers " * 10)


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="<|to=json{ x", max_size=200),
    st.sampled_from(["<|", "to=", "json{", "{", "||"]),
    st.integers(min_value=0, max_value=220),
)
def test_gate_first_search_finds_what_find_finds(haystack: str, literal: str, start: int) -> None:
    # the gate character may be rare or common (more than _GATE_TRIES times): same answer
    gate = _gate(literal)
    assert gate is not None
    assert _find(haystack, literal, gate, start) == haystack.find(literal, start)
    assert _find(haystack, literal, None, start) == haystack.find(literal, start)


def test_gate_first_search_past_many_gate_characters() -> None:
    haystack = "{" * (3 * _GATE_TRIES) + "json{" + "{" * 10 + "json{"
    first = 3 * _GATE_TRIES
    assert _find(haystack, "json{", "{") == first
    assert _find(haystack, "json{", "{", first + 1) == haystack.rfind("json{")
    assert _find("<" * 100, "<|", "<") == -1
    # the occurrence right where the search for the whole literal takes over
    for extra in (-1, 0, 1):
        n = _GATE_TRIES + extra
        assert _find("{" * n + "json{", "json{", "{") == n
        assert _find("<" * n + "<|", "<|", "<") == n


@pytest.mark.parametrize("gates", [10, 100, 5000])
def test_gate_first_search_in_a_long_text_looks_at_more_gate_characters(gates: int) -> None:
    # a long text affords one look per _GATE_SPAN characters: the same answer either way,
    # past the looks too (the whole search takes over where the looks stopped)
    prose = "x" * (40 * _GATE_SPAN // gates)
    haystack = (prose + ":") * gates + "User:" + prose + "User:"
    first = haystack.index("User:")
    assert _find(haystack, "User:", ":") == first
    assert _find(haystack, "User:", ":", first + 1) == haystack.rfind("User:")
    assert _find(haystack[:first], "User:", ":") == -1


@given(st.lists(st.text(max_size=5), max_size=12), st.sampled_from(["\n", "\x00", "::"]))
def test_starts_are_where_each_text_begins_in_the_join(texts: list[str], sep: str) -> None:
    starts = _starts(texts, sep)
    joined = sep.join(texts)
    assert len(starts) == len(texts) + 1
    for k, text in enumerate(texts):
        assert joined[starts[k] : starts[k] + len(text)] == text
    # one more entry: where a text after the last would start
    assert starts[-1] == (len(joined) + len(sep) if texts else 0)


def test_a_pattern_that_takes_in_a_line_break_joins_a_batch_by_another_separator() -> None:
    # Z's pattern (a brace, blanks, a capital or a brace) would match across "\n" between two
    # texts: "{}" then '{"a": 1}' joined by "\n" reads "}\n{"
    filt = prefilter(_HARMONY, frozenset({Surface.TOOL_ARG}), tools_known=False)
    assert filt is not None and filt.sep != "\n"
    texts = ["{}", '{"a": 1}', '{"a": 1}\n\nI will now search the notes.', "{}"]
    assert filt.candidates(texts) == [i for i, t in enumerate(texts) if filt.could_hit(t)] == [2]


_HEAD_PIECES = st.sampled_from(
    [
        "The user",
        "They ",
        "So ",
        "We ",
        "Answer",
        "User",
        "Hmm",
        " ",
        "\n",
        "\t",
        "é",
        "*",
        "a",
        "Z",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_HEAD_PIECES, max_size=6).map("".join))
def test_the_starts_lookahead_reads_only_a_head(text: str) -> None:
    """The batched head check answers the start's lookahead once per head of
    ``HEAD_CHARS`` characters: that lookahead must read no further, so the memo's answer for
    the head is the lookahead's answer for the whole text."""
    from guard._regex_source import HEAD_CHARS

    filt = prefilter(_HARMONY, frozenset({Surface.TEXT}), tools_known=False)
    assert filt is not None and filt.start is not None
    memo = filt._gate_memo
    assert memo is not None
    passed = memo._gate.match(text) is not None
    assert memo[text[:HEAD_CHARS]] is passed
    # and the start never matches a text the lookahead turns away
    assert passed or filt.start.match(text) is None


def test_the_head_memo_starts_over_past_its_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    from guard.gate import _prefilter as module

    filt = prefilter(_HARMONY, frozenset({Surface.TEXT}), tools_known=False)
    assert filt is not None and filt.start is not None
    memo = module._HeadMemo(filt._gate_memo._gate)  # type: ignore[union-attr]
    monkeypatch.setattr(module, "_MEMO_CAP", 3)
    answers = [memo[h] for h in ("So the", "The us", "Result", "Xyzzyx")]
    assert answers == [True, True, False, False]
    assert len(memo) == 1  # cleared at the fourth head, then that head kept
