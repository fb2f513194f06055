"""Deferred patterns (``guard.models.lazy_re`` / ``lazy_regex``): compiled on first use, then
the compiled pattern's own methods; signal modules no longer compile at import."""

from __future__ import annotations

import pickle
import re
import subprocess
import sys

import pytest
import regex

from guard.models import lazy_re, lazy_regex


def test_a_deferred_pattern_compiles_on_first_use_and_answers_as_the_pattern() -> None:
    p = lazy_re.compile(r"(?P<w>\w+)@", lazy_re.IGNORECASE)
    assert p.pattern == r"(?P<w>\w+)@"
    assert p._compiled is None  # type: ignore[attr-defined]
    real = re.compile(r"(?P<w>\w+)@", re.IGNORECASE)
    text = "Ab@ cd@ ef"
    assert p.search(text).span() == real.search(text).span()  # type: ignore[union-attr]
    assert [m.group("w") for m in p.finditer(text)] == ["Ab", "cd"]
    assert p.sub("-", text) == real.sub("-", text)
    assert p.flags == real.flags
    assert p.groupindex == real.groupindex
    assert p.search is p.search  # the bound method is kept after the first use


def test_a_bad_pattern_fails_where_it_is_first_used() -> None:
    p = lazy_re.compile("(")
    with pytest.raises(re.error):
        p.search("x")


def test_deferred_regex_patterns_take_the_regex_flags() -> None:
    p = lazy_regex.compile(r"\p{Han}+", lazy_regex.V1)
    assert p.findall("ab 中文 c") == regex.compile(r"\p{Han}+", regex.V1).findall("ab 中文 c")
    assert list(p.finditer("中中", overlapped=True))[1].start() == 1


def test_a_deferred_pattern_pickles_as_the_compiled_pattern() -> None:
    p = lazy_re.compile("a+b")
    q = pickle.loads(pickle.dumps(p))
    assert isinstance(q, re.Pattern)
    assert q.pattern == "a+b"


def test_importing_the_signals_compiles_none_of_the_deferred_patterns() -> None:
    code = (
        "import guard.signals\n"
        "from guard.signals import _voice, tool_call_text\n"
        "from guard.models._deferred import Deferred\n"
        "found = [v for m in (_voice, tool_call_text) for v in vars(m).values()"
        " if isinstance(v, Deferred)]\n"
        "print(len(found), sum(v._compiled is not None for v in found))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert int(out[0]) >= 3
    assert out[1] == "0"
