"""`guard audit` on the command line: examples, broken inputs, exit codes, JSON, SARIF."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from support.paths import DATA, EXAMPLES, ROOT, load_generator

from guard.audit import ProgressBar

SCHEMA = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
generate = load_generator()


def run(*args: str, stdin: bytes = b"", cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(
        [sys.executable, "-m", "guard", "audit", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        check=False,
    )
    return subprocess.CompletedProcess(
        out.args, out.returncode, out.stdout.decode("utf-8"), out.stderr.decode("utf-8")
    )


def run_json(*args: str, stdin: bytes = b"") -> tuple[int, dict[str, Any]]:
    out = run("--json", *args, stdin=stdin)
    return out.returncode, json.loads(out.stdout)


def validate_sarif(path: Path) -> dict[str, Any]:
    sarif: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(SCHEMA).validate(sarif)
    return sarif


def test_the_readme_command_reports_the_examples_and_exits_0() -> None:
    out = run("corpora/examples/", "--fail-on", "none")
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # not a terminal: no progress bar
    first, head = out.stdout.splitlines()[:2]
    assert first.startswith("corpora/examples/") and first.endswith(("forgery", "forgeries"))
    assert head.split() == [
        "LINE",
        "MSG",
        "ROLE",
        "SURFACE",
        "KIND",
        "SIGNALS",
        "CUT",
        "EVIDENCE",
        "CONTEXT",
    ]
    assert "corpora/examples/harmony.txt: harmony (sniffed), dialect harmony" in out.stdout
    assert "corpora/examples/tool_result.txt: skipped: plain text" in out.stdout
    assert "corpora/examples/glm.txt: raw (sniffed), dialect glm" in out.stdout
    assert "transcripts 1,601, messages 13,182" in out.stdout
    assert "injections 54, forgeries 13, errors 0" in out.stdout


def test_examples_json_report_matches_the_generator() -> None:
    code, report = run_json("corpora/examples/")
    assert code == 1  # leaks, --fail-on leak by default
    assert set(report) == {"summary", "findings", "errors"}
    # raw transcripts of other dialects expect no message index (-1): it depends on the turns
    expected = sorted(
        (name, line, message, surface, kind)
        for name, (_, items) in {**generate.build(), **generate.build_raw()}.items()
        for line, message, surface, kind in items
    )
    raw = {name for name, _ in generate.RAW.values()}
    # in those, a finding is on its message's line: compare the first line of its transcript
    starts: dict[str, list[int]] = {}
    for name, line, _, _, _ in expected:
        starts.setdefault(name, []).append(line)

    def line_of(f: dict[str, Any]) -> int:
        name = f["path"].rsplit("/", 1)[-1]
        if name not in raw:
            return int(f["line"])
        return max(s for s in starts[name] if s <= f["line"])

    got = sorted(
        (
            f["path"].rsplit("/", 1)[-1],
            line_of(f),
            -1 if f["path"].rsplit("/", 1)[-1] in raw else f["message"],
            f["surface"],
            f["kind"],
        )
        for f in report["findings"]
    )
    assert got == expected
    finding = report["findings"][0]
    assert {
        "path",
        "line",
        "message",
        "role",
        "surface",
        "kind",
        "signals",
        "cut",
        "reason",
    } <= set(finding)
    s = report["summary"]
    assert (s["transcripts"], s["errors"], report["errors"]) == (1601, 0, [])
    assert s["leaks"] + s["injections"] + s["forgeries"] == len(report["findings"]) == 168
    assert sum(s["leaks_by_surface"].values()) == s["leaks"]
    assert {f["format"] for f in s["files"]} == {
        "openai",
        "responses",
        "chatglm3",
        "harmony",
        "raw",
    }


def test_fail_on_thresholds() -> None:
    path = str(EXAMPLES / "openai.jsonl")
    assert run(path).returncode == 1
    assert run(path, "--fail-on", "injection").returncode == 1
    assert run(path, "--fail-on", "none").returncode == 0
    only_injection = json.dumps({"messages": [{"role": "user", "content": "<|start|>"}]})
    assert run("-", stdin=only_injection.encode()).returncode == 0
    assert run("-", "--fail-on", "injection", stdin=only_injection.encode()).returncode == 1


def test_sarif_validates_against_the_2_1_0_schema(tmp_path: Path) -> None:
    out_file = tmp_path / "guard.sarif"
    out = run("corpora/examples/", "tests/data/wrong_types.jsonl", "--sarif", str(out_file))
    assert out.returncode == 1
    sarif = validate_sarif(out_file)
    run_ = sarif["runs"][0]
    assert run_["tool"]["driver"]["name"] == "guard"
    assert len(run_["results"]) == 168
    assert {r["ruleId"] for r in run_["results"]} == {
        "guard/leak",
        "guard/injection",
        "guard/forgery",
    }
    first = run_["results"][0]["locations"][0]["physicalLocation"]
    assert first["artifactLocation"]["uri"].startswith("corpora/examples/")
    assert first["region"]["startLine"] >= 1
    notes = run_["invocations"][0]["toolExecutionNotifications"]
    # a test run that imported corpora/examples/generate.py leaves a bytecode cache there
    cache = "skipped: a Python bytecode cache"
    notes = [n for n in notes if n["message"]["text"] != cache]
    errors = [n for n in notes if n["level"] == "error"]
    skipped = [n for n in notes if n["level"] == "note"]
    assert len(errors) == 7 and len(skipped) == 2 and len(notes) == 9
    assert all(n["message"]["text"].startswith("skipped: ") for n in skipped)


def test_sarif_for_stdin_and_unreadable_inputs_validates(tmp_path: Path) -> None:
    out_file = tmp_path / "s.sarif"
    leak = json.dumps({"messages": [{"role": "assistant", "content": "hi assistantfinal x"}]})
    out = run("-", str(tmp_path / "missing.jsonl"), "--sarif", str(out_file), stdin=leak.encode())
    assert out.returncode == 2  # a missing path fails the run (issue 32)
    sarif = validate_sarif(out_file)
    (result,) = sarif["runs"][0]["results"]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "stdin", "uriBaseId": "%SRCROOT%"}
    stdout_sarif = run("-", "--sarif", "-", stdin=leak.encode())
    jsonschema.Draft4Validator(SCHEMA).validate(json.loads(stdout_sarif.stdout))
    assert run("-", "--sarif", "-", "--json", stdin=leak.encode()).returncode == 2


def test_truncated_json_is_an_error_line_and_the_rest_is_audited() -> None:
    code, report = run_json("tests/data/truncated.jsonl")
    assert code == 1  # a line that cannot be read fails by default (--fail-on leak,error)
    assert run_json("tests/data/truncated.jsonl", "--fail-on", "leak")[0] == 0
    assert report["summary"]["transcripts"] == 2
    (error,) = report["errors"]
    assert error["path"] == "tests/data/truncated.jsonl" and error["line"] == 3
    assert error["error"].startswith("invalid JSON: Unterminated string")


def test_wrong_types_are_errors_with_their_lines() -> None:
    code, report = run_json("tests/data/wrong_types.jsonl", "--fail-on", "leak")
    assert code == 0
    assert [(e["line"], e["error"].split(":")[0]) for e in report["errors"]] == [
        (2, "messages must be a list, got string"),
        (3, "message 0"),
        (3, "message 1"),
        (4, "message 0"),
        (5, "message 0"),
        (6, 'expected an object with "messages" or a message list, got number'),
        (7, 'expected an object with "messages" or a message list, got null'),
    ]
    assert "arguments must be a string" in report["errors"][3]["error"]
    assert report["summary"]["transcripts"] == 4


def test_invalid_utf8_is_an_error_line() -> None:
    code, report = run_json("tests/data/invalid_utf8.jsonl", "--fail-on", "leak")
    assert code == 0 and report["summary"]["transcripts"] == 2
    (error,) = report["errors"]
    assert error["line"] == 2 and error["error"].startswith("invalid UTF-8: byte 0xe9")


def test_empty_file_and_directory_without_transcripts_exit_2() -> None:
    out = run("tests/data/empty.jsonl")
    assert out.returncode == 2 and "no transcript could be read" in out.stderr
    assert "tests/data/empty.jsonl: empty file" in out.stdout
    code, report = run_json("tests/data/no_transcripts")
    assert code == 2
    reasons = {s["path"].rsplit("/", 1)[-1]: s["reason"] for s in report["summary"]["skipped"]}
    assert reasons["notes.txt"].startswith("plain text")
    assert reasons["cases.jsonl"].startswith("JSON lines, but none looks like a transcript")
    code, report = run_json("tests/data/no_such_dir/")
    assert code == 2
    assert report["errors"][0]["error"] == "cannot read: No such file or directory"


def test_broken_inputs_beside_good_ones_do_not_stop_the_audit(tmp_path: Path) -> None:
    bad_gz = tmp_path / "bad.jsonl.gz"
    bad_gz.write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    code, report = run_json(
        "tests/data/",
        str(bad_gz),
        str(EXAMPLES / "harmony.txt"),
    )
    assert code == 2  # bad.jsonl.gz and empty.jsonl could not be read at all (issue 32)
    errors = {(Path(e["path"]).name, e["line"]) for e in report["errors"]}
    assert ("truncated.jsonl", 3) in errors and ("invalid_utf8.jsonl", 2) in errors
    assert ("empty.jsonl", None) in errors and ("bad.jsonl.gz", None) in errors
    # the schema file is JSON but not JSON lines of transcripts; README.md is plain text
    skipped = {Path(s["path"]).name for s in report["summary"]["skipped"]}
    assert {"README.md", "sarif-schema-2.1.0.json", "notes.txt", "cases.jsonl"} <= skipped
    assert report["summary"]["forgeries"] == 2


def test_stdin_and_gzip_stdin(tmp_path: Path) -> None:
    data = (EXAMPLES / "openai.jsonl").read_bytes()
    _, plain = run_json("-", stdin=data)
    _, packed = run_json("-", stdin=gzip.compress(data))
    assert plain["findings"] == packed["findings"]
    assert plain["findings"][0]["path"] == "<stdin>"
    assert plain["summary"]["files"][0]["format"] == "openai"
    _, harmony = run_json("-", stdin=(EXAMPLES / "harmony.txt").read_bytes())
    assert harmony["summary"]["forgeries"] == 2


def test_workers_2_gives_the_same_report() -> None:
    args = ("corpora/examples/", "tests/data/")
    _, one = run_json(*args)
    _, two = run_json(*args, "--workers", "2")
    assert two["findings"] == one["findings"] and two["errors"] == one["errors"]
    for s in (one["summary"], two["summary"]):
        del s["elapsed"], s["workers"]
    assert two["summary"] == one["summary"]
    assert run("corpora/examples/", "--workers", "0").returncode == 2


def test_format_dialect_and_policy_options(tmp_path: Path) -> None:
    # an explicit format: the tool result file read as raw model output
    code, report = run_json("corpora/examples/tool_result.txt", "--format", "text")
    assert code == 1 and {f["surface"] for f in report["findings"]} == {"text"}
    assert report["summary"]["files"][0]["sniffed"] is False
    # ChatGLM3 histories judged as Harmony find fewer role-token problems
    _, glm = run_json(str(EXAMPLES / "chatglm3.jsonl"))
    _, as_harmony = run_json(str(EXAMPLES / "chatglm3.jsonl"), "--dialect", "harmony")
    assert as_harmony["summary"]["files"][0]["dialect"] == "harmony"
    assert len(as_harmony["findings"]) < len(glm["findings"])
    # a policy that switches the control-token signal off
    policy = tmp_path / "policy.toml"
    policy.write_text('disabled = ["H"]\n')
    _, relaxed = run_json(str(EXAMPLES / "openai.jsonl"), "--policy", str(policy))
    _, strict = run_json(str(EXAMPLES / "openai.jsonl"))
    assert "H" not in {c for f in relaxed["findings"] for c in f["signals"]}
    assert len(relaxed["findings"]) < len(strict["findings"])
    assert run("corpora/examples/", "--dialect", "nope").returncode == 2
    assert run("corpora/examples/", "--policy", str(tmp_path / "x.yaml")).returncode == 2


def test_output_never_shows_raw_text_beyond_the_redacted_preview(tmp_path: Path) -> None:
    secret = "Patient Alice Smith"
    t = {
        "messages": [
            {"role": "user", "content": f"{secret} asks about <|start|> {secret}"},
            {
                "role": "assistant",
                "content": f"{secret} analysis to=functions.edit code 大发 {secret}",
            },
        ]
    }
    stdin = json.dumps(t).encode()
    sarif = tmp_path / "s.sarif"
    for args in ((), ("--json",), ("--sarif", str(sarif))):
        out = run("-", *args, stdin=stdin)
        assert out.returncode == 1
        assert "Alice" not in out.stdout and "Alice" not in out.stderr
    assert "Alice" not in sarif.read_text(encoding="utf-8")


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_draws_only_on_a_terminal() -> None:
    assert ProgressBar.for_terminal(io.StringIO(), 100) is None
    term = FakeTerminal()
    bar = ProgressBar.for_terminal(term, 1_000_000)
    assert bar is not None
    bar.delay = bar.interval = 0.0
    bar(500_000, 1000)
    assert "audit  50% [############" in term.getvalue() and "MB/s" in term.getvalue()
    bar.close()
    assert term.getvalue().endswith("\r\x1b[K")


@pytest.mark.parametrize("name", ["openai.jsonl", "responses.jsonl", "chatglm3.jsonl"])
def test_each_example_file_alone(name: str) -> None:
    code, report = run_json(str(EXAMPLES / name))
    assert code == 1 and report["summary"]["transcripts"] == 300
    assert len(report["findings"]) == len(generate.build()[name][1])


def test_help_does_not_load_the_audit_engine() -> None:
    """`guard --help` builds the audit options from FORMATS and FAIL_ON only."""
    code = (
        "import sys; from guard.cli import build_parser; build_parser().format_help();"
        "print(sorted(sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = done.stdout
    for heavy in (
        "guard.audit._engine",
        "guard.audit.report",
        "guard.gate",
        "guard.signals",
        "pydantic",
    ):
        assert f"'{heavy}'" not in loaded, f"{heavy} loaded by the parser"
