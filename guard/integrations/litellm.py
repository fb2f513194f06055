"""guard as a LiteLLM guardrail: :class:`InbandGuardrail` (install ``inband-guard[litellm]``).

A :class:`~litellm.integrations.custom_guardrail.CustomGuardrail` for the LiteLLM proxy's
``guardrails:`` config (``guardrail: guard.integrations.litellm.InbandGuardrail``, ``mode:
[pre_call, post_call]``); extra ``litellm_params`` (``dialect``, ``dialects``, ``on_leak``,
``policy_file``, ``escape_inputs``) reach its constructor. Its hooks:

* ``async_pre_call_hook``: the request's transport copy with every model-visible input escaped
  (chat ``messages`` and ``tools``; Responses ``input``, ``instructions`` and ``tools``;
  Anthropic ``system``, ``messages`` and ``tools``; a text completion's ``prompt``);
* ``async_post_call_success_hook``: a complete response judged part by part (chat completion,
  Responses response or Anthropic message) and cut, dropped or aborted by ``on_leak``;
* ``async_post_call_streaming_iterator_hook``: a stream of LiteLLM's chunk objects (or
  Responses / Anthropic events) through the stream middleware, which stops the upstream on a
  forged tool result.

The dialect is each request's model name's (the name the client asked LiteLLM for: map
aliases with ``dialects``), unless ``dialect`` fixes one.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from pathlib import Path
from typing import Any

try:
    from litellm.integrations.custom_guardrail import CustomGuardrail
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "guard.integrations.litellm needs LiteLLM: pip install 'inband-guard[litellm]'"
    ) from exc

from guard._escape import escape
from guard._fields import get_field
from guard._log import get_logger
from guard.dialects import Dialect
from guard.gate import Policy
from guard.integrations._settings import ModelSettings
from guard.integrations.anthropic.protocol import (
    escape_messages_request,
    guard_message,
    guard_message_events,
)
from guard.integrations.openai.protocol import (
    GuardSettings,
    escape_chat_request,
    escape_responses_request,
    guard_chat_completion,
    guard_response,
    guard_response_events,
)
from guard.stream import OnLeak, guard_stream

__all__ = ["InbandGuardrail"]

_log = get_logger("guard.integrations.litellm")

_RESPONSES_CALLS = frozenset({"responses", "aresponses"})
_ANTHROPIC_CALLS = frozenset({"anthropic_messages", "aanthropic_messages"})


def _policy(policy: Policy | None, policy_file: str | Path | None) -> Policy | None:
    if policy_file is None:
        return policy
    if policy is not None:
        raise ValueError("give policy or policy_file, not both")
    return Policy.load(policy_file)


class InbandGuardrail(CustomGuardrail):
    """guard's escaping and leak handling as LiteLLM guardrail hooks (see the module)."""

    def __init__(
        self,
        *,
        dialect: str | Dialect | None = None,
        dialects: Mapping[str, str] | None = None,
        on_leak: OnLeak = "truncate",
        policy: Policy | None = None,
        policy_file: str | Path | None = None,
        escape_inputs: bool = True,
        **kwargs: Any,
    ) -> None:
        self.guard_settings = ModelSettings(
            dialect, dialects, _policy(policy, policy_file), on_leak, escape_inputs
        )
        super().__init__(**kwargs)

    def _settings(self, data: Mapping[str, Any]) -> GuardSettings:
        """The settings for one request: its model's dialect and its declared tools."""
        return self.guard_settings.for_model(data.get("model")).for_request(data)

    async def async_pre_call_hook(
        self, user_api_key_dict: Any, cache: Any, data: dict[str, Any], call_type: Any
    ) -> dict[str, Any]:
        """The request with a transport copy of every model-visible input escaped."""
        settings = self._settings(data)
        if not settings.escape_inputs:
            return data
        kind = str(getattr(call_type, "value", call_type))
        if kind in _RESPONSES_CALLS:
            out = escape_responses_request(data, settings.dialect)
        elif kind in _ANTHROPIC_CALLS:
            out = escape_messages_request(data, settings.dialect)
        else:
            out = escape_chat_request(data, settings.dialect)
        if isinstance(out.get("prompt"), str):
            out["prompt"] = escape(out["prompt"], settings.dialect)
        return out

    async def async_post_call_success_hook(
        self, data: dict[str, Any], user_api_key_dict: Any, response: Any
    ) -> Any:
        """The response judged and cut (a changed copy), or raises :class:`guard.LeakAborted`
        for ``on_leak="abort"``."""
        settings = self._settings(data)
        options: dict[str, Any] = {
            "dialect": settings.dialect,
            "policy": settings.policy,
            "on_leak": settings.on_leak,
            "tools": settings.tools,
        }
        if get_field(response, "choices") is not None:
            out, _ = guard_chat_completion(response, **options)
        elif get_field(response, "output") is not None:
            out, _ = guard_response(response, **options)
        elif get_field(response, "type") == "message":
            out, _ = guard_message(response, **options)
        else:
            _log.warning("guard.litellm.unguarded_response", type=type(response).__name__)
            return response
        return out

    async def async_post_call_streaming_iterator_hook(
        self, user_api_key_dict: Any, response: Any, request_data: dict[str, Any]
    ) -> AsyncGenerator[Any, None]:
        """The stream, guarded: chat chunks by the stream middleware, Responses and Anthropic
        events through their bridges."""
        settings = self._settings(request_data)
        upstream = aiter(response)
        try:
            first = await anext(upstream)
        except StopAsyncIteration:
            return
        source = _chained(first, upstream, response)
        options: dict[str, Any] = {
            "dialect": settings.dialect,
            "policy": settings.policy,
            "on_leak": settings.on_leak,
            "tools": settings.tools,
        }
        kind = get_field(first, "type")
        if get_field(first, "choices") is not None:
            guarded: Any = guard_stream(source, raw=False, **options)
        elif isinstance(kind, str) and kind.startswith("response."):
            guarded = guard_response_events(source, **options)
        elif kind in ("message_start", "ping"):
            guarded = guard_message_events(source, **options)
        else:
            _log.warning("guard.litellm.unguarded_stream", type=type(first).__name__)
            guarded = source
        async for item in guarded:
            yield item


async def _chained(first: Any, rest: AsyncIterator[Any], owner: Any) -> AsyncIterator[Any]:
    """``first`` then ``rest``; closing this closes the upstream stream."""
    try:
        yield first
        async for item in rest:
            yield item
    finally:
        for target in (rest, owner) if rest is not owner else (owner,):
            closer = getattr(target, "aclose", None) or getattr(target, "close", None)
            if callable(closer):
                result = closer()
                if inspect.isawaitable(result):
                    await result
