"""The CI integrations: the composite GitHub Action (action.yml) and the pre-commit hook
(.pre-commit-hooks.yaml), their scripts run here as GitHub and pre-commit would run them
(issue 16)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.paths import ROOT

from guard.cli import main

LEAKING = {"messages": [{"role": "assistant", "content": "Sure. <|channel|>analysis x"}]}
CLEAN = {"messages": [{"role": "assistant", "content": "Sure, here it is."}]}


def action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return data


def audit_step() -> dict[str, Any]:
    (step,) = [s for s in action()["runs"]["steps"] if s.get("id") == "audit"]
    return step


def test_action_is_composite_with_the_documented_inputs() -> None:
    spec = action()
    assert spec["runs"]["using"] == "composite"
    assert {"paths", "fail-on", "dialect", "policy", "sarif-file"} <= set(spec["inputs"])
    assert spec["inputs"]["fail-on"]["default"] == "leak,error"
    assert spec["outputs"]["sarif-file"]["value"] == "${{ steps.audit.outputs.sarif-file }}"
    for step in spec["runs"]["steps"]:
        if "run" in step:
            assert step["shell"] == "bash"
            # inputs are passed as environment variables, never spliced into a script
            assert "${{" not in step["run"], step["run"]


def run_action(
    workspace: Path, tmp_path: Path, **inputs: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    spec = action()
    step = audit_step()
    values = {name: str(i.get("default", "")) for name, i in spec["inputs"].items()}
    values.update({k.replace("_", "-"): v for k, v in inputs.items()})
    env = dict(os.environ)
    for name, expression in step["env"].items():
        (input_name,) = re.findall(r"\$\{\{ inputs\.([\w-]+) \}\}", expression)
        env[name] = values[input_name]
    output = tmp_path / "github_output"
    output.write_text("")
    env["GITHUB_OUTPUT"] = str(output)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env["PATH"]
    done = subprocess.run(
        ["bash", "-c", step["run"]], cwd=workspace, env=env, capture_output=True, text=True
    )
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines())
    return done, outputs


def test_the_action_script_audits_and_writes_relative_sarif(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    (workspace / "logs").mkdir(parents=True)
    (workspace / "logs" / "a b.jsonl").write_text(json.dumps(LEAKING) + "\n")
    (workspace / "clean").mkdir()
    (workspace / "clean" / "c.jsonl").write_text(json.dumps(CLEAN) + "\n")
    done, outputs = run_action(workspace, tmp_path, paths="logs clean")
    assert done.returncode == 1, done.stderr
    assert outputs == {"sarif-file": "guard.sarif"}
    sarif = json.loads((workspace / "guard.sarif").read_text())
    (result,) = sarif["runs"][0]["results"]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "logs/a%20b.jsonl", "uriBaseId": "%SRCROOT%"}
    # what failed comes first, then each finding as an annotation on its file and line
    lines = done.stdout.splitlines()
    assert lines[0].startswith("FAILED (exit 1")
    (annotation,) = [line for line in lines if line.startswith("::")]
    assert annotation.startswith(
        "::error file=logs/a b.jsonl,line=1,title=guard leak (H%2C text)::"
    )
    assert lines[-3].startswith("transcripts 2,")
    relaxed, _ = run_action(workspace, tmp_path, paths="logs", fail_on="none")
    assert relaxed.returncode == 0
    clean, _ = run_action(workspace, tmp_path, paths="clean", sarif_file="out/clean.sarif")
    assert clean.returncode == 2  # the directory out/ does not exist: a clear usage error
    (workspace / "out").mkdir()
    clean, _ = run_action(workspace, tmp_path, paths="clean", sarif_file="out/clean.sarif")
    assert clean.returncode == 0 and (workspace / "out" / "clean.sarif").is_file()


def test_the_action_passes_dialect_and_policy(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    (workspace / "a.jsonl").write_text(json.dumps(LEAKING) + "\n")
    done, _ = run_action(workspace, tmp_path, paths="a.jsonl", dialect="klingon")
    assert done.returncode == 2 and "klingon" in done.stderr
    done, _ = run_action(workspace, tmp_path, paths="a.jsonl", policy="missing.toml")
    assert done.returncode == 2 and "missing.toml" in done.stderr


def test_the_action_takes_paths_one_per_line_and_globs(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    (workspace / "logs" / "deep").mkdir(parents=True)
    (workspace / "logs" / "a b.jsonl").write_text(json.dumps(LEAKING) + "\n")
    (workspace / "logs" / "deep" / "c.jsonl").write_text(json.dumps(LEAKING) + "\n")
    (workspace / "other.jsonl").write_text(json.dumps(LEAKING) + "\n")
    # the usual YAML idiom: a block scalar, one path per line, the last line ending in a newline
    done, _ = run_action(workspace, tmp_path, paths="logs/a b.jsonl\n  other.jsonl\n")
    assert done.returncode == 1, done.stderr
    located = {line.split(",")[0] for line in done.stdout.splitlines() if line.startswith("::")}
    assert located == {"::error file=logs/a b.jsonl", "::error file=other.jsonl"}
    done, _ = run_action(workspace, tmp_path, paths="logs/**/*.jsonl")
    located = {line.split(",")[0] for line in done.stdout.splitlines() if line.startswith("::")}
    assert located == {"::error file=logs/a b.jsonl", "::error file=logs/deep/c.jsonl"}
    done, _ = run_action(workspace, tmp_path, paths="other.jsonl nothing/*.jsonl")
    assert done.returncode == 2
    assert "the paths pattern 'nothing/*.jsonl' matches no file" in done.stdout
    done, _ = run_action(workspace, tmp_path, paths=" \n \n")
    assert done.returncode == 2 and "names no file" in done.stdout


def test_annotations_cannot_be_forged_by_a_path_or_evidence(tmp_path: Path) -> None:
    """File names and evidence come from outside: a newline in either must not start a
    workflow command of its own, and `,` or `:` must not end a property."""
    path = tmp_path / "a,b:c\n::set-env name=A::1\n.jsonl"
    path.write_text(json.dumps(LEAKING) + "\n{broken\n")
    done = subprocess.run(
        [sys.executable, "-m", "guard", "audit", "--style", "github", str(path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    commands = [line for line in lines if line.startswith("::")]
    assert len(commands) == 2 and all(c.startswith("::error file=") for c in commands)
    assert all("a%2Cb%3Ac%0A%3A%3Aset-env name=A%3A%3A1%0A.jsonl," in c for c in commands)
    assert ",line=2," in commands[1] and "unreadable input" in commands[1]
    from guard.audit._annotations import _data

    assert _data("50%\r\n::x") == "50%25%0D%0A::x"


def hooks() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = yaml.safe_load(
        (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    )
    return data


def test_the_pre_commit_hook_runs_guard_audit_on_transcripts(tmp_path: Path) -> None:
    (hook,) = hooks()
    assert hook["id"] == "guard-audit" and hook["language"] == "python"
    entry = shlex.split(hook["entry"])
    assert entry[:2] == ["guard", "audit"]
    files = re.compile(hook["files"])
    for name in ("logs/a.jsonl", "b.jsonl.gz", "c.jsonl.zst"):
        assert files.search(name), name
    for name in ("README.md", "a.jsonl.txt", "notes.json"):
        assert not files.search(name), name
    leaky, clean = tmp_path / "leak.jsonl", tmp_path / "clean.jsonl"
    leaky.write_text(json.dumps(LEAKING) + "\n")
    clean.write_text(json.dumps(CLEAN) + "\n")
    assert main([*entry[1:], str(clean)]) == 0
    assert main([*entry[1:], str(clean), str(leaky)]) == 1


def test_the_pre_commit_hook_prints_where_each_finding_is(tmp_path: Path) -> None:
    (hook,) = hooks()
    leaky = tmp_path / "leak.jsonl"
    leaky.write_text(json.dumps(CLEAN) + "\n" + json.dumps(LEAKING) + "\n")
    entry = shlex.split(hook["entry"])
    done = subprocess.run(
        [sys.executable, "-m", "guard", *entry[1:], str(leaky)], capture_output=True, text=True
    )
    assert done.returncode == 1, done.stderr
    first, where = done.stdout.splitlines()[:2]
    assert first.startswith("FAILED (exit 1")
    assert where == f"{leaky}:2: leak H <|channel|> (text)"


@pytest.mark.parametrize("name", ["action.yml", ".pre-commit-hooks.yaml"])
def test_ci_files_name_no_machine_path(name: str) -> None:
    text = (ROOT / name).read_text(encoding="utf-8")
    assert not re.search(r"(?<![\w$])/(work|tmp|root|home)/", text)
