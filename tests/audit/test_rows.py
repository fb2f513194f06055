"""``guard.audit_rows`` and ``RowAuditor``: findings aligned to rows, for dataframe engines."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.paths import EXAMPLES

import guard
from guard.audit import AuditError, Finding, RowAuditor, audit_rows

LEAK = {"messages": [{"role": "assistant", "content": "Done.<|end|><|start|>assistant"}]}
CLEAN = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]}


def _lines(name: str) -> list[str]:
    return (EXAMPLES / name).read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("name", ["openai.jsonl", "responses.jsonl", "chatglm3.jsonl"])
def test_rows_give_the_findings_of_the_file_row_by_row(name: str) -> None:
    report = guard.audit(EXAMPLES / name)
    lines = _lines(name)
    rows = audit_rows([json.loads(line) for line in lines])
    assert len(rows) == len(lines)
    flat = [entry for row in rows for entry in row]
    assert all(isinstance(f, Finding) for f in flat)
    # the same findings at the same lines (only the path differs: rows have none)
    assert [f.model_copy(update={"path": "x"}) for f in flat] == [
        f.model_copy(update={"path": "x"}) for f in report.findings
    ]
    for number, row in enumerate(rows, 1):
        assert all(f.line == number for f in row)
    assert any(rows) and not all(rows)


def test_json_lines_as_str_or_bytes_read_like_the_file() -> None:
    lines = _lines("openai.jsonl")
    from_objects = audit_rows([json.loads(line) for line in lines])
    assert audit_rows(lines) == from_objects
    assert audit_rows([line.encode() for line in lines]) == from_objects


def test_bad_rows_are_error_entries_in_their_place() -> None:
    rows: list[Any] = [
        LEAK,
        "{not json",
        b"\xff\xfe{}",
        {"x": 1},
        None,
        "",
        "   ",
        {"messages": [{"role": "assistant", "content": 5}]},
        CLEAN,
        "null",
    ]
    out = audit_rows(rows)
    assert len(out) == len(rows)
    assert [type(e).__name__ for e in out[0]] == ["Finding"]
    assert out[0][0].kind == "leak"
    for k in (1, 2, 3, 4, 7, 9):
        assert len(out[k]) == 1 and isinstance(out[k][0], AuditError), (k, out[k])
        assert out[k][0].line == k + 1 and not out[k][0].internal
    assert "invalid JSON" in out[1][0].error
    assert "invalid UTF-8" in out[2][0].error
    assert out[3][0].error.startswith("not a transcript")
    assert out[5] == [] and out[6] == [] and out[8] == []  # blank lines skipped, clean row


def test_mixed_formats_keep_row_order() -> None:
    glm = json.loads(_lines("chatglm3.jsonl")[0])
    rows = [LEAK, glm, LEAK]
    out = audit_rows(rows)
    assert [e.line for row in out for e in row] == sorted(e.line for row in out for e in row)
    assert out[0] and out[2]


def test_run_counts_and_first_line() -> None:
    auditor = RowAuditor()
    result = auditor.run([CLEAN, LEAK, "{"], path="batch-7", first_line=101)
    assert result.transcripts == 2 and result.messages == 3 and result.lines == 3
    assert [f.line for f in result.findings] == [102]
    assert [(e.path, e.line) for e in result.errors] == [("batch-7", 103)]
    with pytest.raises(ValueError, match="first_line"):
        auditor.run([CLEAN], first_line=0)


def test_policy_dialect_and_tools_are_applied() -> None:
    glm = {"messages": [{"role": "assistant", "content": "Sure.<|observation|>"}]}
    assert audit_rows([glm]) == [[]]  # not a Harmony token
    assert audit_rows([glm], dialect="chatglm3")[0]
    assert audit_rows([LEAK], format="openai")[0]
    assert audit_rows([LEAK], format="responses") != audit_rows([LEAK])
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "rm_rf", "arguments": "{}"}}
        ],
    }
    assert audit_rows([{"messages": [call]}]) == [[]]
    (undeclared,) = audit_rows([{"messages": [call]}], tools=["get_weather"])[0]
    assert isinstance(undeclared, Finding)
    assert undeclared.surface == "tool_name" and undeclared.signals == ("U",)


def test_bad_arguments_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="reads text files, not rows"):
        RowAuditor(format="harmony")
    with pytest.raises(ValueError, match="unknown format"):
        RowAuditor(format="csv")
    with pytest.raises(ValueError):
        RowAuditor(dialect="no-such-dialect")
    with pytest.raises(TypeError):
        RowAuditor(tools=42)
    with pytest.raises(ValueError, match="max_line_bytes"):
        RowAuditor(max_line_bytes=0)


def test_overlong_row_is_an_error_entry() -> None:
    auditor = RowAuditor(max_line_bytes=100)
    out = auditor.audit([json.dumps(LEAK), json.dumps({"messages": [CLEAN] * 50})])
    assert isinstance(out[0][0], Finding)
    assert isinstance(out[1][0], AuditError) and "over the cap" in out[1][0].error


def test_an_auditor_is_reusable_and_batches_are_independent() -> None:
    auditor = RowAuditor()
    first = auditor.audit([LEAK, CLEAN])
    assert auditor.audit([LEAK, CLEAN]) == first
    assert auditor.audit([]) == []
    again = auditor.audit(iter([CLEAN, LEAK]))
    assert again[0] == [] and again[1] == [first[0][0].model_copy(update={"line": 2})]


_ROW = st.one_of(
    st.just(LEAK),
    st.just(CLEAN),
    st.text(max_size=30),
    st.binary(max_size=30),
    st.none(),
    st.lists(st.dictionaries(st.sampled_from(["role", "content"]), st.text(max_size=10))),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_ROW, max_size=12))
def test_any_rows_give_one_list_per_row_at_its_line(rows: list[Any]) -> None:
    out = audit_rows(rows)
    assert len(out) == len(rows)
    for number, (row, entries) in enumerate(zip(rows, out, strict=True), 1):
        assert all(e.line == number for e in entries)
        assert not any(isinstance(e, AuditError) and e.internal for e in entries)
        if row is LEAK:
            assert entries and entries[0].kind == "leak"


def test_hugging_face_datasets_map_recipe() -> None:
    """The README's recipe: ``datasets.Dataset.map`` in batches, one findings list per row."""
    datasets = pytest.importorskip("datasets")
    lines = _lines("openai.jsonl")[:60]
    ds = datasets.Dataset.from_dict({"text": lines})
    auditor = RowAuditor()

    def find(batch: dict[str, list[Any]]) -> dict[str, list[Any]]:
        rows = auditor.audit(batch["text"])
        return {"findings": [[e.model_dump_json() for e in row] for row in rows]}

    out = ds.map(find, batched=True, batch_size=16)
    found = [[json.loads(x) for x in row] for row in out["findings"]]
    expected = audit_rows(lines)
    assert [len(r) for r in found] == [len(r) for r in expected]
    # lines restart in each batch: the row's position in the dataset is the batch's offset
    flat = [(f["kind"], f["message"], f["signals"]) for row in found for f in row]
    assert flat == [(f.kind, f.message, list(f.signals)) for row in expected for f in row]
    assert any(found)
