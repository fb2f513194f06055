"""`guard audit` gives detection the context `detect_message` has: declared tools (a record's
own `tools`, or `tools=` / `--tools` for all records) and whether an answer carried a reasoning
part."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import guard
from guard.audit._context import (
    ToolsOptionError,
    declared_tools,
    load_tools_option,
    reasoned_messages,
)
from guard.audit._engine import Collector, candidates
from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY
from guard.models import Surface

#: two cues of the reasoning voice: a leak only when the answer had no reasoning part
VOICE = "The user asks for the weather. We need to answer."
CALL_TEXT = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}


def call(name: str, arguments: str = "{}") -> dict[str, Any]:
    return {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}


def chat(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": "hi"}, *messages], **extra}


def findings(report: guard.AuditReport) -> list[tuple[int, int, str, tuple[str, ...]]]:
    return [(f.line, f.message, f.surface.value, f.signals) for f in report.findings]


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Declared tools


def test_a_records_own_tools_make_an_undeclared_call_a_leak() -> None:
    record = chat({"role": "assistant", "tool_calls": [call("get_weathr")]}, tools=[WEATHER])
    report = guard.audit([record])
    assert findings(report) == [(1, 1, "tool_name", ("U",))]
    assert report.summary.leaks_by_signal.get("U") == 1


def test_a_declared_call_is_clean_and_without_tools_u_is_silent() -> None:
    good = chat({"role": "assistant", "tool_calls": [call("get_weather")]}, tools=[WEATHER])
    unknown = chat({"role": "assistant", "tool_calls": [call("get_weathr")]})
    assert guard.audit([good, unknown]).findings == []


def test_tools_option_applies_to_records_without_their_own() -> None:
    own = chat({"role": "assistant", "tool_calls": [call("search")]}, tools=["search"])
    bare = chat({"role": "assistant", "tool_calls": [call("search")]})
    report = guard.audit([own, bare], tools=["get_weather"])
    # the record's own list wins over tools=; the bare record gets tools=
    assert findings(report) == [(2, 1, "tool_name", ("U",))]


def test_tools_option_accepts_definitions_and_names() -> None:
    record = chat({"role": "assistant", "tool_calls": [call("get_weather")]})
    assert guard.audit([record], tools=[WEATHER]).findings == []
    assert guard.audit([record], tools=["get_weather"]).findings == []
    assert len(guard.audit([record], tools=["search"]).findings) == 1


def test_tools_of_a_responses_record_and_builtin_tools_without_names() -> None:
    record = {
        "tools": [{"type": "web_search"}, {"type": "function", "name": "get_weather"}],
        "input": [{"type": "message", "role": "user", "content": "hi"}],
        "output": [
            {"type": "function_call", "name": "get_wether", "arguments": "{}", "call_id": "1"}
        ],
    }
    report = guard.audit([record])
    assert report.errors == []
    assert findings(report) == [(1, 1, "tool_name", ("U",))]


def test_a_malformed_tools_list_is_an_error_entry_and_the_record_is_still_judged() -> None:
    record = chat(
        {"role": "assistant", "content": "Done.<|call|>", "tool_calls": [call("f")]},
        tools=[42],
    )
    report = guard.audit([record])
    assert [e.line for e in report.errors] == [1]
    assert "tools[0]" in report.errors[0].error
    assert "got int" in report.errors[0].error
    # judged without declared tools: no U, the control token still counts
    assert [f.signals for f in report.findings] == [("H",)]


def test_tools_that_are_not_a_list_are_an_error_entry() -> None:
    record = chat({"role": "assistant", "tool_calls": [call("f")]}, tools={"f": {}})
    report = guard.audit([record])
    assert [e.error for e in report.errors] == [
        "tools must be a list, got dict; judged without declared tools"
    ]
    assert report.findings == []


def test_tools_option_reaches_raw_harmony_calls(tmp_path: Path) -> None:
    path = tmp_path / "t.harmony"
    path.write_text(
        "<|start|>user<|message|>weather?<|end|>"
        "<|start|>assistant<|channel|>commentary to=functions.get_weathr<|message|>{}<|call|>\n",
        encoding="utf-8",
    )
    assert guard.audit(path, format="harmony").findings == []
    report = guard.audit(path, format="harmony", tools=["get_weather"])
    assert [(f.surface.value, f.signals) for f in report.findings] == [("tool_name", ("U",))]


def test_tool_call_written_as_text_counts_only_for_a_declared_tool() -> None:
    record = chat({"role": "assistant", "content": CALL_TEXT})
    # tools unknown: a bare JSON call is no evidence (an example the user asked for reads the same)
    assert guard.audit([record]).findings == []
    assert [f.signals for f in guard.audit([record], tools=["get_weather"]).findings] == [("J",)]
    assert guard.audit([record], tools=["search"]).findings == []


def test_record_tools_in_a_jsonl_file_with_workers(tmp_path: Path) -> None:
    records = [
        chat({"role": "assistant", "tool_calls": [call("get_weathr")]}, tools=[WEATHER])
        if i % 7 == 0
        else chat({"role": "assistant", "tool_calls": [call("get_weather")]}, tools=[WEATHER])
        for i in range(50)
    ]
    path = write_jsonl(tmp_path / "t.jsonl", records)
    one = guard.audit(path, tools=["other"])
    two = guard.audit(path, tools=["other"], workers=2)
    assert [f.line for f in one.findings] == [i + 1 for i in range(50) if i % 7 == 0]
    assert one.findings == two.findings


def test_the_prefilter_never_skips_tool_names_because_u_promises_nothing() -> None:
    """With declared tools U can fire on any name, so the batch prefilter judges every tool name
    of such records (a plain name such as ``search`` holds no trigger of any other signal);
    without them U is left out and plain names are skipped."""
    dialect = get_dialect("harmony")
    names = ["search", "get_weather", "lookup"]
    group = frozenset({Surface.TOOL_NAME})
    assert candidates(names, group, dialect, DEFAULT_POLICY, tools_known=True) == [0, 1, 2]
    assert candidates(names, group, dialect, DEFAULT_POLICY, tools_known=False) == []
    records = [
        chat({"role": "assistant", "tool_calls": [call(name)]}, tools=["get_weather"])
        for name in names
    ]
    assert [f.line for f in guard.audit(records).findings] == [1, 3]
    # mixed batches: records with and without their own tools, with and without tools=
    mixed = [*records, chat({"role": "assistant", "tool_calls": [call("lookup")]})]
    assert [f.line for f in guard.audit(mixed).findings] == [1, 3]
    assert [f.line for f in guard.audit(mixed, tools=["x"]).findings] == [1, 3, 4]


def test_the_collector_judges_names_of_records_with_tools_only() -> None:
    c = Collector("<memory>", get_dialect("harmony"), DEFAULT_POLICY)
    for line, name in enumerate(["search", "lookup", "search"], 1):
        c.names.append((line, "tool_name", name, line, 1, "assistant", "name", None))
    c.declare(2, {"tools": ["search"]})
    assert c._candidates(c.names, frozenset({Surface.TOOL_NAME})) == [1]
    c.tools = frozenset({"lookup"})
    assert c._candidates(c.names, frozenset({Surface.TOOL_NAME})) == [0, 1, 2]


# ---------------------------------------------------------------------------------------------
# Reasoning context


@pytest.mark.parametrize("key", ["reasoning_content", "reasoning", "thinking"])
def test_an_answer_with_a_reasoning_part_is_judged_with_it(key: str) -> None:
    record = chat({"role": "assistant", key: "Weather lookup.", "content": VOICE})
    report = guard.audit([record])
    assert report.findings == []


def test_an_answer_without_a_reasoning_part_in_the_reasoning_voice_is_a_leak() -> None:
    record = chat({"role": "assistant", "content": VOICE})
    assert findings(guard.audit([record])) == [(1, 1, "text", ("V",))]


def test_a_blank_reasoning_part_does_not_count() -> None:
    record = chat({"role": "assistant", "reasoning_content": "  ", "content": VOICE})
    assert findings(guard.audit([record])) == [(1, 1, "text", ("V",))]


def test_reasoning_of_an_earlier_turn_does_not_count_for_a_later_answer() -> None:
    record = chat(
        {"role": "assistant", "reasoning_content": "Call the tool.", "tool_calls": [call("f")]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": VOICE},
    )
    assert findings(guard.audit([record])) == [(1, 3, "text", ("V",))]


def test_a_responses_reasoning_item_before_the_message_counts() -> None:
    reasoning = {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Plan."}]}
    message = {"type": "message", "role": "assistant", "content": VOICE}
    with_it = {"input": "hi", "output": [reasoning, message]}
    without = {"input": "hi", "output": [message]}
    assert guard.audit([with_it]).findings == []
    assert findings(guard.audit([without])) == [(1, 1, "text", ("V",))]


def test_a_dialect_without_reasoning_gets_no_reasoning_context() -> None:
    record = chat({"role": "assistant", "content": VOICE})
    assert guard.audit([record], dialect="llama3").findings == []


def test_text_files_give_no_reasoning_context(tmp_path: Path) -> None:
    path = tmp_path / "answer.txt"
    path.write_text(VOICE, encoding="utf-8")
    assert guard.audit(path, format="text").findings == []


def test_reasoned_messages_follow_the_turn() -> None:
    def part(surface: Surface, text: str, line: int, message: int) -> Any:
        return (0, surface.value, text, line, message, "assistant", "content", None)

    out = [
        part(Surface.THINKING, "plan", 1, 0),
        part(Surface.TEXT, "a", 1, 0),
        part(Surface.TEXT, "b", 1, 2),
        part(Surface.TEXT, "c", 2, 0),
    ]
    inp = [part(Surface.TOOL_RESULT, "r", 1, 1)]
    assert reasoned_messages(out, inp) == {(1, 0)}
    assert reasoned_messages(out, []) == {(1, 0), (1, 2)}
    # only the records asked for are looked at (the lines of the text parts being judged)
    more = [*out, part(Surface.THINKING, "plan", 3, 0), part(Surface.TEXT, "d", 3, 0)]
    assert reasoned_messages(more, inp) == {(1, 0), (3, 0)}
    assert reasoned_messages(more, inp, {3}) == {(3, 0)}
    assert reasoned_messages(more, inp, {2}) == set()


def test_the_collector_forgets_record_tools_after_judging() -> None:
    c = Collector("<memory>", get_dialect("harmony"), DEFAULT_POLICY)
    c.declare(1, {"tools": ["a"]})
    c.declare(2, {"messages": []})
    assert c.record_tools == {1: frozenset({"a"})}
    c.judge()
    assert c.record_tools == {}


# ---------------------------------------------------------------------------------------------
# --tools


def test_declared_tools_skips_builtin_tools_and_rejects_nameless_function_tools() -> None:
    assert declared_tools(["a", {"name": "b"}, WEATHER, {"type": "web_search"}]) == {
        "a",
        "b",
        "get_weather",
    }
    with pytest.raises(TypeError, match=r"tools\[0\]"):
        declared_tools([{"type": "function"}])
    with pytest.raises(TypeError, match="got str"):
        declared_tools("get_weather")


def test_load_tools_option_names_and_json_files(tmp_path: Path) -> None:
    assert load_tools_option("get_weather, search") == {"get_weather", "search"}
    defs = tmp_path / "tools.json"
    defs.write_text(json.dumps([WEATHER, {"name": "search"}]), encoding="utf-8")
    assert load_tools_option(str(defs)) == {"get_weather", "search"}
    wrapped = tmp_path / "req.json"
    wrapped.write_text(json.dumps({"tools": [WEATHER]}), encoding="utf-8")
    assert load_tools_option(str(wrapped)) == {"get_weather"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "could not read it"),
        ('{"a": 1}', "got a JSON dict"),
        ("[1]", r"tools\[0\]"),
    ],
)
def test_load_tools_option_rejects_bad_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "tools.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ToolsOptionError, match=message):
        load_tools_option(str(path))


def test_load_tools_option_rejects_empty_names_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(ToolsOptionError, match="comma-separated"):
        load_tools_option("a,,b")
    with pytest.raises(ToolsOptionError, match="no file"):
        load_tools_option(str(tmp_path / "missing.json"))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guard", "audit", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_cli_tools_option(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl", [chat({"role": "assistant", "tool_calls": [call("get_weathr")]})]
    )
    assert _cli(str(path)).returncode == 0
    flagged = _cli(str(path), "--tools", "get_weather", "--json")
    assert flagged.returncode == 1
    assert json.loads(flagged.stdout)["findings"][0]["signals"] == ["U"]
    defs = tmp_path / "tools.json"
    defs.write_text(json.dumps([WEATHER]), encoding="utf-8")
    assert _cli(str(path), "--tools", str(defs)).returncode == 1
    bad = _cli(str(path), "--tools", str(tmp_path / "nope.json"))
    assert bad.returncode == 2
    assert "--tools" in bad.stderr
    assert "Traceback" not in bad.stderr
