"""Model outputs from public parsers' test suites (vLLM, SGLang, the model publishers' guides),
scanned by guard.

Each line of ``tests/scanners/data/<dialect>.jsonl`` (every file there is read; the file name is
the dialect) is one case:

* ``id`` (unique in its file), ``source`` (the test it comes from) and ``note`` (where guard's
  answer differs from that parser's, and why);
* the model output ``text``, and when needed ``tools`` (OpenAI tool definitions) and
  ``start_in_thinking``;
* expected: ``calls`` (``name``, and ``arguments`` decoded or ``arguments_text`` as written;
  ``id`` when the format carries the model's own), ``content`` and ``reasoning`` (compared
  without surrounding blanks) and ``malformed`` (whether the output yields ``Malformed``;
  absent means it must not).

Each case is scanned whole and one character at a time; both must give the same events.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.scanning import merge, scan

from guard.models import Malformed, ResultForgery, Text, ThinkingDelta, ToolEnd
from guard.scanners import scanner

DATA = Path(__file__).parent / "data"
DIALECTS = sorted(p.stem for p in DATA.glob("*.jsonl"))
FIELDS = {
    "id",
    "source",
    "note",
    "text",
    "tools",
    "start_in_thinking",
    "calls",
    "content",
    "reasoning",
    "malformed",
}


def _load(dialect: str) -> list[dict[str, Any]]:
    lines = (DATA / f"{dialect}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


CASES = [
    pytest.param(dialect, case, id=f"{dialect}-{case['id']}")
    for dialect in DIALECTS
    for case in _load(dialect)
]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_fixture_file_has_ten_sourced_cases(dialect: str) -> None:
    cases = _load(dialect)
    assert len(cases) >= 10
    assert len({c["id"] for c in cases}) == len(cases)
    for case in cases:
        assert case["id"] and case["source"].strip()
        assert set(case) <= FIELDS, set(case) - FIELDS


@pytest.mark.parametrize(("dialect", "case"), CASES)
def test_public_parser_fixture(dialect: str, case: dict[str, Any]) -> None:
    def run(chunks: list[str]) -> list[Any]:
        made = scanner(
            dialect, start_in_thinking=case.get("start_in_thinking", False), tools=case.get("tools")
        )
        events = scan(made, chunks)
        assert "".join(e.raw for e in events) == text
        return merge(events)

    text = case["text"]
    events = run([text])
    assert run(list(text)) == events
    assert not [e for e in events if isinstance(e, ResultForgery)]

    ends = [e for e in events if isinstance(e, ToolEnd)]
    expected = case["calls"]
    assert [e.name for e in ends] == [c["name"] for c in expected]
    for end, call in zip(ends, expected, strict=True):
        if "arguments_text" in call:
            assert end.arguments == call["arguments_text"]
        else:
            assert json.loads(end.arguments) == call["arguments"]
        if "id" in call:
            assert end.id == call["id"]
    if "content" in case:
        shown = "".join(e.text for e in events if isinstance(e, Text))
        assert shown.strip() == case["content"].strip()
    if "reasoning" in case:
        thought = "".join(e.delta for e in events if isinstance(e, ThinkingDelta))
        assert thought.strip() == case["reasoning"].strip()
    assert any(isinstance(e, Malformed) for e in events) == bool(case.get("malformed"))
