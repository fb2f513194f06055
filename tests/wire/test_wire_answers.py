"""The wire engine's answer side for complete JSON answers: every string the model wrote is
judged, wherever it sits; logprobs after a cut are cut; the action is named for the header."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from guard.integrations.anthropic.protocol import guard_message
from guard.integrations.openai.protocol import guard_chat_completion, guard_response
from guard.wire._answer import guard_action, judge_other_strings

LEAK = "Sure.<|start|>assistant<|channel|>analysis<|message|>secret plan<|end|>"
JUDGES = {"chat": guard_chat_completion, "responses": guard_response, "messages": guard_message}


def chat(message: dict[str, Any], **choice: Any) -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, **choice}],
    }


def judged(kind: str, body: dict[str, Any], on_leak: str = "truncate") -> tuple[Any, str | None]:
    out, result = JUDGES[kind](body, dialect="all", on_leak=on_leak, abort="filter")
    mine = copy.deepcopy(out)
    extra = judge_other_strings(mine, kind, "all", None, on_leak, result.changed)
    return mine, guard_action(result, extra, on_leak)


def leaks(value: Any) -> bool:
    if isinstance(value, str):
        return "<|channel|>" in value or "<|start|>" in value
    if isinstance(value, dict):
        return any(leaks(v) for v in value.values())
    if isinstance(value, list):
        return any(leaks(v) for v in value)
    return False


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("chat", chat({"content": "ok", "refusal": LEAK})),
        ("chat", chat({"content": None, "function_call": {"name": "f", "arguments": LEAK}})),
        (
            "chat",
            chat(
                {
                    "content": None,
                    "tool_calls": [
                        {"id": "t", "type": "custom", "custom": {"name": "f", "input": LEAK}}
                    ],
                }
            ),
        ),
        ("chat", chat({"content": None, "audio": {"id": "a", "transcript": LEAK}})),
        ("chat", chat({"content": "ok", "reasoning_content": "", "reasoning": LEAK})),
        ("chat", chat({"content": "ok", "reasoning_details": [{"type": "x", "text": LEAK}]})),
        (
            "responses",
            {
                "output": [
                    {
                        "type": "message",
                        "id": "m",
                        "content": [{"type": "refusal", "refusal": LEAK}],
                    }
                ]
            },
        ),
        ("responses", {"output": [{"type": "mcp_call", "id": "m", "arguments": LEAK}]}),
        ("responses", {"output": [{"type": "code_interpreter_call", "id": "m", "code": LEAK}]}),
        (
            "responses",
            {
                "output": [
                    {"type": "local_shell_call", "id": "m", "action": {"command": ["sh", LEAK]}}
                ]
            },
        ),
        ("messages", {"content": [{"type": "mcp_tool_use", "id": "x", "input": {"q": LEAK}}]}),
    ],
)
def test_every_string_the_model_wrote_is_judged(kind: str, body: dict[str, Any]) -> None:
    out, action = judged(kind, body)
    assert not leaks(out)
    assert action == "truncated"
    assert leaks(body)  # the caller's object is untouched


def test_report_mode_names_the_leak_and_keeps_the_text() -> None:
    out, action = judged("chat", chat({"content": "ok", "refusal": LEAK}), on_leak="report")
    assert action == "reported" and leaks(out)


def test_ids_and_enums_are_exempt_and_clean_answers_untouched() -> None:
    body = chat({"content": "fine"}, finish_reason="stop")
    body["choices"][0]["message"]["tool_call_id"] = "call_7:a/b+c="  # an id: not model text
    out, action = judged("chat", body)
    assert out == body and action is None


@pytest.mark.parametrize(
    "value",
    ["<|start|>assistant", ["<|start|>assistant"], {"note": "<|start|>assistant"}],
    ids=["a string that looks like no id", "a list", "an object"],
)
def test_an_exempt_field_that_holds_more_than_an_id_is_judged(value: object) -> None:
    """One rule with the streams: an exempt field is skipped only while it looks like an id
    or an enum; what else sits there is judged (found by fuzzing the streamed answers)."""
    body = chat({"content": "fine"}, finish_reason="stop")
    body["choices"][0]["message"]["tool_call_id"] = value
    out, action = judged("chat", body)
    assert "<|start|>" not in json.dumps(out) and action == "truncated"


def test_logprobs_after_a_cut_are_cut() -> None:
    tokens = ["Sure.", "<|start|>", "assistant", "<|channel|>", "analysis"]
    body = chat(
        {"content": "".join(tokens)},
        logprobs={"content": [{"token": t, "logprob": -0.1} for t in tokens]},
    )
    out, action = judged("chat", body)
    kept = [t["token"] for t in out["choices"][0]["logprobs"]["content"]]
    assert "".join(kept) == out["choices"][0]["message"]["content"] == "Sure."
    assert action == "truncated"
