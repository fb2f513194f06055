"""guard.integrations.nemo: the output rail in NeMo Guardrails' own engine (the real package),
streaming an external generator through ``LLMRails.stream_async`` with streaming output rails,
and checking a complete bot message; no LLM is called."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from nemoguardrails import LLMRails, RailsConfig

from guard.integrations.nemo import FLOWS, guard_leak_check, register

CONFIG = """
models: []
rails:
  output:
    flows:
      - guard leak check output
    streaming:
      enabled: true
      chunk_size: 4
      context_size: 2
      stream_first: false
"""
LEAKED = [
    "Sure. ",
    "Here ",
    "it is ",
    "<|sta",
    "rt|>assistant",
    "<|channel|>",
    "analysis ",
    "secret ",
]
CLEAN = ["It ", "is ", "sunny ", "in ", "Paris ", "today."]


@pytest.fixture(scope="module")
def rails() -> LLMRails:
    config = RailsConfig.from_content(colang_content=FLOWS, yaml_content=CONFIG)
    with pytest.warns(DeprecationWarning):
        out = LLMRails(config, llm=FakeListChatModel(responses=["unused"]))
    register(out, dialect="harmony")
    return out


def stream(rails: LLMRails, pieces: list[str]) -> list[str]:
    async def source() -> AsyncIterator[str]:
        for piece in pieces:
            yield piece

    async def main() -> list[str]:
        messages = [{"role": "user", "content": "hi"}]
        return [c async for c in rails.stream_async(messages=messages, generator=source())]

    return asyncio.run(main())


def test_streaming_rail_blocks_a_split_control_token(rails: LLMRails) -> None:
    out = stream(rails, LEAKED)
    error = json.loads(out[-1])["error"]
    assert error["code"] == "content_blocked" and error["param"] == "guard leak check output"
    delivered = "".join(out[:-1])
    assert "rt|>" not in delivered and "secret" not in delivered
    # a window can end inside a token: its first half may go out before the block
    assert delivered in ("Sure. Here it is ", "Sure. Here it is <|sta")


def test_streaming_rail_passes_clean_text(rails: LLMRails) -> None:
    assert "".join(stream(rails, CLEAN)) == "It is sunny in Paris today."


def test_output_rail_on_a_complete_message(rails: LLMRails) -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Sure <|start|>assistant<|channel|>analysis<|message|>x"},
    ]
    result: Any = asyncio.run(
        rails.generate_async(messages=messages, options={"rails": ["output"]})
    )
    assert result.response[0]["content"] == "I'm sorry, I can't respond to that."


def test_action_outcomes() -> None:
    blocked = asyncio.run(
        guard_leak_check(text="ok <|start|>assistant<|channel|>final<|message|>x")
    )
    assert blocked.is_blocked and blocked.metadata["cut"] == 3
    assert "<|start|>" not in str(blocked.metadata)
    assert not asyncio.run(guard_leak_check(context={"bot_message": "fine"})).is_blocked
    glm = "Sure. <|observation|><tool_response>{}</tool_response>"
    assert asyncio.run(guard_leak_check(text=glm, dialect="glm")).is_blocked
    assert asyncio.run(guard_leak_check(text=123)).is_blocked  # type: ignore[arg-type]
