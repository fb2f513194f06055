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
  forged tool result; a stream handed over as SSE bytes (the pass-through routes, such as
  ``/v1/messages``) is decoded and judged event by event (:mod:`guard.integrations._sse_bytes`);
* ``apply_guardrail``: LiteLLM's unified interface (``POST /guardrails/apply_guardrail`` and
  the unified guardrail endpoints): ``texts`` escaped for ``input_type="request"``; for
  ``"response"`` each text judged and cut (``on_leak``), and a leaking ``tool_calls`` entry
  dropped.

These hooks run for every proxy lifecycle event (``use_native_lifecycle_hooks``): LiteLLM does
not translate the request or response into ``apply_guardrail``'s flat texts, so the structure
the judge needs (reasoning, tool calls, declared tools) is kept.

Blocking is LiteLLM's way: an aborting leak (``on_leak="abort"``) raises :class:`LeakBlocked`,
a ``GuardrailRaisedException`` with status 400 (LiteLLM logs it as an intervention and clients
do not retry it) that is also a :class:`guard.LeakAborted`. What guard cannot read is refused,
never passed on unseen: an unknown response shape is judged string by string and refused when
one leaks; an unreadable stream is refused with :class:`StreamRefused` (status 422), each with
a logged error. Every hook names the guardrail in the ``x-litellm-applied-guardrails`` header
and records LiteLLM's standard guardrail logging information (``guardrail_status``
``success`` or ``guardrail_intervened``) as LiteLLM's own guardrails do; no model text is
logged.

The dialect is each request's model name's (the name the client asked LiteLLM for: map
aliases with ``dialects``), unless ``dialect`` fixes one.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

from guard.integrations._extras import missing_extra

try:
    from litellm.exceptions import GuardrailRaisedException
    from litellm.integrations.custom_guardrail import CustomGuardrail, log_guardrail_information
    from litellm.types.guardrails import GuardrailEventHooks
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_extra(__name__, "LiteLLM", "litellm") from exc

from guard._detect import detect
from guard._escape import escape
from guard._fields import get_field
from guard._log import get_logger
from guard.dialects import Dialect
from guard.errors import LeakAborted
from guard.gate import Policy
from guard.integrations._settings import ModelSettings
from guard.integrations._sse_bytes import UnreadableStream, guard_sse_bytes
from guard.integrations.anthropic.protocol import (
    escape_messages_request,
    guard_message,
    guard_message_events,
)
from guard.integrations.openai.protocol import (
    GuardResult,
    GuardSettings,
    Part,
    call_parts,
    escape_chat_request,
    escape_responses_request,
    guard_chat_completion,
    guard_response,
    guard_response_events,
    judge_parts,
)
from guard.models import Surface, Verdict
from guard.stream import OnLeak, guard_stream
from guard.wire import skipped

__all__ = ["InbandGuardrail", "LeakBlocked", "StreamRefused"]

_log = get_logger("guard.integrations.litellm")

_RESPONSES_CALLS = frozenset({"responses", "aresponses"})
_ANTHROPIC_CALLS = frozenset({"anthropic_messages", "aanthropic_messages"})


def _policy(policy: Policy | None, policy_file: str | Path | None) -> Policy | None:
    if policy_file is None:
        return policy
    if policy is not None:
        raise ValueError("give policy or policy_file, not both")
    return Policy.load(policy_file)


_Hook = TypeVar("_Hook", bound=Callable[..., Any])
#: LiteLLM's decorator that records the standard guardrail logging information of a hook
_logged = cast(Callable[[_Hook], _Hook], log_guardrail_information)

#: a LiteLLM guardrail status for a run that changed or blocked nothing / cut or blocked
_SUCCESS = "success"
_INTERVENED = "guardrail_intervened"


class LeakBlocked(LeakAborted, GuardrailRaisedException):
    """An aborting leak as LiteLLM's block: a ``GuardrailRaisedException`` with status 400
    (LiteLLM reports an intervention and answers 400, which clients do not retry) that is also
    a :class:`guard.LeakAborted` (``verdict``, ``withheld``). The message names the verdict's
    reason, never the withheld text."""

    def __init__(self, verdict: Verdict, withheld: str, guardrail_name: str | None = None) -> None:
        LeakAborted.__init__(self, verdict, withheld)
        GuardrailRaisedException.__init__(
            self,
            guardrail_name=guardrail_name,
            message=f"in-band control text in the model's answer: {verdict.reason}",
            status_code=400,
            blocked_content=True,
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.verdict, self.withheld, self.guardrail_name))


class StreamRefused(GuardrailRaisedException):
    """A stream (or answer) guard cannot read, refused instead of relayed unseen: a
    ``GuardrailRaisedException`` with status 422 (no verdict was reached, so
    ``blocked_content`` is false; a client does not retry a 4xx)."""

    def __init__(self, reason: str, guardrail_name: str | None = None) -> None:
        super().__init__(
            guardrail_name=guardrail_name,
            message=f"guard cannot read this answer, so it is not relayed: {reason}",
            status_code=422,
            blocked_content=False,
        )


def _stamp(data: Any, name: str | None) -> None:
    """Name the guardrail in ``x-litellm-applied-guardrails`` (LiteLLM's own helper; without
    the proxy installed there is no header to stamp)."""
    if not isinstance(data, dict) or name is None:
        return
    try:
        from litellm.proxy.common_utils.callback_utils import (
            add_guardrail_to_applied_guardrails_header,
        )
    except ImportError:  # pragma: no cover - the SDK without the proxy
        return
    add_guardrail_to_applied_guardrails_header(request_data=data, guardrail_name=name)


def _input_parts(inputs: Any) -> list[Part]:
    """The judged parts of ``apply_guardrail``'s inputs (each text boxed as ``{"text": ...}``
    so it can be cut in place): each text as text, each tool call's name and arguments (a
    leaking call is dropped from ``tool_calls``)."""
    parts: list[Part] = []
    for i, box in enumerate(inputs["texts"]):
        text = box["text"]
        if isinstance(text, str):
            parts.append(Part(f"texts[{i}]", Surface.TEXT, text, box, "text"))
    calls = inputs.get("tool_calls")
    if isinstance(calls, list):
        for j, call in enumerate(calls):
            path = f"tool_calls[{j}].function"
            fields = get_field(call, "function")
            parts += call_parts(path, fields, "arguments", inputs, "tool_calls", call)
    return parts


def _no_finish(out: Any, parts: list[Part], result: GuardResult) -> None:
    """``apply_guardrail``'s inputs have no stop reasons to fix."""


def _other_strings(node: Any, depth: int = 0) -> list[str]:
    """Every string of an answer of unknown shape, ids and enums skipped
    (:func:`guard.wire.skipped`)."""
    if depth > 64:
        return []
    if hasattr(node, "model_dump"):
        try:
            node = node.model_dump()
        except Exception:  # a model that cannot dump itself: read its attributes
            node = vars(node) if hasattr(node, "__dict__") else str(node)
    if isinstance(node, str):
        return [node]
    found: list[str] = []
    if isinstance(node, Mapping):
        for key, value in node.items():
            if isinstance(key, str) and skipped(key, value):
                continue
            found.extend(_other_strings(value, depth + 1))
    elif isinstance(node, list | tuple):
        for value in node:
            found.extend(_other_strings(value, depth + 1))
    return found


class InbandGuardrail(CustomGuardrail):
    """guard's escaping and leak handling as LiteLLM guardrail hooks (see the module)."""

    #: every lifecycle event runs these hooks, not LiteLLM's translation to apply_guardrail
    use_native_lifecycle_hooks = True

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

    def _blocked(self, exc: LeakAborted) -> LeakBlocked:
        _log.warning("guard.litellm.blocked", reason=exc.verdict.reason)
        return LeakBlocked(exc.verdict, exc.withheld, self.guardrail_name)

    def _refused(self, reason: str, **fields: Any) -> StreamRefused:
        _log.error("guard.litellm.refused", reason=reason, **fields)
        return StreamRefused(reason, self.guardrail_name)

    @_logged
    async def async_pre_call_hook(
        self, user_api_key_dict: Any, cache: Any, data: dict[str, Any], call_type: Any
    ) -> dict[str, Any]:
        """The request with a transport copy of every model-visible input escaped (the copy
        carries the applied-guardrails stamp; the caller's messages are left as they are)."""
        settings = self._settings(data)
        if not settings.escape_inputs:
            _stamp(data, self.guardrail_name)
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
        _stamp(out, self.guardrail_name)
        return out

    @_logged
    async def async_post_call_success_hook(
        self, data: dict[str, Any], user_api_key_dict: Any, response: Any
    ) -> Any:
        """The response judged and cut (a changed copy); an aborting leak raises
        :class:`LeakBlocked`. A response of no known shape is judged string by string and
        refused (:class:`LeakBlocked`) when one leaks, unless ``on_leak="report"``."""
        _stamp(data, self.guardrail_name)
        settings = self._settings(data)
        options: dict[str, Any] = {
            "dialect": settings.dialect,
            "policy": settings.policy,
            "on_leak": settings.on_leak,
            "tools": settings.tools,
        }
        try:
            if get_field(response, "choices") is not None:
                out, _ = guard_chat_completion(response, **options)
            elif get_field(response, "output") is not None:
                out, _ = guard_response(response, **options)
            elif get_field(response, "type") == "message":
                out, _ = guard_message(response, **options)
            else:
                return self._judge_unknown(response, settings)
        except LeakAborted as exc:
            raise self._blocked(exc) from None
        return out

    def _judge_unknown(self, response: Any, settings: GuardSettings) -> Any:
        """An answer of no shape guard knows: every string judged as text (deny by default)."""
        for text in _other_strings(response):
            verdict = detect(text, Surface.TEXT, settings.dialect, settings.policy)
            if not verdict.leak:
                continue
            _log.error(
                "guard.litellm.unknown_shape_leak",
                type=type(response).__name__,
                action="report" if settings.on_leak == "report" else "block",
            )
            if settings.on_leak != "report":
                cut = verdict.cut or 0
                raise LeakBlocked(verdict, text[cut:], self.guardrail_name)
        return response

    async def apply_guardrail(  # LiteLLM wraps it in log_guardrail_information
        self,
        inputs: Any,
        request_data: dict[str, Any],
        input_type: Any,
        logging_obj: Any = None,
    ) -> Any:
        """LiteLLM's unified guardrail: ``texts`` escaped for a ``request``; for a
        ``response`` each text judged and cut by ``on_leak`` and a leaking tool call dropped
        from ``tool_calls``. An aborting leak raises :class:`LeakBlocked`. The dialect is the
        model's of ``inputs["model"]`` (else the request's)."""
        _stamp(request_data, self.guardrail_name)
        model = inputs.get("model") or request_data.get("model")
        settings = self.guard_settings.for_model(model).for_request(request_data)
        if input_type == "request":
            texts = inputs.get("texts")
            if not settings.escape_inputs or not isinstance(texts, list):
                return inputs
            out = dict(inputs)
            out["texts"] = [escape(t, settings.dialect) if isinstance(t, str) else t for t in texts]
            return out
        if input_type != "response":
            raise self._refused(f"unknown input_type {input_type!r}")
        texts = inputs.get("texts")
        calls = inputs.get("tool_calls")
        view = {
            "texts": [{"text": t} for t in texts] if isinstance(texts, list) else [],
            "tool_calls": calls if isinstance(calls, list) else None,
        }
        try:
            judged, result = judge_parts(view, _input_parts, _no_finish, settings)
        except LeakAborted as exc:
            raise self._blocked(exc) from None
        if not result.changed:
            return inputs
        _log.warning("guard.litellm.cut", parts=sorted(result.cut), dropped=list(result.dropped))
        out = dict(inputs)
        if isinstance(texts, list):
            out["texts"] = [box["text"] for box in judged["texts"]]
        if isinstance(calls, list):
            out["tool_calls"] = judged["tool_calls"] or []
        return out

    async def async_post_call_streaming_iterator_hook(
        self, user_api_key_dict: Any, response: Any, request_data: dict[str, Any]
    ) -> AsyncGenerator[Any, None]:
        """The stream, guarded: chat chunks by the stream middleware, Responses and Anthropic
        events through their bridges, SSE bytes decoded and judged event by event. A stream of
        no known shape is refused (:class:`StreamRefused`), an aborting leak raises
        :class:`LeakBlocked`."""
        _stamp(request_data, self.guardrail_name)
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
        report: dict[str, Any] = {}
        guarded: Any
        if isinstance(first, bytes | bytearray | str):
            guarded = guard_sse_bytes(source, settings, report)
        elif get_field(first, "choices") is not None:
            guarded = guard_stream(source, raw=False, **options)
        elif isinstance(kind, str) and kind.startswith("response."):
            guarded = guard_response_events(source, **options)
        elif kind in ("message_start", "ping"):
            guarded = guard_message_events(source, **options)
        else:
            await source.aclose()
            raise self._refused("a stream of no known shape", type=type(first).__name__)
        status = _SUCCESS
        try:
            async for item in guarded:
                yield item
        except LeakAborted as exc:
            status = _INTERVENED
            raise self._blocked(exc) from None
        except UnreadableStream as exc:
            status = "guardrail_failed_to_respond"
            raise self._refused(str(exc)) from None
        finally:
            if not report and hasattr(guarded, "verdicts"):
                report = {
                    "leak": any(v.leak for v in guarded.verdicts),
                    "forged": bool(guarded.forged),
                    "cut": dict(guarded.cut),
                }
            if report.get("leak") and status == _SUCCESS:
                status = _INTERVENED
            self._log_stream(request_data, status, report)

    def _log_stream(self, data: dict[str, Any], status: str, report: dict[str, Any]) -> None:
        """LiteLLM's standard guardrail logging information for a stream, as its own
        guardrails record it (what guard did; no text)."""
        summary = {
            "leak": bool(report.get("leak", False)),
            "forged": bool(report.get("forged", False)),
            "cut": sorted(report.get("cut") or ()),
        }
        try:
            self.add_standard_logging_guardrail_information_to_request_data(
                guardrail_json_response=summary,
                request_data=data,
                guardrail_status=status,  # type: ignore[arg-type]
                guardrail_provider="inband-guard",
                event_type=GuardrailEventHooks.post_call,
            )
        except Exception as exc:  # logging must not break the stream's end
            _log.error("guard.litellm.logging_failed", error=type(exc).__name__)


async def _chained(first: Any, rest: AsyncIterator[Any], owner: Any) -> AsyncGenerator[Any, None]:
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
