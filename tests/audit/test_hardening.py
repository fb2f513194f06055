"""`guard audit` on hostile input: wrong-typed fields, faults of guard itself, lost workers,
undecodable lines, binary heads, lines over the cap, links and repeated paths."""

from __future__ import annotations

import importlib
import io
import json
import multiprocessing
import os
import signal
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import guard
from guard.audit import AuditReport
from guard.cli import main

planner_module = importlib.import_module("guard.audit._planner")
units_module = importlib.import_module("guard.audit._units")
memo_module = importlib.import_module("guard.audit._memo")
sources_module = importlib.import_module("guard.audit._sources")

CLEAN = {"messages": [{"role": "user", "content": "hello"}]}
INJECTED = {"messages": [{"role": "user", "content": "hi <|start|> there"}]}


def line(obj: object) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def write(path: Path, *rows: bytes) -> Path:
    path.write_bytes(b"".join(rows))
    return path


def errors(report: AuditReport) -> list[tuple[int | None, str]]:
    return [(e.line, e.error) for e in report.errors]


# ---------------------------------------------------------------------------------------------
# Wrong-typed fields are error entries with their line


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"messages": [{"role": ["user"], "content": "x"}]}, "role must be a string, got array"),
        ({"messages": [{"role": {"a": 1}, "content": "x"}]}, "role must be a string, got object"),
        ({"input": [{"type": "message", "role": ["user"], "content": "x"}]}, "got array"),
        ({"input": [{"role": {"r": 1}, "content": "x"}]}, "role must be a string, got object"),
        ({"input": [{"type": ["message"], "content": "x"}]}, "type must be a string, got array"),
        ({"input": [{"type": {"t": 1}}]}, "type must be a string, got object"),
        ({"history": [{"role": ["user"], "content": "x"}]}, "role must be a string, got array"),
    ],
)
def test_a_wrong_typed_role_or_type_is_an_error_entry(
    tmp_path: Path, row: dict[str, Any], expected: str
) -> None:
    first = {"messages": INJECTED["messages"]}
    if "input" in row:
        first = {"input": INJECTED["messages"]}
    elif "history" in row:
        first = {"history": [{"role": "user", "content": "hi <|user|> there", "metadata": ""}]}
    path = write(tmp_path / "t.jsonl", line(first), line(row), line(first))
    report = guard.audit(path)
    assert report.summary.transcripts == 3
    assert [f.line for f in report.findings] == [1, 3]
    [(number, text)] = errors(report)
    assert number == 2 and expected in text
    assert report.exit_code("none") == 0


def test_wrong_types_in_memory_transcripts_are_error_entries() -> None:
    report = guard.audit([INJECTED, {"messages": [{"role": ["x"], "content": "y"}]}, INJECTED])
    assert [f.line for f in report.findings] == [1, 3]
    assert errors(report) == [(2, "message 0: role must be a string, got array")]


# ---------------------------------------------------------------------------------------------
# Faults of guard itself: internal error entries, exit code 3


def _raise_on(marker: str, adapter: Any) -> Any:
    def wrapped(obj: object, sink: Any, number: int) -> int:
        if marker in json.dumps(obj):
            raise RuntimeError("boom")
        return int(adapter(obj, sink, number))

    return wrapped


def test_an_unexpected_exception_reading_a_line_is_an_internal_error_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapters = dict(units_module.ADAPTERS)
    adapters["openai"] = _raise_on("BOOM", adapters["openai"])
    monkeypatch.setattr(units_module, "ADAPTERS", adapters)
    # a part list, so that the record goes through the adapter (records of the typed shape do
    # not: guard/audit/_fast.py)
    bad = {"messages": [{"role": "user", "content": [{"type": "text", "text": "BOOM"}]}]}
    path = write(tmp_path / "t.jsonl", line(INJECTED), line(bad), line(INJECTED))
    report = guard.audit(path)
    assert [f.line for f in report.findings] == [1, 3]
    [error] = report.errors
    assert error.line == 2 and error.internal and "RuntimeError" in error.error
    assert "BOOM" not in error.error  # the exception's message may quote the data: left out
    assert report.summary.internal_errors == 1
    assert report.exit_code() == 3 and report.exit_code("none") == 3


def test_an_unexpected_exception_judging_a_part_is_an_internal_error_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = memo_module.detect

    def detect(text: str, *args: Any, **kwargs: Any) -> Any:
        if "BOOM" in text:
            raise KeyError(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(memo_module, "detect", detect)
    bad = {"messages": [{"role": "user", "content": "BOOM <|start|>"}]}
    path = write(tmp_path / "t.jsonl", line(INJECTED), line(bad), line(INJECTED))
    report = guard.audit(path)
    assert [f.line for f in report.findings] == [1, 3]
    assert [(e.line, e.internal) for e in report.errors] == [(2, True)]
    assert "judging message 0 content" in report.errors[0].error


def test_a_unit_that_fails_whole_keeps_the_line_numbers_of_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = units_module.run_json_lines

    def run_json_lines(unit: Any, policy: Any) -> Any:
        if unit.data is not None and b"BOOM" in unit.data:
            raise MemoryError
        return real(unit, policy)

    monkeypatch.setattr(units_module, "run_json_lines", run_json_lines)
    monkeypatch.setattr(planner_module, "CHUNK_BYTES", 64)  # past the head: a line per unit
    bad = {"messages": [{"role": "user", "content": "BOOM"}]}
    rows = [line(INJECTED)] * 1500 + [line(bad)] + [line(INJECTED)] * 2
    report = guard.audit(write(tmp_path / "t.jsonl", *rows))
    [error] = report.errors
    assert error.internal and error.line == 1501 and "MemoryError" in error.error
    assert [f.line for f in report.findings] == [*range(1, 1501), 1502, 1503]


def test_the_cli_exits_3_on_internal_errors_and_still_prints_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    adapters = dict(units_module.ADAPTERS)
    adapters["openai"] = _raise_on("BOOM", adapters["openai"])
    monkeypatch.setattr(units_module, "ADAPTERS", adapters)
    # a part list: the record goes through the adapter (guard/audit/_fast.py)
    bad = {"messages": [{"role": "user", "content": [{"type": "text", "text": "BOOM"}]}]}
    path = write(tmp_path / "t.jsonl", line(INJECTED), line(bad))
    assert main(["audit", "--json", str(path)]) == 3
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["summary"]["transcripts"] == 1 and report["summary"]["internal_errors"] == 1
    assert report["errors"][0]["internal"] is True
    assert "internal error" in err and "Traceback" not in err


def test_the_cli_exits_3_without_a_traceback_when_the_audit_itself_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("planner bug")

    monkeypatch.setattr(planner_module.Planner, "plan", broken)
    path = write(tmp_path / "t.jsonl", line(INJECTED))
    assert main(["audit", str(path)]) == 3
    assert "internal error (RuntimeError)" in capsys.readouterr().err


def test_max_line_bytes_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["audit", "--max-line-bytes", "0", "x.jsonl"])
    assert exc.value.code == 2
    with pytest.raises(ValueError, match="max_line_bytes"):
        guard.audit([INJECTED], max_line_bytes=0)


# ---------------------------------------------------------------------------------------------
# A lost worker process

needs_fork = pytest.mark.skipif(
    multiprocessing.get_start_method() != "fork",
    reason="the test plants its fault in the parent before the workers are forked",
)


def _plant_killer(monkeypatch: pytest.MonkeyPatch, mark: Path | None) -> None:
    """Units holding ``KILLME`` kill their own worker process (every time, or once when
    ``mark`` is given: the first run leaves the file behind)."""
    real = units_module.run_unit
    parent = os.getpid()

    def run_unit(unit: Any, policy: Any) -> Any:
        killer = unit.data is not None and b"KILLME" in unit.data and os.getpid() != parent
        if killer and (mark is None or not mark.exists()):
            if mark is not None:
                mark.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return real(unit, policy)

    monkeypatch.setattr(units_module, "run_unit", run_unit)


def _killer_inputs(tmp_path: Path) -> list[Path]:
    killer = {"messages": [{"role": "user", "content": "KILLME"}]}
    paths = []
    for i in range(5):
        rows = [line(INJECTED), line(INJECTED)] + ([line(killer)] if i == 2 else [])
        paths.append(write(tmp_path / f"{i}.jsonl", *rows, line(INJECTED)))
    return paths


@needs_fork
def test_a_worker_killed_by_a_signal_is_an_error_entry_for_its_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _plant_killer(monkeypatch, None)
    paths = _killer_inputs(tmp_path)
    report = guard.audit(paths, workers=2)
    assert report.summary.transcripts == 12  # every file but the one the worker held
    [error] = report.errors
    assert error.path == str(paths[2]) and error.line == 1 and error.internal
    assert "killed by signal SIGKILL" in error.error and "the next 3" in error.error
    assert {f.path for f in report.findings} == {str(p) for p in paths if p != paths[2]}
    assert report.exit_code() == 3


@needs_fork
def test_a_worker_lost_once_costs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _plant_killer(monkeypatch, tmp_path / "killed-once")
    paths = _killer_inputs(tmp_path)
    report = guard.audit(paths, workers=2)
    assert (tmp_path / "killed-once").exists()
    one = guard.audit(paths, workers=1)
    assert report.errors == [] and report.findings == one.findings
    assert report.summary.transcripts == 16 and report.exit_code("injection") == 1


# ---------------------------------------------------------------------------------------------
# Undecodable lines and binary data

UTF16 = '{"messages": [{"role": "user", "content": "x"}]}\n'.encode("utf-16-le")
NUL_LINE = "not UTF-8 text: the line holds NUL bytes (UTF-16 text or binary data)"


def test_a_utf16_first_line_is_an_error_entry_and_the_rest_is_read(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", UTF16, line(INJECTED), line(INJECTED))
    report = guard.audit(path)
    assert report.summary.skipped == []
    assert report.summary.files[0].format == "openai"
    assert errors(report) == [(1, NUL_LINE)]
    assert [f.line for f in report.findings] == [2, 3]


def test_a_utf16_line_inside_a_file_is_one_error_entry(tmp_path: Path) -> None:
    bom = "\ufeff".encode("utf-16-le")
    path = write(tmp_path / "t.jsonl", line(INJECTED), bom + UTF16, line(INJECTED))
    report = guard.audit(path)
    # the UTF-16 line break leaves a NUL at the start of the next line: that line still counts
    assert errors(report) == [(2, NUL_LINE)]
    assert [f.line for f in report.findings] == [1, 3]


def test_invalid_utf8_is_an_error_entry(tmp_path: Path) -> None:
    bad = b'{"messages": [{"role": "user", "content": "\xff"}]}\n'
    path = write(tmp_path / "t.jsonl", line(INJECTED), bad, line(INJECTED))
    report = guard.audit(path)
    assert errors(report) == [(2, "invalid UTF-8: byte 0xff (column 44)")]
    assert [f.line for f in report.findings] == [1, 3]


def test_a_utf8_byte_order_mark_on_any_line_is_read(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.jsonl", b"\xef\xbb\xbf" + line(INJECTED), b"\xef\xbb\xbf" + line(INJECTED)
    )
    report = guard.audit(path)
    assert report.errors == [] and [f.line for f in report.findings] == [1, 2]


class Endless(io.RawIOBase):
    """An endless stream of one byte that counts what was read from it."""

    def __init__(self, byte: bytes = b"\x00") -> None:
        self.byte = byte
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = len(buffer)
        buffer[:n] = self.byte * n
        self.read_bytes += n
        return n


def test_binary_data_is_skipped_after_reading_the_head_only() -> None:
    stream = Endless()
    report = guard.audit(io.BufferedReader(stream))
    assert [s.reason for s in report.summary.skipped] == [
        "binary data (NUL bytes), not UTF-8 transcripts"
    ]
    assert stream.read_bytes <= 2 * sources_module.HEAD_BYTES


def test_a_sparse_file_of_nul_bytes_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "zeros.bin"
    with path.open("wb") as f:
        f.truncate(256 << 20)  # sparse: no disk used
    report = guard.audit(path)
    assert [s.path for s in report.summary.skipped] == [str(path)]
    assert report.errors == []


# ---------------------------------------------------------------------------------------------
# Lines over the cap


def long_row(size: int) -> bytes:
    return b'{"messages": [{"role": "user", "content": "' + b"a" * size + b'"}]}\n'


@pytest.mark.parametrize("chunk", [64, 1 << 20])
def test_a_line_over_the_cap_is_an_error_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(planner_module, "CHUNK_BYTES", chunk)
    rows = [line(INJECTED), long_row(5000), line(INJECTED), long_row(300), line(INJECTED)]
    report = guard.audit(write(tmp_path / "t.jsonl", *rows), max_line_bytes=1000)
    assert [f.line for f in report.findings] == [1, 3, 5]
    [(number, text)] = errors(report)
    assert number == 2 and "line of 5,047 bytes is over the cap of 1,000 bytes" in text
    assert report.summary.transcripts == 4


def test_a_last_line_over_the_cap_without_a_line_break(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(planner_module, "CHUNK_BYTES", 64)
    path = write(tmp_path / "t.jsonl", line(INJECTED), long_row(5000)[:-1])
    report = guard.audit(path, max_line_bytes=1000)
    assert [f.line for f in report.findings] == [1]
    assert [n for n, _ in errors(report)] == [2]


class LongLine(io.RawIOBase):
    """One JSONL line of ``size`` bytes of content, then a short line, made on the fly."""

    def __init__(self, size: int) -> None:
        self.parts = [
            b'{"messages": [{"role": "user", "content": "',
            size,
            b'"}]}\n' + line(INJECTED),
        ]

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while self.parts:
            part = self.parts[0]
            if isinstance(part, int):
                n = min(part, len(buffer))
                buffer[:n] = b"a" * n
                self.parts[0] = part - n
                if part == n:
                    self.parts.pop(0)
                return n
            if not part:
                self.parts.pop(0)
                continue
            n = min(len(part), len(buffer))
            buffer[:n] = part[:n]
            self.parts[0] = part[n:]
            return n
        return 0


def test_a_line_over_the_cap_is_never_held_whole() -> None:
    size = 24 << 20
    tracemalloc.start()
    try:
        report = guard.audit(io.BufferedReader(LongLine(size)), max_line_bytes=1 << 16)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [n for n, _ in errors(report)] == [1] and [f.line for f in report.findings] == [2]
    assert peak < 8 << 20  # a chunk (1 MiB), a skip piece and the cap, not the 24 MiB line


def test_a_harmony_line_over_the_cap_is_an_error_entry(tmp_path: Path) -> None:
    body = "<|start|>user<|message|>hi <|channel|> x<|end|>\n"
    path = tmp_path / "t.txt"
    path.write_text(body + "<|start|>user<|message|>" + "a" * 5000 + "<|end|>\n" + body)
    report = guard.audit(path, max_line_bytes=1000)
    assert (
        2,
        "line of 5,031 bytes is over the cap of 1,000 bytes (--max-line-bytes): not read",
    ) in errors(report)
    assert {f.line for f in report.findings} >= {1}


def test_a_text_file_over_the_cap_is_an_error_entry(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text("assistantfinal " * 1000)
    report = guard.audit(path, format="text", max_line_bytes=1000)
    assert report.findings == [] and [n for n, _ in errors(report)] == [1]
    assert "15,000 bytes of model output are over the cap" in report.errors[0].error


# ---------------------------------------------------------------------------------------------
# Each file once, skipped paths listed


def test_each_file_is_audited_once_however_it_is_reached(tmp_path: Path) -> None:
    top = tmp_path / "logs"
    (top / "sub").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    write(top / "a.jsonl", line(INJECTED))
    write(tmp_path / "elsewhere" / "b.jsonl", line(INJECTED))
    (top / "sub" / "link.jsonl").symlink_to(top / "a.jsonl")
    (top / "sub" / "linked").symlink_to(tmp_path / "elsewhere")  # a linked directory: followed
    (top / "sub" / "loop").symlink_to(top)  # a cycle
    (top / "dangling.jsonl").symlink_to(tmp_path / "missing")
    write(top / ".hidden.jsonl", line(INJECTED))
    report = guard.audit([top, top / "a.jsonl", tmp_path / "elsewhere"])
    audited = [f.path for f in report.summary.files]
    assert audited == [str(top / "a.jsonl"), str(top / "sub" / "linked" / "b.jsonl")]
    assert len(report.findings) == 2
    reasons = {
        Path(s.path).relative_to(tmp_path).as_posix(): s.reason for s in report.summary.skipped
    }
    assert reasons == {
        "logs/.hidden.jsonl": "hidden",
        "logs/dangling.jsonl": "a symbolic link that leads nowhere",
        "logs/sub/link.jsonl": f"the same file as {top / 'a.jsonl'}, audited once",
        "logs/sub/loop": f"a link back to {top} (a cycle), walked once",
        "logs/a.jsonl": f"the same file as {top / 'a.jsonl'}, audited once",
        "elsewhere": f"the same directory as {top / 'sub' / 'linked'}, walked once",
    }


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_a_directory_is_skipped_not_opened(tmp_path: Path) -> None:
    write(tmp_path / "a.jsonl", line(INJECTED))
    os.mkfifo(tmp_path / "pipe")
    report = guard.audit(tmp_path)
    assert [(Path(s.path).name, s.reason) for s in report.summary.skipped] == [
        ("pipe", "a FIFO, not a file of transcripts")
    ]


def test_skipped_paths_are_in_the_table_json_and_sarif(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    write(logs / "a.jsonl", line(INJECTED))
    (logs / "again.jsonl").symlink_to(logs / "a.jsonl")
    sarif = tmp_path / "out.sarif"
    assert main(["audit", "--fail-on", "none", "--sarif", str(sarif), str(logs)]) == 0
    assert f"{logs / 'again.jsonl'}: skipped: the same file as" in capsys.readouterr().out
    assert main(["audit", "--json", "--fail-on", "none", str(logs)]) == 0
    skipped = json.loads(capsys.readouterr().out)["summary"]["skipped"]
    assert [Path(s["path"]).name for s in skipped] == ["again.jsonl"]
    notes = json.loads(sarif.read_text())["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["level"] for n in notes] == ["note"]


class Trickle(io.RawIOBase):
    """``data`` served at most ``piece`` bytes per read (a pipe, a decompressor)."""

    def __init__(self, data: bytes, piece: int) -> None:
        self.data, self.piece, self.at = data, piece, 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = min(len(b), self.piece, len(self.data) - self.at)
        b[:n] = self.data[self.at : self.at + n]
        self.at += n
        return n


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=12),
    st.booleans(),
    st.integers(1, 120),
    st.integers(1, 50),
    st.integers(4, 60),
    st.integers(0, 80),
)
def test_json_units_keep_every_line_whatever_the_reads(
    lines: list[bytes], last_break: bool, chunk: int, piece: int, cap: int, head: int
) -> None:
    """The planner's units of a JSONL stream hold every line in order, whole, and only a line
    over the cap that no read finished is left out, as an error unit that counts its bytes:
    for any chunk size, any read size and any head the sniffer read first."""
    data = b"\n".join(lines) + (b"\n" if last_break and lines else b"")
    base = units_module.Unit(index=0, path="t", format="openai", dialect="harmony", max_line=cap)
    stream = io.BufferedReader(Trickle(data[head:], piece), buffer_size=8)
    old = planner_module.CHUNK_BYTES
    planner_module.CHUNK_BYTES = chunk
    try:
        units = list(planner_module._json_units(base, stream, data[:head], len(data) <= head))
    finally:
        planner_module.CHUNK_BYTES = old
    got: list[bytes | None] = []
    total = 0
    for u in units:
        if u.data is not None:
            total += len(u.data)
            assert u is units[-1] or u.data.endswith(b"\n")
            got += u.data.split(b"\n")[: -1 if u.data.endswith(b"\n") else None]
        else:
            assert u.result is not None and "over the cap" in u.result.errors[0].error
            total += u.result.bytes
            got += [None] * max(u.result.lines, 1)
    assert total == len(data)
    expected = data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n")
    expected = [] if data == b"" else expected
    assert len(got) == len(expected)
    for mine, theirs in zip(got, expected, strict=True):
        assert mine == theirs or (mine is None and len(theirs) > cap)
