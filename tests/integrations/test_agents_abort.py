"""guard.integrations.agents, issue 29: an aborting leak as the Agents SDK's own exception
(``AgentsException``, still a ``guard.LeakAborted``) from ``Runner.run`` and
``Runner.run_streamed``, with the real SDK against the fake upstream; and how a tool result
escaped by ``guard_tool_output`` shows in the run's trace."""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from agents import (
    Agent,
    AgentsException,
    OpenAIChatCompletionsModel,
    Runner,
    function_tool,
    set_trace_processors,
    set_tracing_disabled,
)
from agents.tracing import TracingProcessor
from openai import AsyncOpenAI
from support.fake_upstream import CHAT_LEAKED, FakeUpstream, Script, chat_json

from guard import LeakAborted, detect
from guard.integrations.agents import AgentLeakAborted, GuardedModel, guard_model, guard_tools
from guard.integrations.openai import guard_client

MODEL = "gpt-oss-120b"
LEAK = "Sure. <|start|>assistant<|channel|>analysis<|message|>secret plan"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeUpstream]:
    with FakeUpstream() as upstream:
        yield upstream


def aborting_agent(fake: FakeUpstream) -> Agent[Any]:
    fake.reset()
    client = AsyncOpenAI(base_url=fake.url, api_key="sk-test", max_retries=0, timeout=10)
    model = OpenAIChatCompletionsModel(
        model=MODEL, openai_client=guard_client(client, on_leak="abort")
    )
    return Agent(name="a", instructions="Answer.", model=guard_model(model))


def test_run_abort_is_an_agents_exception(fake: FakeUpstream) -> None:
    set_tracing_disabled(True)
    fake.script = Script(body=chat_json(LEAK))
    with pytest.raises(AgentsException) as info:
        asyncio.run(Runner.run(aborting_agent(fake), "hi"))
    exc = info.value
    assert isinstance(exc, AgentLeakAborted) and isinstance(exc, LeakAborted)
    assert exc.verdict.leak and "secret plan" in exc.withheld
    assert exc.run_data is not None  # the runner attached its details, as to its own errors


def test_run_streamed_abort_is_an_agents_exception(fake: FakeUpstream) -> None:
    set_tracing_disabled(True)
    fake.script = Script(events=CHAT_LEAKED)
    seen: list[str] = []

    async def main() -> None:
        result = Runner.run_streamed(aborting_agent(fake), "hi")
        async for event in result.stream_events():
            data = getattr(event, "data", None)
            delta = getattr(data, "delta", None)
            if isinstance(delta, str):
                seen.append(delta)

    with pytest.raises(LeakAborted) as info:
        asyncio.run(main())
    assert isinstance(info.value, AgentsException)
    assert "<|cha" not in "".join(seen)


def test_a_leak_aborted_wrapped_by_the_sdk_is_found() -> None:
    verdict = detect(LEAK, "text")

    class Failing(GuardedModel):
        pass

    class Inner:
        async def get_response(self, *args: Any, **kwargs: Any) -> Any:
            try:
                raise LeakAborted(verdict, "withheld")
            except LeakAborted as exc:
                request = openai._base_client.httpx.Request("POST", "http://x")
                raise openai.APIConnectionError(request=request) from exc

    model = Failing(Inner())  # type: ignore[arg-type]
    with pytest.raises(AgentLeakAborted) as info:
        asyncio.run(model.get_response())
    assert info.value.withheld == "withheld"
    again = pickle.loads(pickle.dumps(info.value))
    assert isinstance(again, AgentLeakAborted) and again.withheld == "withheld"


def test_other_failures_pass_unchanged() -> None:
    class Inner:
        async def get_response(self, *args: Any, **kwargs: Any) -> Any:
            raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        asyncio.run(GuardedModel(Inner()).get_response())  # type: ignore[arg-type]


class _Spans(TracingProcessor):
    def __init__(self) -> None:
        self.spans: list[Any] = []

    def on_trace_start(self, trace: Any) -> None: ...
    def on_trace_end(self, trace: Any) -> None: ...
    def on_span_start(self, span: Any) -> None: ...

    def on_span_end(self, span: Any) -> None:
        self.spans.append(span)

    def shutdown(self) -> None: ...
    def force_flush(self) -> None: ...


@function_tool
def read_note(name: str) -> str:
    """A note."""
    return f"{name}: see <|call|> here"


def test_tool_output_escaping_in_the_trace(fake: FakeUpstream) -> None:
    """The function span's output is the escaped text the model was sent, not the tool's own
    result; the escaping is the tool-output guardrail's ``reject_content`` (``output_info``
    ``"escaped"``), listed in the run's ``tool_output_guardrail_results``."""
    spans = _Spans()
    set_tracing_disabled(False)
    set_trace_processors([spans])
    try:
        fake.reset()
        replies = [
            chat_json(None, tool_calls=[("read_note", '{"name": "a"}')]),
            chat_json("done"),
        ]
        fake.script = lambda exchange: Script(body=replies.pop(0))
        client = AsyncOpenAI(base_url=fake.url, api_key="sk-test", max_retries=0, timeout=10)
        agent = Agent(
            name="n",
            instructions="Use the tool.",
            model=OpenAIChatCompletionsModel(model=MODEL, openai_client=client),
            tools=guard_tools([read_note]),
        )
        result = asyncio.run(Runner.run(agent, "note?"))
    finally:
        set_trace_processors([])
        set_tracing_disabled(True)
    (tool_result,) = result.tool_output_guardrail_results
    assert tool_result.output.behavior["type"] == "reject_content"
    assert tool_result.output.output_info == "escaped"
    sent = [m for m in fake.exchanges[1].json["messages"] if m["role"] == "tool"]
    assert sent[0]["content"] == "a: see <\\|call\\|> here"
    outputs = [
        s.span_data.output for s in spans.spans if type(s.span_data).__name__ == "FunctionSpanData"
    ]
    assert outputs == ["a: see <\\|call\\|> here"]
