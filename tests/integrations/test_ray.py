"""The Ray engine on a local 2-CPU Ray: the same report as the local engine, whole.

One local Ray serves every test of this module (starting one takes seconds). The command line
runs in this process, so ``--engine ray`` finds that Ray already initialised.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.paths import EXAMPLES

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import guard  # noqa: E402
from guard.cli import main  # noqa: E402
from guard.integrations.ray import FINDING_COLUMNS, audit_dataset, audit_paths  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    if started:
        ray.shutdown()


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["audit", *args])
    return code, capsys.readouterr().out


def _normal(report: dict[str, Any]) -> dict[str, Any]:
    """A JSON report without what legitimately differs between engines: time and workers."""
    report["summary"].pop("elapsed")
    report["summary"].pop("workers")
    return report


def _both(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> dict[str, Any]:
    """Run both engines on ``args``: JSON, SARIF, table and exit code must be the same."""
    outs = {}
    for engine in ("local", "ray"):
        sarif = tmp_path / f"{engine}.sarif"
        code, out = _cli(capsys, "--engine", engine, "--json", "--sarif", str(sarif), *args)
        _, table = _cli(capsys, "--engine", engine, *args)
        table = re.sub(r"[\d.,]+ s( \([^)]*\))?, workers \d+", "", table)
        outs[engine] = (code, _normal(json.loads(out)), json.loads(sarif.read_text()), table)
    assert outs["ray"][0] == outs["local"][0]
    assert outs["ray"][1] == outs["local"][1]
    assert outs["ray"][2] == outs["local"][2]
    assert outs["ray"][3] == outs["local"][3]
    return outs["local"][1]


def test_examples_give_the_same_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = _both(capsys, tmp_path, str(EXAMPLES))
    assert report["summary"]["findings"] > 100
    assert report["summary"]["skipped"]  # the generator script and the plain text file
    assert len(report["summary"]["files"]) == 15
    tools = _both(capsys, tmp_path, str(EXAMPLES), "--tools", "get_weather,read_file")
    assert tools["summary"]["findings"] > report["summary"]["findings"]  # undeclared calls


def _planted(root: Path) -> None:
    """A tree of inputs with planted findings and every kind of bad line and file."""
    lines = (EXAMPLES / "openai.jsonl").read_bytes().splitlines(keepends=True)
    bad = [
        b"{not json\n",
        b"\xff\xfe broken utf-8\n",
        b'{"x": 1}\n',
        b'{"messages": [{"role": "assistant", "content": 5}]}\n',
        b"\n",
        b"  \n",
        b'{"messages": [{"role": "user", "content": "' + b"a" * 150_000 + b'"}]}\n',
        b'\xef\xbb\xbf{"messages": [{"role": "assistant", "content": "x<|end|>"}]}\n',
    ]
    body = bytearray()
    for k in range(5):  # over 1 MiB: several units, whose line numbers the report shifts
        for i, line in enumerate(lines):
            body += line
            if i % 97 == k:
                body += bad[(i + k) % len(bad)]
    (root / "sub").mkdir(parents=True)
    (root / "big.jsonl").write_bytes(bytes(body))
    (root / "big.jsonl.gz").write_bytes(gzip.compress(bytes(body[: len(body) // 3])))
    (root / "empty.jsonl").write_bytes(b"")
    (root / "binary.dat").write_bytes(b"\x00\x01" * 100)
    (root / ".hidden.jsonl").write_bytes(lines[0])
    (root / "cut.jsonl").write_bytes(lines[3] + lines[4][:50])  # the last line cut short
    shutil.copy(EXAMPLES / "harmony.txt", root / "sub" / "harmony.txt")
    shutil.copy(EXAMPLES / "responses.jsonl", root / "sub" / "responses.jsonl")
    shutil.copy(EXAMPLES / "glm.txt", root / "sub" / "glm.txt")


def test_planted_dataset_with_bad_lines_gives_the_same_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    _planted(data)
    report = _both(capsys, tmp_path, str(data), "--max-line-bytes", "100000")
    errors = report["errors"]
    kinds = {e["error"].split(":")[0] for e in errors}
    assert {"invalid JSON", "invalid UTF-8", "empty file"} <= kinds
    assert any("over the cap" in e["error"] for e in errors)
    assert (data / "big.jsonl").stat().st_size > 1 << 20  # several units, lines shifted
    assert any(e["line"] and e["line"] > 1200 for e in errors)
    assert any(e["path"].endswith("empty.jsonl") for e in errors)
    assert report["summary"]["leaks"] > 0 and report["summary"]["forgeries"] > 0
    assert not report["summary"]["internal_errors"]


def test_findings_dataset_has_one_row_per_finding_with_the_source_columns(
    tmp_path: Path,
) -> None:
    """Read by read tasks (one CPU each) and judged by a pool of two actors on two CPUs: the
    default sizes leave the reads a CPU, so the pipeline cannot starve (a deadlock)."""
    lines = (EXAMPLES / "openai.jsonl").read_text(encoding="utf-8").splitlines()[:40]
    lines[5] = "{not json"
    for part in range(2):
        with (tmp_path / f"part{part}.jsonl").open("w", encoding="utf-8") as f:
            for i, line in enumerate(lines):
                f.write(json.dumps({"id": f"row-{i}", "line": i + 1, "text": line}) + "\n")
    ds = ray.data.read_json(str(tmp_path), include_paths=True)
    found = audit_dataset(ds, column="text").take_all()
    expected = guard.audit_rows(lines)
    assert len(found) == 2 * sum(map(len, expected))
    assert all(tuple(row) == FINDING_COLUMNS for row in found)
    fields = guard.audit.Finding.model_fields
    json_fields = {name for name, info in fields.items() if not info.exclude}
    assert set(FINDING_COLUMNS) == json_fields | {"id", "error", "internal"}
    flat = [(i + 1, e) for i, row in enumerate(expected) for e in row]
    for part in range(2):
        rows = [r for r in found if r["path"].endswith(f"part{part}.jsonl")]
        rows.sort(key=lambda r: (r["line"], r["message"] or 0))
        for row, (line, entry) in zip(rows, flat, strict=True):
            assert row["id"] == f"row-{line - 1}" and row["line"] == line
            if isinstance(entry, guard.audit.Finding):
                data = entry.model_dump(mode="json")
                fields = FINDING_COLUMNS[3:-2]
                assert {k: row[k] for k in fields} == {k: data[k] for k in fields}
            else:
                assert row["kind"] == "error" and row["error"] == entry.error
    assert any(r["kind"] == "error" and r["line"] == 6 for r in found)


def test_a_file_uri_gives_the_report_of_its_path(tmp_path: Path) -> None:
    for name in ("openai.jsonl", "harmony.txt", "glm.txt"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    (tmp_path / "bad.jsonl").write_bytes(b"{\n" + (EXAMPLES / "openai.jsonl").read_bytes())
    remote = json.loads(audit_paths([f"file://{tmp_path}"]).model_dump_json())
    local = json.loads(guard.audit(tmp_path).model_dump_json())
    text = json.dumps(_normal(remote)).replace(f"file://{tmp_path}", str(tmp_path))
    assert json.loads(text) == _normal(local)


def test_a_missing_uri_is_an_error_entry(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _cli(capsys, "--engine", "ray", "--json", "file:///no/such/dir/x.jsonl")
    report = json.loads(out)
    assert code == 2
    assert report["errors"][0]["path"] == "file:///no/such/dir/x.jsonl"
    assert "cannot read" in report["errors"][0]["error"]


def test_parquet_rows_give_the_findings_of_the_same_lines(tmp_path: Path) -> None:
    """Parquet named or met in a directory, beside JSONL: a finding's line is its row's
    position in the file; a bad or missing Parquet file is an error entry of its own."""
    lines = (EXAMPLES / "openai.jsonl").read_text(encoding="utf-8").splitlines()
    table = pa.Table.from_pylist([json.loads(line) for line in lines])
    pq.write_table(table, tmp_path / "a.parquet", row_group_size=64)
    shutil.copy(EXAMPLES / "openai.jsonl", tmp_path / "b.jsonl")
    (tmp_path / "c.parquet").write_bytes(b"not Parquet at all")
    report = audit_paths([str(tmp_path), str(tmp_path / "gone.parquet")])
    local = guard.audit(EXAMPLES / "openai.jsonl")
    files = [(Path(f.path).name, f.format, f.transcripts, f.messages) for f in report.summary.files]
    n, m = local.summary.transcripts, local.summary.messages
    assert files == [("b.jsonl", "openai", n, m), ("a.parquet", "openai", n, m)]
    assert report.summary.skipped == []

    def where(findings: list[guard.audit.Finding]) -> list[tuple[int, int, str, str]]:
        return [(f.line, f.message, f.kind, f.reason) for f in findings]

    by_file = {
        name: where([f for f in report.findings if f.path.endswith(name)])
        for name in ("a.parquet", "b.jsonl")
    }
    assert by_file["a.parquet"] == by_file["b.jsonl"] == where(local.findings) != []
    assert [(Path(e.path).name, e.error[:24]) for e in report.errors] == [
        ("c.parquet", "cannot read Parquet: Par"),
        ("gone.parquet", "cannot read: No such fil"),
    ]
    # inputs that could not be read fail the run, on Ray as locally (exit 2 beats findings' 1)
    assert (report.exit_code(), local.exit_code()) == (2, 1)
    assert guard.audit([EXAMPLES / "openai.jsonl", tmp_path / "gone.parquet"]).exit_code() == 2
