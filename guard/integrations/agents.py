"""guard as OpenAI Agents SDK guardrails (install ``inband-guard[agents]``).

* :func:`guard_tool_input`: a tool-input guardrail. A call's arguments are judged on the
  ``tool_arg`` surface with the tool's name (docs/detection.md, "Gate"); when they leak, the
  tool is not run and the model gets a short refusal instead of its result.
* :func:`guard_tool_output`: a tool-output guardrail. The result text is escaped for the
  dialect (``docs/escaping.md``): a result that holds a reserved spelling reaches the model in
  its escaped form.
* :func:`guard_output`: an output guardrail that trips (``OutputGuardrailTripwireTriggered``) on
  a leak verdict on the agent's final output.
* :func:`guard_tools`: copies of function tools with both tool guardrails attached.
* :func:`guard_model`: a model whose aborting leaks surface as :class:`AgentLeakAborted`, an
  ``AgentsException`` (what the SDK's users catch; the runner attaches ``run_data``) that is
  also a :class:`guard.LeakAborted`.

The model's own output is guarded where the SDK reads it: give the agent a model on a guarded
client (``OpenAIChatCompletionsModel(model=..., openai_client=guard_client(AsyncOpenAI()))``,
or any model on ``AsyncOpenAI(http_client=guard.async_http_client())``), wrapped in
:func:`guard_model` so an abort reads as the SDK's own exception. The dialect is the agent's
model name's unless ``dialect`` fixes one.
"""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

from guard.integrations._extras import missing_extra

try:
    from agents import (
        Agent,
        AgentsException,
        FunctionTool,
        GuardrailFunctionOutput,
        Model,
        OutputGuardrail,
        RunContextWrapper,
        ToolGuardrailFunctionOutput,
        ToolInputGuardrail,
        ToolInputGuardrailData,
        ToolOutputGuardrail,
        ToolOutputGuardrailData,
    )
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_extra(__name__, "the OpenAI Agents SDK", "agents") from exc

from guard._detect import detect
from guard._escape import escape
from guard.dialects import Dialect
from guard.errors import LeakAborted
from guard.gate import Policy
from guard.integrations._settings import ModelSettings
from guard.integrations.openai.protocol import GuardSettings
from guard.models import Surface, Verdict

__all__ = [
    "AgentLeakAborted",
    "GuardedModel",
    "guard_model",
    "guard_output",
    "guard_tool_input",
    "guard_tool_output",
    "guard_tools",
]


class AgentLeakAborted(LeakAborted, AgentsException):
    """An aborting leak (``on_leak="abort"``) in a model's answer, as the Agents SDK's own
    exception: ``except agents.AgentsException`` catches it (the runner sets ``run_data``), and
    so does ``except guard.LeakAborted`` (``verdict``, ``withheld``)."""

    def __init__(self, verdict: Verdict, withheld: str) -> None:
        LeakAborted.__init__(self, verdict, withheld)
        self.run_data = None

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.verdict, self.withheld))


def _aborted(exc: BaseException) -> LeakAborted | None:
    """The :class:`LeakAborted` that ``exc`` is or was raised from (an SDK may wrap what its
    transport raised, e.g. as a connection error), else None."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, LeakAborted):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _as_agents(exc: BaseException) -> BaseException:
    found = _aborted(exc)
    if found is None or isinstance(found, AgentLeakAborted):
        return found if isinstance(found, AgentLeakAborted) else exc
    return AgentLeakAborted(found.verdict, found.withheld)


class GuardedModel(Model):
    """``model`` with an aborting leak raised as :class:`AgentLeakAborted` (see
    :func:`guard_model`); every call is the wrapped model's."""

    def __init__(self, model: Model) -> None:
        self.model = model

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await self.model.get_response(*args, **kwargs)
        except Exception as exc:
            converted = _as_agents(exc)
            if converted is exc:
                raise
            raise converted from exc

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        try:
            async for event in self.model.stream_response(*args, **kwargs):
                yield event
        except Exception as exc:
            converted = _as_agents(exc)
            if converted is exc:
                raise
            raise converted from exc

    def get_retry_advice(self, request: Any) -> Any:
        return self.model.get_retry_advice(request)

    async def _cleanup_on_run_end(self, owner: object) -> None:
        await self.model._cleanup_on_run_end(owner)

    async def close(self) -> None:
        await self.model.close()


def guard_model(model: Model) -> GuardedModel:
    """``model`` (a guarded one: on ``guard_client`` or ``guard.async_http_client()``) with an
    aborting leak raised as :class:`AgentLeakAborted`, from ``Runner.run`` and from
    ``Runner.run_streamed``'s event stream alike, so ``except agents.AgentsException`` handles
    it with the SDK's other failures."""
    return GuardedModel(model)


def _settings_for(settings: ModelSettings, agent: Agent[Any]) -> GuardSettings:
    model = agent.model
    name = model if isinstance(model, str) else getattr(model, "model", None)
    return settings.for_model(name)


def guard_tool_input(
    *,
    dialect: str | Dialect | None = None,
    dialects: Mapping[str, str] | None = None,
    policy: Policy | None = None,
    name: str = "guard_tool_input",
) -> ToolInputGuardrail[Any]:
    """A tool-input guardrail: the call is rejected (not run; the model is told why) when its
    arguments leak. ``output_info`` is the verdict."""
    settings = ModelSettings(dialect, dialects, policy)

    def check(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        s = _settings_for(settings, data.agent)
        tool = data.context.tool_name
        verdict = detect(
            data.context.tool_arguments, Surface.TOOL_ARG, s.dialect, s.policy, tool_name=tool
        )
        if verdict.leak:
            message = (
                f"guard: the arguments of this {tool} call carry in-band control text; the"
                " call was not run."
            )
            return ToolGuardrailFunctionOutput.reject_content(message, output_info=verdict)
        return ToolGuardrailFunctionOutput.allow(output_info=verdict)

    return ToolInputGuardrail(guardrail_function=check, name=name)


def guard_tool_output(
    *,
    dialect: str | Dialect | None = None,
    dialects: Mapping[str, str] | None = None,
    name: str = "guard_tool_output",
) -> ToolOutputGuardrail[Any]:
    """A tool-output guardrail: a result whose text holds a reserved spelling reaches the model
    escaped (the SDK's ``reject_content`` with the escaped text as the message). Results
    without one pass as they are."""
    settings = ModelSettings(dialect, dialects)

    def check(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
        s = _settings_for(settings, data.agent)
        output = data.output
        text = output if isinstance(output, str) else str(output)
        escaped = escape(text, s.dialect)
        if escaped == text:
            return ToolGuardrailFunctionOutput.allow()
        return ToolGuardrailFunctionOutput.reject_content(escaped, output_info="escaped")

    return ToolOutputGuardrail(guardrail_function=check, name=name)


def _output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    dump = getattr(output, "model_dump_json", None)
    if callable(dump):
        return str(dump())
    try:
        return json.dumps(output, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(output)


def guard_output(
    *,
    dialect: str | Dialect | None = None,
    dialects: Mapping[str, str] | None = None,
    policy: Policy | None = None,
    name: str = "guard_output",
) -> OutputGuardrail[Any]:
    """An output guardrail that trips on a leak verdict on the agent's final output (text, or
    structured output as JSON). ``output_info`` is the verdict."""
    settings = ModelSettings(dialect, dialects, policy)

    def check(
        context: RunContextWrapper[Any], agent: Agent[Any], output: Any
    ) -> GuardrailFunctionOutput:
        s = _settings_for(settings, agent)
        verdict = detect(_output_text(output), Surface.TEXT, s.dialect, s.policy)
        return GuardrailFunctionOutput(output_info=verdict, tripwire_triggered=verdict.leak)

    return OutputGuardrail(guardrail_function=check, name=name)


def guard_tools(
    tools: Iterable[Any],
    *,
    dialect: str | Dialect | None = None,
    dialects: Mapping[str, str] | None = None,
    policy: Policy | None = None,
    escape_results: bool = True,
) -> list[Any]:
    """Copies of ``tools`` with :func:`guard_tool_input` and (``escape_results``)
    :func:`guard_tool_output` added to each function tool (other tools are returned as they
    are). With a model on a :func:`guard.integrations.openai.guard_client` client, which escapes
    every message it sends, pass ``escape_results=False``: escaping is reversible, so a result
    escaped twice would reach the model with two backslashes."""
    inputs = guard_tool_input(dialect=dialect, dialects=dialects, policy=policy)
    outputs = guard_tool_output(dialect=dialect, dialects=dialects)
    out: list[Any] = []
    for tool in tools:
        if isinstance(tool, FunctionTool):
            tool = copy.copy(tool)
            tool.tool_input_guardrails = [*(tool.tool_input_guardrails or ()), inputs]
            if escape_results:
                tool.tool_output_guardrails = [*(tool.tool_output_guardrails or ()), outputs]
        out.append(tool)
    return out
