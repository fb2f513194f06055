"""The audit table keeps its columns aligned when a cell holds East-Asian wide characters
(DeepSeek's fullwidth markers, CJK roles and text shown with --show-text)."""

from __future__ import annotations

from guard.audit import Finding, render
from guard.audit._table import display_width, finding_rows
from guard.audit.report import AuditReport
from guard.models import Surface


def finding(evidence: str, role: str = "assistant", line: int = 1) -> Finding:
    return Finding(
        path="a.jsonl",
        line=line,
        message=0,
        role=role,
        surface=Surface.TEXT,
        kind="leak",
        signals=("H",),
        cut=3,
        reason="r",
        evidence=evidence,
        context="xx " + evidence + " 中文",
    )


def test_display_width() -> None:
    assert display_width("abc") == 3
    assert display_width("中文") == 4
    assert (
        display_width("<｜tool▁calls▁begin｜>") == 22
    )  # 20 characters, two of them fullwidth bars
    assert display_width("e\u0301") == 1  # a combining accent takes no column
    assert display_width("a\u200bb") == 2  # nor does a zero-width space


def test_columns_line_up_with_wide_evidence_and_roles() -> None:
    rows = finding_rows(
        [
            finding("<｜tool▁calls▁begin｜>", line=7),
            finding("<|end|>", role="助手", line=12),
            finding("<tool_call>"),
        ]
    )
    # every row's cells start at the terminal column of their heading
    heading = rows[0]
    for row in rows[1:]:
        context_at = display_width(row[: row.index("xx ")])
        assert context_at == heading.index("CONTEXT"), row
        signals_at = display_width(row[: row.index("  H  ") + 2])
        assert signals_at == heading.index("SIGNALS"), row
    assert rows[2].split()[2] == "助手"
    assert len({len(r) for r in rows[1:]}) > 1  # the characters differ, the columns do not


def test_render_uses_the_same_alignment() -> None:
    report = AuditReport(findings=[finding("<｜end▁of▁sentence｜>"), finding("<|end|>")])
    lines = render(report).splitlines()[1:4]
    ends = {display_width(line[: line.index("xx ")]) for line in lines[1:]}
    assert len(ends) == 1 and ends == {lines[0].index("CONTEXT")}
