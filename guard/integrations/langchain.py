"""guard as LangChain agent middleware: :class:`GuardMiddleware` (install
``inband-guard[langchain]``; LangChain 1.0 or later).

``create_agent(model, tools, middleware=[GuardMiddleware()])``:

* ``wrap_model_call`` / ``awrap_model_call``: the model gets a copy of the system message and
  the messages with every model-visible text escaped for the dialect (``docs/escaping.md``):
  content (strings and text, reasoning and thinking blocks), tool calls' names and arguments,
  ``reasoning_content``. The agent's state keeps the originals. The reply is judged part by
  part: its text and reasoning are cut at the cut, a tool call (valid or not) whose name or
  arguments leak is dropped, a forged tool result is cut; ``on_leak="abort"`` raises
  :class:`guard.LeakAborted`.
* ``wrap_tool_call`` / ``awrap_tool_call``: a tool's ``ToolMessage`` is escaped where it is
  made, so the state holds the escaped result (marked in ``response_metadata``, so the model
  call does not escape it twice).

The dialect is the chat model's name's (``model_name`` / ``model``; tool results: the last
model call's) unless ``dialect`` fixes one. Middleware sees a reply once it is complete: tokens
streamed with ``stream_mode="messages"`` are guarded only when the chat model's clients are
:func:`guard.integrations.openai.guard_client` clients (docs/integrations.md, "LangChain").

Escaped exactly once, whatever the mix: the middleware looks at the chat model's clients. When
guard's transport sits under them (``http_client=guard.http_client()``), every request is
escaped on the wire, so the middleware escapes neither the messages nor the tool results (it
still judges the reply). When they are ``guard_client`` wrappers, the middleware escapes and
the call goes out on a copy of the wrappers that only judge (``escape_inputs=False``), so a
streamed call is not escaped a second time. Otherwise the middleware escapes.

LangChain's guardrail conventions: ``apply_to_input`` (escape what the model is sent),
``apply_to_output`` (judge its reply), ``apply_to_tool_results`` (escape tool results where
they are made); with ``on_leak="abort"``, ``raise_on_violation=True`` raises
:class:`guard.LeakAborted`, ``False`` ends the turn with an ``AIMessage`` of
``blocked_message`` instead. :class:`GuardCallbackHandler` only reports (a callback handler
for any chat model or chain).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar
from uuid import UUID

from guard.integrations._extras import missing_extra

try:
    from langchain.agents.middleware import (
        AgentMiddleware,
        ModelRequest,
        ModelResponse,
        ToolCallRequest,
    )
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
    from langchain_core.outputs import LLMResult
    from langgraph.types import Command
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_extra(__name__, "LangChain 1.0 or later", "langchain") from exc

from guard._escape import escape, escape_messages, escape_tools
from guard._fields import get_field, set_field
from guard._log import get_logger
from guard.dialects import Dialect
from guard.errors import LeakAborted
from guard.gate import Policy
from guard.integrations._settings import ModelSettings
from guard.integrations.openai.protocol import GuardResult, GuardSettings, Part, judge_parts
from guard.models import Surface, Verdict
from guard.stream import OnLeak

__all__ = ["DEFAULT_BLOCKED_MESSAGE", "ESCAPED_MARK", "GuardCallbackHandler", "GuardMiddleware"]

_log = get_logger("guard.integrations.langchain")

#: the reply that replaces a blocked one (``raise_on_violation=False``)
DEFAULT_BLOCKED_MESSAGE = (
    "The model's answer was withheld: it carried in-band control text (guard)."
)

MessageT = TypeVar("MessageT", bound="BaseMessage")

#: ``response_metadata`` key of a tool message :class:`GuardMiddleware` escaped already
ESCAPED_MARK = "guard_escaped"

_THINKING_BLOCKS = {"reasoning": "reasoning", "thinking": "thinking"}


# --- escaping ------------------------------------------------------------------------------------


def _escape_value(value: Any, dialect: Dialect) -> Any:
    """Every string (value and key) of a JSON-like value escaped, on a copy."""
    return escape_tools([value], dialect)[0]


def _escape_content(content: Any, dialect: Dialect) -> Any:
    if isinstance(content, str):
        return escape(content, dialect)
    if not isinstance(content, list):
        return content
    out: list[Any] = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in _THINKING_BLOCKS and isinstance(block.get(_THINKING_BLOCKS[kind]), str):
            key = _THINKING_BLOCKS[kind]
            out.append({**block, key: escape(block[key], dialect)})
        elif kind == "tool_call":
            out.append({**block, **_escape_call(block, dialect)})
        else:
            out.append(
                escape_messages([{"role": "user", "content": [block]}], dialect)[0]["content"][0]
            )
    return out


def _escape_call(call: Mapping[str, Any], dialect: Dialect) -> dict[str, Any]:
    """A tool call (``name`` and ``args``, a dict or JSON text) with both escaped."""
    out = dict(call)
    if isinstance(out.get("name"), str):
        out["name"] = escape(out["name"], dialect)
    if "args" in out:
        args = out["args"]
        if isinstance(args, str):
            message = {"role": "assistant", "tool_calls": [{"function": {"arguments": args}}]}
            args = escape_messages([message], dialect)[0]["tool_calls"][0]["function"]["arguments"]
            out["args"] = args
        else:
            out["args"] = _escape_value(args, dialect)
    return out


def _escape_message(message: MessageT, dialect: Dialect) -> MessageT:
    """A copy of ``message`` with every model-visible text escaped."""
    if message.response_metadata.get(ESCAPED_MARK):
        return message
    update: dict[str, Any] = {"content": _escape_content(message.content, dialect)}
    extra = dict(message.additional_kwargs)
    if isinstance(extra.get("reasoning_content"), str):
        extra["reasoning_content"] = escape(extra["reasoning_content"], dialect)
    if isinstance(extra.get("tool_calls"), list):
        raw = {"role": "assistant", "tool_calls": extra["tool_calls"]}
        extra["tool_calls"] = escape_messages([raw], dialect)[0]["tool_calls"]
    update["additional_kwargs"] = extra
    if isinstance(message, AIMessage):
        update["tool_calls"] = [_escape_call(c, dialect) for c in message.tool_calls]
        update["invalid_tool_calls"] = [
            _escape_call(c, dialect) for c in message.invalid_tool_calls
        ]
    return message.model_copy(update=update)


# --- judging -------------------------------------------------------------------------------------


def _message_parts(message: Any) -> list[Part]:
    """The judged parts of an ``AIMessage``: its text and reasoning, and each tool call's name
    and arguments."""
    parts: list[Part] = []
    content = get_field(message, "content")
    if isinstance(content, str):
        parts.append(Part("content", Surface.TEXT, content, message, "content"))
    elif isinstance(content, list):
        for j, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            key, surface = (
                ("text", Surface.TEXT)
                if kind == "text"
                else (_THINKING_BLOCKS.get(kind or "", ""), Surface.THINKING)
            )
            if key and isinstance(block.get(key), str):
                parts.append(Part(f"content[{j}]", surface, block[key], block, key))
    extra = get_field(message, "additional_kwargs")
    if isinstance(extra, dict) and isinstance(extra.get("reasoning_content"), str):
        text = extra["reasoning_content"]
        parts.append(Part("reasoning_content", Surface.THINKING, text, extra, "reasoning_content"))
    for list_key in ("tool_calls", "invalid_tool_calls"):
        for i, call in enumerate(get_field(message, list_key) or ()):
            parts += _call_parts(message, list_key, i, call)
    return parts


def _call_parts(message: Any, list_key: str, i: int, call: dict[str, Any]) -> list[Part]:
    """A tool call's name and arguments, droppable from ``message.<list_key>``."""
    raw_name = call.get("name")
    name = raw_name if isinstance(raw_name, str) else ""
    args = call.get("args")
    arguments = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return [
        Part(
            f"{list_key}[{i}].{suffix}",
            surface,
            text,
            call,
            suffix,
            tool_name=name or None,
            container=message,
            list_key=list_key,
            element=call,
        )
        for suffix, surface, text in (
            ("name", Surface.TOOL_NAME, name),
            ("args", Surface.TOOL_ARG, arguments),
        )
    ]


def _finish_message(message: Any, parts: list[Part], result: GuardResult) -> None:
    """Dropped calls leave the provider's raw tool calls too; with none left the message
    finishes ``stop``."""
    if not result.dropped:
        return
    for list_key in ("tool_calls", "invalid_tool_calls"):
        if get_field(message, list_key) is None:
            set_field(message, list_key, [])
    kept = {
        c.get("id")
        for list_key in ("tool_calls", "invalid_tool_calls")
        for c in get_field(message, list_key) or ()
    }
    extra = get_field(message, "additional_kwargs")
    if isinstance(extra, dict) and isinstance(extra.get("tool_calls"), list):
        extra["tool_calls"] = [c for c in extra["tool_calls"] if c.get("id") in kept]
        if not extra["tool_calls"]:
            del extra["tool_calls"]
    metadata = get_field(message, "response_metadata")
    if isinstance(metadata, dict) and not kept and metadata.get("finish_reason") == "tool_calls":
        metadata["finish_reason"] = "stop"


def _judged(message: BaseMessage, settings: GuardSettings) -> BaseMessage:
    if not isinstance(message, AIMessage):
        return message
    out, _ = judge_parts(message, _message_parts, _finish_message, settings)
    return out  # type: ignore[no-any-return]


# --- the chat model's clients --------------------------------------------------------------------

_CLIENT_FIELDS = {False: ("client", "root_client"), True: ("async_client", "root_async_client")}


def _is_guard(obj: Any) -> bool:
    return type(obj).__module__.split(".")[0] == "guard"


def _guard_transport(client: Any) -> bool:
    """Whether guard's httpx transport is under an SDK client or resource (followed through
    its ``_client`` links to the httpx client)."""
    node = client
    for _ in range(4):
        if node is None:
            return False
        transport = getattr(node, "_transport", None)
        if transport is not None and _is_guard(transport):
            return True
        mounts = getattr(node, "_mounts", None)
        if isinstance(mounts, dict) and any(_is_guard(t) for t in mounts.values()):
            return True
        node = getattr(node, "_client", None)
    return False


def client_escapes(model: Any, is_async: bool) -> bool:
    """Whether every request ``model`` sends is escaped on the wire (guard's transport)."""
    clients = [getattr(model, f, None) for f in _CLIENT_FIELDS[is_async]]
    present = [c for c in clients if c is not None]
    return bool(present) and all(_guard_transport(getattr(c, "_inner", c)) for c in present)


def _judging_only(client: Any) -> Any:
    """A copy of a ``guard_client`` wrapper that judges but does not escape (the middleware
    escaped already); anything else as it is."""
    settings = getattr(client, "_settings", None)
    if not _is_guard(client) or not isinstance(settings, GuardSettings):
        return client
    out = object.__new__(type(client))  # not copy.copy: the wrapper forwards unknown names
    out.__dict__.update(vars(client))
    out._settings = replace(settings, escape_inputs=False)
    return out


def _without_client_escaping(model: Any) -> Any:
    """``model``, or a copy whose ``guard_client`` wrappers only judge."""
    update = {}
    for field in ("client", "async_client", "root_client", "root_async_client"):
        client = getattr(model, field, None)
        judging = _judging_only(client)
        if judging is not client:
            update[field] = judging
    if not update or not hasattr(model, "model_copy"):
        return model
    return model.model_copy(update=update)


# --- the middleware ------------------------------------------------------------------------------


class GuardMiddleware(AgentMiddleware):
    """guard around an agent's model and tool calls (see the module)."""

    def __init__(
        self,
        *,
        dialect: str | Dialect | None = None,
        dialects: Mapping[str, str] | None = None,
        policy: Policy | None = None,
        on_leak: OnLeak = "truncate",
        escape_inputs: bool = True,
        apply_to_input: bool | None = None,
        apply_to_output: bool = True,
        apply_to_tool_results: bool | None = None,
        raise_on_violation: bool = True,
        blocked_message: str = DEFAULT_BLOCKED_MESSAGE,
    ) -> None:
        super().__init__()
        #: escape the messages the model is sent (default: ``escape_inputs``)
        self.apply_to_input = escape_inputs if apply_to_input is None else apply_to_input
        #: judge the model's reply
        self.apply_to_output = apply_to_output
        #: escape tool results where they are made (default: ``escape_inputs``)
        self.apply_to_tool_results = (
            escape_inputs if apply_to_tool_results is None else apply_to_tool_results
        )
        #: ``on_leak="abort"``: raise :class:`guard.LeakAborted` (True) or answer with
        #: ``blocked_message`` (False)
        self.raise_on_violation = raise_on_violation
        self.blocked_message = blocked_message
        self.settings = ModelSettings(dialect, dialects, policy, on_leak, self.apply_to_input)
        #: the settings tool results are escaped with: the last model call's
        self._tool_settings = self.settings.for_model(None)
        #: whether the last model call's clients escape on the wire (tool results then too)
        self._client_escapes = False

    def _for(self, model: Any) -> GuardSettings:
        name = getattr(model, "model_name", None) or getattr(model, "model", None)
        settings = self.settings.for_model(name)
        self._tool_settings = settings
        return settings

    def _prepared(self, request: ModelRequest[Any], is_async: bool) -> ModelRequest[Any]:
        """The request to send: messages escaped once (here, or by guard's transport under the
        model's clients), on a model whose ``guard_client`` wrappers only judge."""
        settings = self._for(request.model)
        self._client_escapes = client_escapes(request.model, is_async)
        if not settings.escape_inputs or self._client_escapes:
            return request
        dialect = settings.dialect
        system = request.system_message
        return request.override(
            model=_without_client_escaping(request.model),
            messages=[_escape_message(m, dialect) for m in request.messages],
            system_message=None if system is None else _escape_message(system, dialect),
        )

    def _judge(self, message: BaseMessage, settings: GuardSettings) -> BaseMessage:
        try:
            return _judged(message, settings)
        except LeakAborted as exc:
            if self.raise_on_violation:
                raise
            _log.warning("guard.langchain.blocked", reason=exc.verdict.reason)
            return AIMessage(
                content=self.blocked_message,
                response_metadata={"finish_reason": "content_filter", "guard_blocked": True},
                id=getattr(message, "id", None),
            )

    def _response(self, response: Any, settings: GuardSettings) -> Any:
        if not self.apply_to_output:
            return response
        if isinstance(response, AIMessage):
            return self._judge(response, settings)
        if isinstance(response, ModelResponse):
            return ModelResponse(
                result=[self._judge(m, settings) for m in response.result],
                structured_response=response.structured_response,
            )
        return response

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> Any:
        """The model call on an escaped copy of the messages, its reply judged."""
        prepared = self._prepared(request, is_async=False)
        return self._response(handler(prepared), self._tool_settings)

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> Any:
        """The async twin of :meth:`wrap_model_call`."""
        prepared = self._prepared(request, is_async=True)
        return self._response(await handler(prepared), self._tool_settings)

    def _tool_result(self, result: Any) -> Any:
        if not isinstance(result, ToolMessage):
            return result  # a Command: its updates are the tool's own
        if not self.apply_to_tool_results or self._client_escapes:
            return result  # escaped on the wire by guard's transport, or not asked for
        escaped = _escape_message(result, self._tool_settings.dialect)
        metadata = {**escaped.response_metadata, ESCAPED_MARK: True}
        return escaped.model_copy(update={"response_metadata": metadata})

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """The tool's result message, escaped."""
        return self._tool_result(handler(request))  # type: ignore[no-any-return]

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """The async twin of :meth:`wrap_tool_call`."""
        return self._tool_result(await handler(request))  # type: ignore[no-any-return]


# --- report only ---------------------------------------------------------------------------------


class GuardCallbackHandler(BaseCallbackHandler):
    """A LangChain callback handler that only reports: every chat model reply (text,
    reasoning, tool calls) is judged when it ends, and each leak is logged as
    ``guard.langchain.leak`` (part, reason; no text) and kept in :attr:`verdicts`. It changes
    nothing, so it fits any chat model, chain or agent (``config={"callbacks": [handler]}``)
    to measure before enforcing."""

    raise_error = False

    def __init__(
        self,
        *,
        dialect: str | Dialect | None = None,
        dialects: Mapping[str, str] | None = None,
        policy: Policy | None = None,
    ) -> None:
        super().__init__()
        self.settings = ModelSettings(dialect, dialects, policy, "report")
        #: the leaking verdicts seen, in order
        self.verdicts: list[Verdict] = []
        self._models: dict[UUID, Any] = {}

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: Any, *, run_id: UUID, **kwargs: Any
    ) -> None:
        params = kwargs.get("invocation_params") or {}
        self._models[run_id] = params.get("model") or params.get("model_name")

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        settings = self.settings.for_model(self._models.pop(run_id, None))
        for generations in response.generations:
            for generation in generations:
                message = getattr(generation, "message", None)
                parts = (
                    _message_parts(message)
                    if message is not None
                    else [Part("text", Surface.TEXT, generation.text, generation, "text")]
                )
                for part in parts:
                    verdict = settings.judge(part)
                    if verdict.leak:
                        self.verdicts.append(verdict)
                        _log.warning("guard.langchain.leak", part=part.name, reason=verdict.reason)
