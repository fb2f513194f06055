"""Raw transcripts without a begin-of-text marker (one transcript for the whole file): each
finding is on the line where its message opens, not on the file's first line."""

from __future__ import annotations

from pathlib import Path

import guard

CHATML = (
    "<|im_start|>user\nhello\n<|im_end|>\n"  # lines 1-3
    "<|im_start|>assistant\nfine\nthen <|im_start|>x\n<|im_end|>\n"  # 4-7
    "<|im_start|>user\nmore <|im_end|> text\n<|im_end|>\n"  # 8-10
)
HARMONY = (
    "<|start|>user<|message|>hi<|end|>\n"
    "<|start|>assistant<|channel|>final<|message|>ok<|end|>\n"
    "<|start|>user<|message|>again<|end|>\n"
    "<|start|>assistant<|channel|>final<|message|>foo assistantfinal bar<|return|>\n"
)


def test_raw_chatml_findings_are_on_their_messages_lines(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_text(CHATML, encoding="utf-8")
    report = guard.audit(path, format="raw", dialect="chatml")
    assert report.summary.transcripts == 1
    assert [(f.line, f.kind) for f in report.findings] == [(6, "forgery"), (8, "injection")]


def test_raw_harmony_findings_are_on_their_messages_lines(tmp_path: Path) -> None:
    path = tmp_path / "h.txt"
    path.write_text(HARMONY, encoding="utf-8")
    report = guard.audit(path)
    assert report.summary.transcripts == 1
    assert [(f.line, f.message, f.kind) for f in report.findings] == [(4, 3, "leak")]
    sarif = report.sarif(root=str(tmp_path))
    region = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 4
