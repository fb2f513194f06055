"""A call with literal keyword arguments (ChatGLM3's ``tool_call(...)``, Llama 3's
``NAME.call(...)``): the plain-literal reader answers exactly what ``ast`` answers, and takes
the usual calls so the syntax tree is not built for them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.scanners._values import _ast_kwargs_call, _simple_kwargs_call, kwargs_call

_BLANK = st.sampled_from(["", " ", "  ", "\n", "\t", "\f", "\r\n", "\xa0", "\u2028"])
_KEY = st.sampled_from(["city", "days", "a", "_x", "class", "None", "match", "é", "a1", "1a"])
_STRING_CHARS = st.characters(codec="utf-8") | st.sampled_from(["'", '"', "\\", "\n", "\x00"])
_VALUE = st.one_of(
    st.builds(lambda t: "'" + t + "'", st.text(_STRING_CHARS, max_size=6)),
    st.builds(lambda t: '"' + t + '"', st.text(_STRING_CHARS, max_size=6)),
    st.integers(min_value=-(10**18), max_value=10**18).map(str),
    st.sampled_from(
        ["True", "False", "None", "01", "1.5", "1e3", "1_0", "1j", "0x1", "-0", "'a' 'b'", "[1]"]
    ),
)
_HEAD = st.sampled_from(["tool_call", "x.call", "True.call", "tool_call.call", "other", "f"])


@st.composite
def _calls(draw: st.DrawFn) -> str:
    pairs = draw(st.lists(st.tuples(_KEY, _VALUE, _BLANK, _BLANK), max_size=4))
    args = ",".join(f"{b1}{k}{b2}={v}" for k, v, b1, b2 in pairs)
    if draw(st.booleans()):
        args += ","
    return draw(_BLANK) + draw(_HEAD) + "(" + args + ")" + draw(_BLANK)


@settings(max_examples=600)
@given(_calls())
def test_the_plain_reader_answers_what_ast_answers(code: str) -> None:
    for func, method in (("tool_call", None), (None, "call")):
        plain = _simple_kwargs_call(code, func, method)
        if plain is not None:
            assert plain == _ast_kwargs_call(code, func, method), code


@pytest.mark.parametrize(
    ("code", "func", "method"),
    [
        ("tool_call(city='Paris', days=2)", "tool_call", None),
        (
            'tool_call(query="weather in Paris", limit=10, exact=False, lang=None)',
            "tool_call",
            None,
        ),
        ("brave_search.call(query='x')", None, "call"),
        ("tool_call()", "tool_call", None),
    ],
)
def test_usual_calls_take_the_plain_reader(code: str, func: str | None, method: str | None) -> None:
    plain = _simple_kwargs_call(code, func, method)
    assert plain is not None and plain == _ast_kwargs_call(code, func, method)
    assert kwargs_call(code, func=func, method=method) == plain


@pytest.mark.parametrize(
    "code",
    [
        "tool_call(a=1, a=2)",
        "tool_call(class=1)",
        "tool_call(a=1.5)",
        "tool_call(a='x' 'y')",
        "tool_call(a='x\x00')",  # ast refuses NUL in source
        "tool_call(a='\ud800')",  # and a lone surrogate
        'tool_call(a="\udfff")',
        "tool_call(\xa0a=1)",  # a blank Python does not read as one
    ],
)
def test_other_calls_go_to_ast(code: str) -> None:
    assert _simple_kwargs_call(code, "tool_call", None) is None
    assert kwargs_call(code, func="tool_call") == _ast_kwargs_call(code, "tool_call", None)
