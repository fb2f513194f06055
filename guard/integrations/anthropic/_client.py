"""The SDK wrapper: :func:`guard_client` for ``anthropic.Anthropic`` / ``AsyncAnthropic`` and
the ``messages`` resource whose ``create``, ``stream`` and ``parse`` it guards.

Sync and async clients share one code path; only awaiting the SDK's calls and the stream
classes differ. The SDK is imported only when a guarded call needs its stream helpers.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Mapping
from typing import Any, TypeVar, cast

from guard.dialects import Dialect
from guard.gate import Policy
from guard.integrations._results import remember_result
from guard.integrations._settings import ModelSettings
from guard.integrations.anthropic.protocol import (
    AsyncGuardedMessageStream,
    GuardedMessageStream,
    escape_messages_request,
    guard_message,
)
from guard.integrations.openai.protocol import GuardSettings
from guard.stream import OnLeak

__all__ = ["GuardedAnthropic", "guard_client"]

ClientT = TypeVar("ClientT")

_EXTRA = "inband-guard[anthropic]"


def _sdk() -> Any:
    try:
        import anthropic
    except ImportError as exc:  # pragma: no cover - a client object implies the SDK
        raise ImportError(
            f"guard.integrations.anthropic needs the anthropic SDK: pip install '{_EXTRA}'"
        ) from exc
    return anthropic


def _is_async(client: Any) -> bool:
    create = getattr(getattr(client, "messages", None), "create", None)
    return create is not None and inspect.iscoroutinefunction(inspect.unwrap(create))


def _output_config(params: dict[str, Any]) -> Any:
    """``output_format`` (a type) as the ``output_config`` the SDK's ``stream()`` would send,
    and the format to parse the final message with."""
    anthropic = _sdk()
    output_format = params.pop("output_format", anthropic.NOT_GIVEN)
    if output_format is None or output_format is anthropic.NOT_GIVEN:
        return anthropic.NOT_GIVEN
    from pydantic import TypeAdapter

    schema = anthropic.transform_schema(TypeAdapter(output_format).json_schema())
    config = dict(params.get("output_config") or {})
    config["format"] = {"type": "json_schema", "schema": schema}
    params["output_config"] = config
    return output_format


class _Messages:
    """``client.messages`` with ``create``, ``stream`` and ``parse`` guarded; every other
    attribute (``count_tokens``, ``batches``, ``with_raw_response``, ...) is the SDK's."""

    def __init__(self, inner: Any, settings: ModelSettings, is_async: bool) -> None:
        self._inner = inner
        self._settings = settings
        self._async = is_async

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _prepare(self, params: dict[str, Any]) -> tuple[dict[str, Any], GuardSettings]:
        settings = self._settings.for_model(params.get("model"))
        if settings.escape_inputs:
            params = escape_messages_request(params, settings.dialect)
        # the tools the model is offered (as sent) are the context of the judge
        return params, settings.for_request(params)

    def _guarded_events(self, result: Any, settings: GuardSettings) -> Any:
        if self._async:
            return AsyncGuardedMessageStream(result, settings, "raise")
        return GuardedMessageStream(result, settings, "raise")

    def _judged(self, result: Any, settings: GuardSettings) -> Any:
        out, found = guard_message(
            result,
            dialect=settings.dialect,
            policy=settings.policy,
            on_leak=settings.on_leak,
            tools=settings.tools,
        )
        remember_result(out, found)
        return out

    def create(self, **params: Any) -> Any:
        """``messages.create`` with escaped system, messages and tools: for ``stream=True`` the
        guarded event stream, else the judged message (see :func:`guard_result`)."""
        params, settings = self._prepare(params)
        stream = params.get("stream") is True
        if self._async:
            return self._acreate(params, settings, stream)
        return self._wrap(self._inner.create(**params), settings, stream)

    async def _acreate(self, params: dict[str, Any], settings: GuardSettings, stream: bool) -> Any:
        return self._wrap(await self._inner.create(**params), settings, stream)

    def _wrap(self, result: Any, settings: GuardSettings, stream: bool) -> Any:
        return self._guarded_events(result, settings) if stream else self._judged(result, settings)

    def parse(self, **params: Any) -> Any:
        """``messages.parse`` with an escaped request and the judged parsed message."""
        params, settings = self._prepare(params)
        if self._async:
            return self._aparse(params, settings)
        return self._judged(self._inner.parse(**params), settings)

    async def _aparse(self, params: dict[str, Any], settings: GuardSettings) -> Any:
        return self._judged(await self._inner.parse(**params), settings)

    def stream(self, **params: Any) -> Any:
        """``messages.stream``: the SDK's own ``MessageStreamManager`` (or the async one) over
        the guarded event stream, so ``text_stream``, the events and ``get_final_message()``
        are the SDK's, accumulated from what guard delivers."""
        _sdk()
        from anthropic.lib.streaming import AsyncMessageStreamManager, MessageStreamManager

        params, settings = self._prepare(params)
        output_format = _output_config(params)
        params["stream"] = True
        if self._async:
            pending = self._astream_request(params, settings)
            return AsyncMessageStreamManager(pending, output_format=output_format)

        def request() -> Any:
            return self._guarded_events(self._inner.create(**params), settings)

        return MessageStreamManager(request, output_format=output_format)

    def _astream_request(self, params: dict[str, Any], settings: GuardSettings) -> Awaitable[Any]:
        async def request() -> Any:
            return self._guarded_events(await self._inner.create(**params), settings)

        return request()


class GuardedAnthropic:
    """An Anthropic client whose ``messages.create``, ``messages.stream`` and
    ``messages.parse`` are guarded; every other attribute is the wrapped client's.
    ``unwrapped`` is the client itself."""

    def __init__(self, client: Any, settings: ModelSettings) -> None:
        self._client = client
        self._settings = settings
        self._async = _is_async(client)

    @property
    def unwrapped(self) -> Any:
        return self._client

    @property
    def messages(self) -> _Messages:
        return _Messages(self._client.messages, self._settings, self._async)

    def with_options(self, *args: Any, **kwargs: Any) -> GuardedAnthropic:
        return GuardedAnthropic(self._client.with_options(*args, **kwargs), self._settings)

    def copy(self, *args: Any, **kwargs: Any) -> GuardedAnthropic:
        return GuardedAnthropic(self._client.copy(*args, **kwargs), self._settings)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __enter__(self) -> GuardedAnthropic:
        self._client.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._client.__exit__(*exc)

    async def __aenter__(self) -> GuardedAnthropic:
        await self._client.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._client.__aexit__(*exc)

    def __repr__(self) -> str:
        return f"guard_client({self._client!r}, dialect={self._settings.describe()!r})"


def guard_client(
    client: ClientT,
    *,
    dialect: str | Dialect | None = None,
    dialects: Mapping[str, str] | None = None,
    policy: Policy | None = None,
    on_leak: OnLeak = "truncate",
    escape_inputs: bool = True,
) -> ClientT:
    """Wrap an ``anthropic.Anthropic`` or ``anthropic.AsyncAnthropic`` client (see
    :mod:`guard.integrations.anthropic`).

    Args:
        client: the SDK client (sync or async).
        dialect: the wire format of the model behind it; ``None`` (default): each request's
            from its ``model`` (:func:`guard.dialects.dialect_for_model`).
        dialects: model-name keys to try before :data:`guard.dialects.MODEL_DIALECTS`.
        policy: the gate's rules (default: ``docs/detection.md``, "Gate").
        on_leak: ``truncate`` (default), ``abort`` (raise :class:`guard.LeakAborted`),
            ``recover`` or ``report``.
        escape_inputs: escape system, messages and tool definitions.

    Returns:
        A :class:`GuardedAnthropic` with the client's interface (typed as the client).
    """
    settings = ModelSettings(dialect, dialects, policy, on_leak, escape_inputs)
    return cast(ClientT, GuardedAnthropic(client, settings))
