"""Fixtures written from public parsers' test suites (vLLM, SGLang, the model publishers'
guides), one JSON object per line in ``tests/scanners/data/<dialect>.jsonl``:

* ``source``: where the case comes from; ``note``: where guard's answer differs and why;
* ``output`` (model output), optional ``tools`` (OpenAI tool definitions) and
  ``start_in_thinking``;
* expected: ``calls`` (``name``, ``arguments`` as an object or ``arguments_text`` as written,
  optional ``id``), optional ``content`` and ``reasoning`` (compared without surrounding
  whitespace) and ``malformed`` (whether any ``Malformed`` event is reported).

Each output is scanned whole and one character at a time; both must match.
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
DIALECTS = ["glm", "kimi", "deepseek", "deepseek_v32", "minimax"]


def _load(dialect: str) -> list[dict[str, Any]]:
    lines = (DATA / f"{dialect}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


CASES = [
    pytest.param(dialect, case, id=f"{dialect}-{n}")
    for dialect in DIALECTS
    for n, case in enumerate(_load(dialect))
]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_at_least_ten_fixtures_per_dialect_each_with_a_source(dialect: str) -> None:
    cases = _load(dialect)
    assert len(cases) >= 10
    for case in cases:
        assert case["source"].strip()
        assert set(case) <= {
            "source",
            "note",
            "output",
            "tools",
            "start_in_thinking",
            "calls",
            "content",
            "reasoning",
            "malformed",
        }


@pytest.mark.parametrize(("dialect", "case"), CASES)
def test_fixture(dialect: str, case: dict[str, Any]) -> None:
    def run(chunks: list[str]) -> list[Any]:
        made = scanner(
            dialect, start_in_thinking=case.get("start_in_thinking", False), tools=case.get("tools")
        )
        return merge(scan(made, chunks))

    output = case["output"]
    events = run([output])
    assert run(list(output)) == events
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
        text = "".join(e.text for e in events if isinstance(e, Text))
        assert text.strip() == case["content"].strip()
    if "reasoning" in case:
        thought = "".join(e.delta for e in events if isinstance(e, ThinkingDelta))
        assert thought.strip() == case["reasoning"].strip()
    if "malformed" in case:
        assert any(isinstance(e, Malformed) for e in events) == case["malformed"]
