"""guard._regex_source.ascii_heads and heads_gate: the first characters of every text a pattern
can match, read from the pattern, and the lookahead the prefilter puts before the opening leads
so that most answers fail at their first characters. The one promise: a text the pattern
matches passes the gate."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard._regex_source import ascii_heads, heads_gate
from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY
from guard.gate._prefilter import prefilter
from guard.models import Surface


@pytest.mark.parametrize(
    ("source", "n", "expected"),
    [
        ("We need", 4, {"We n"}),
        ("[Ww]e", 4, {"We", "we"}),
        # a leading run of blanks is not read: a text opening with one passes the gate
        (r"\s{0,3}So", 4, {"So"}),
        # a blank reads as a space, whichever blank the pattern names
        (r"So\n", 4, {"So "}),
        # a lookahead narrows what follows it
        (r"(?=The u)[\s\S]{0,9}user", 5, {"The u"}),
        # a wide class opens the head: any text opening with what came before may match
        (r"So[^\n]{0,9}x", 4, {"So", "Sox"}),
        (r"(?i:ok)", 2, {"ok", "oK", "Ok", "OK"}),
        # the Kelvin sign folds to both ASCII k's, the long s to both s's
        ("(?i:\u212a)", 1, {"k", "K"}),
        ("(?i:\u017f)", 1, {"s", "S"}),
        # a non-ASCII literal matches no ASCII text
        ("\u2022 Plan|Plan", 3, {"Pla"}),
        # an empty match behind a lookahead still needs what the lookahead reads
        ("(?=x)", 2, {"x"}),
    ],
)
def test_heads_of_a_pattern(source: str, n: int, expected: set[str]) -> None:
    assert ascii_heads(source, 0, n) == expected


@pytest.mark.parametrize("source", ["", "a?", r"(a)\1", "(?!x)", r"\b"])
def test_no_heads_where_a_match_can_be_empty_or_the_pattern_is_not_read(source: str) -> None:
    assert ascii_heads(source) is None
    assert heads_gate(source) is None


def test_the_gate_passes_texts_it_does_not_read() -> None:
    gate = re.compile(heads_gate("We need", 0, 6) or "")
    assert gate.match("We need it") and not gate.match("Weather is fine")
    for text in ("  We need", "**We", "We\u00a0need", "\u00c9t\u00e9", "", "W"):
        assert gate.match(text), text


@pytest.mark.parametrize(
    ("source", "flags", "text"),
    [
        # a lookahead holding a wide class narrows what follows as far as it reads
        ("(?=ab.)abcdefg|xyzuvw", 0, "abcdefg"),
        (r"(?=We\s\w)We need|Okay", 0, "We need to"),
        (r"(?=So\b.)So the|Hmm", 0, "So the x"),
        ("(?=ab.)abcdefg", 0, "abcdefg"),
        # case folds from beyond ASCII, as the engine reads them
        ("[\u0100-\u2200]elvin|xyzuvw", re.IGNORECASE, "kelvin"),
        ("[\u017f-\u0180]abcde|xyzuvw", re.IGNORECASE, "sabcde"),
        ("\u0130tem12|xyzuvw", re.IGNORECASE, "item12"),
        # under re.ASCII a blank outside \s still reads as a blank
        (r"ab\x1cdefg", re.ASCII, "ab\x1cdefg"),
        (r"ab[\x1f]defg", re.ASCII | re.IGNORECASE, "ab\x1fdefg"),
    ],
)
def test_the_gate_passes_what_the_pattern_matches(source: str, flags: int, text: str) -> None:
    assert re.match(source, text, flags)
    gate = heads_gate(source, flags)
    assert gate is not None and re.match(gate, text, flags), gate


# --- the promise, on generated patterns and texts --------------------------------------------

_ATOMS = st.sampled_from(
    [
        "a",
        "b",
        "A",
        "k",
        " ",
        r"\s",
        r"\w",
        r"\d",
        "[ab]",
        "[^a]",
        ".",
        r"\n",
        r"\x1c",
        "(?i:a)",
        "\u017f",
        "\u212a",
        "[\u0100-\u2200]",
        r"\b",
    ]
)


@st.composite
def _patterns(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 5 if depth < 2 else 1))
        if kind <= 1:
            part = draw(_ATOMS)
        elif kind == 2:
            part = f"(?:{draw(_patterns(depth + 1))}|{draw(_patterns(depth + 1))})"
        elif kind == 3:
            lo = draw(st.integers(0, 2))
            part = f"(?:{draw(_patterns(depth + 1))}){{{lo},{lo + draw(st.integers(0, 3))}}}"
        elif kind == 4:
            part = f"(?={draw(_patterns(depth + 1))})"
        else:
            part = f"(?i:{draw(_patterns(depth + 1))})"
        parts.append(part)
    return "".join(parts)


@settings(max_examples=400, deadline=None)
@given(
    _patterns(),
    st.text(alphabet="abAB \n\t\x1c1_\u017fkK\u212a", max_size=8),
    st.integers(1, 4),
    st.sampled_from([0, re.IGNORECASE, re.ASCII, re.ASCII | re.IGNORECASE]),
)
def test_every_text_a_pattern_matches_passes_its_gate(
    source: str, text: str, n: int, flags: int
) -> None:
    gate = heads_gate(source, flags, n)
    if gate is None or re.match(source, text, flags) is None:
        return
    assert re.match(gate, text, flags), (source, text, gate)


def test_the_prefilters_gated_leads_match_where_the_leads_do() -> None:
    # the leads of every dialect's answers, gated, on openings that wake them and that do not
    texts = [
        "The user asks for the time. We need to answer briefly.\n\nIt is noon.",
        "The terminal shows the results.",
        "We need to answer: it is noon.",
        "Weather is fine today.",
        "So the answer is 4.",
        "User wants a list.\n\nHere it is.",
        "**Thinking:** check the units.\n\n42 km.",
        "  analysis the user wants",
        "Okay, the user wants a poem.",
        "Answer: 42",
    ]
    for name in ("harmony", "chatml", "all"):
        pf = prefilter(get_dialect(name), frozenset({Surface.TEXT}), DEFAULT_POLICY.disabled)
        assert pf is not None
        start = pf.start
        if start is None:
            continue
        lead = pf.lead
        for text in texts:
            whole = bool(lead is not None and lead.match(text)) or any(
                text[: pf.head].lstrip().startswith(word) for word in pf.opening
            )
            assert bool(start.match(text)) == whole, (name, text)
