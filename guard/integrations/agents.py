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

The model's own output is guarded where the SDK reads it: give the agent
``OpenAIChatCompletionsModel(model=..., openai_client=guard_client(AsyncOpenAI()))`` (see
:mod:`guard.integrations.openai`). The dialect is the agent's model name's unless ``dialect``
fixes one.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from typing import Any

try:
    from agents import (
        Agent,
        FunctionTool,
        GuardrailFunctionOutput,
        OutputGuardrail,
        RunContextWrapper,
        ToolGuardrailFunctionOutput,
        ToolInputGuardrail,
        ToolInputGuardrailData,
        ToolOutputGuardrail,
        ToolOutputGuardrailData,
    )
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "guard.integrations.agents needs the OpenAI Agents SDK: pip install 'inband-guard[agents]'"
    ) from exc

from guard._detect import detect
from guard._escape import escape
from guard.dialects import Dialect
from guard.gate import Policy
from guard.integrations._settings import ModelSettings
from guard.integrations.openai.protocol import GuardSettings
from guard.models import Surface

__all__ = ["guard_output", "guard_tool_input", "guard_tool_output", "guard_tools"]


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
