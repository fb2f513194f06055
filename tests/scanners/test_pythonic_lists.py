"""Issue 33: a pythonic call list is read a run of calls at a time, in linear time and with a
syntax tree bounded by ``MAX_CALL_CODE`` characters of code, and reads exactly what one parse
of the whole list reads (names, arguments and the character span of every call)."""

from __future__ import annotations

import ast
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.scanners._pysource import MAX_CALL_CODE, code_size, list_elements
from guard.scanners.base import kwargs_call
from guard.scanners.pythonic import _dotted, _json_safe, _literal_value, parse_calls


def _whole(text: str) -> list[tuple[str, str, int, int]] | None:
    """The reference: one ``ast`` parse of the whole list, positions converted line by line."""
    try:
        stripped = text.strip()
        lead = len(text) - len(text.lstrip())
        tree = ast.parse(stripped, mode="eval").body
        if not isinstance(tree, ast.List) or not tree.elts:
            return None
        lines = _lines(stripped)
        out = []
        for node in tree.elts:
            if not isinstance(node, ast.Call) or node.args:
                return None
            name = _dotted(node.func)
            assert name is not None and node.end_lineno is not None
            kwargs: dict[str, Any] = {}
            for kw in node.keywords:
                if kw.arg is None or kw.arg in kwargs:
                    return None
                kwargs[kw.arg] = _json_safe(_literal_value(kw.value))

            def at(line: int, col: int) -> int:
                start = sum(len(x) for x in lines[: line - 1])
                return start + len(lines[line - 1].encode()[:col].decode())

            args = json.dumps(kwargs, ensure_ascii=False, allow_nan=False)
            out.append(
                (
                    name,
                    args,
                    lead + at(node.lineno, node.col_offset),
                    lead + at(node.end_lineno, node.end_col_offset),  # type: ignore[arg-type]
                )
            )
        return out
    except Exception:
        return None


def _lines(text: str) -> list[str]:
    out, start = [], 0
    i = 0
    while i < len(text):
        if text[i] in "\r\n":
            end = i + 2 if text.startswith("\r\n", i) else i + 1
            out.append(text[start:end])
            start = i = end
        else:
            i += 1
    out.append(text[start:])
    return out


_values = st.recursive(
    st.one_of(
        st.integers(-5, 10**6),
        st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6),
        st.booleans(),
        st.none(),
    ),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)
_blank = st.sampled_from(["", " ", "\n", "\n  ", "  # note, with [brackets] (\n", "\r\n", "\t"])


@st.composite
def _lists(draw: st.DrawFn) -> str:
    calls = []
    for _ in range(draw(st.integers(1, 5))):
        name = draw(st.sampled_from(["get_weather", "a.b", "ünï", "f_1"]))
        kwargs = draw(st.dictionaries(st.sampled_from(["x", "yy", "zé"]), _values, max_size=3))
        quote = draw(st.sampled_from(["", "'''"]))
        parts = []
        for k, v in kwargs.items():
            text = repr(v)
            if quote and isinstance(v, str) and "'" not in v and "\\" not in v:
                text = quote + v + quote
            parts.append(f"{k}={draw(_blank)}{text}")
        calls.append(f"{name}({', '.join(parts)})")
    sep = draw(st.sampled_from([", ", ",\n", " ,", ",  # c\n"]))
    body = sep.join(calls) + draw(st.sampled_from(["", ",", ", "]))
    tail = draw(st.sampled_from(["", " ", "  # end"]))
    return f"{draw(_blank)}[{draw(_blank)}{body}{draw(_blank)}]{tail}"


@settings(max_examples=200, deadline=None)
@given(text=_lists())
def test_reads_what_one_parse_of_the_whole_list_reads(text: str) -> None:
    assert parse_calls(text) == _whole(text)


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        "[,]",
        "[f(a=1),,g(b=2)]",
        "[f(a=1)] + [g()]",
        "[f(a=1)][0]",
        "[f(a=1), 'x']",
        "[f(a='unterminated)]",
        "[f(a=1), g(b=[1, 2)]",
        "[f(1)]",
        "[f(**k)]",
        "[f(a=1) g(b=2)]",
        "[f(a=x)]",
        "[f(a=f'{x}')]",
        "[f(a=1), (g(b=2), h(c=3))]",
        "[f(a=1)] x",
    ],
)
def test_refuses_what_the_whole_parse_refuses(text: str) -> None:
    assert _whole(text) is None
    assert parse_calls(text) is None


def test_lists_split_where_python_splits_them() -> None:
    text = """[f(a="x, y]"), g(b='''c,
]'''), h(c=[1, (2, 3)])  # a comment, ]
]"""
    spans = list_elements(text)
    assert spans is not None
    assert [text[a:b].strip() for a, b, _ in spans] == [
        'f(a="x, y]")',
        "g(b='''c,\n]''')",
        "h(c=[1, (2, 3)])  # a comment, ]",
    ]
    assert parse_calls(text) == _whole(text)


def test_a_call_over_the_code_cap_is_not_read() -> None:
    fits = "f(a=[" + "1," * ((MAX_CALL_CODE - 10) // 2) + "])"
    over = "f(a=[" + "1," * (MAX_CALL_CODE // 2) + "])"
    assert code_size(fits) is not None and code_size(fits) <= MAX_CALL_CODE  # type: ignore[operator]
    assert parse_calls(f"[{fits}]") is not None
    assert parse_calls(f"[{over}]") is None
    # a long string is one node: it does not count against the cap
    long_string = f'f(a="{"x" * (4 * MAX_CALL_CODE)}")'
    assert code_size(long_string) == 6  # f ( a = the string )
    assert parse_calls(f"[{long_string}]") is not None
    assert kwargs_call(fits, func="f") is not None
    assert kwargs_call(over, func="f") is None


def test_many_calls_parse_in_runs() -> None:
    unit = 'get_weather(city="Pärïs", days=2), '
    text = "[" + unit * (3 * MAX_CALL_CODE // len(unit)) + "]"
    calls = parse_calls(text)
    assert calls is not None and calls == _whole(text)
