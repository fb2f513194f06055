"""The SDK wrapper: :func:`guard_client` installs the guarded transport
(:mod:`guard.transport`) in a copy of an ``anthropic.Anthropic`` / ``AsyncAnthropic`` client,
so every method of the SDK is guarded (``messages``, ``beta.messages``, ``with_raw_response``,
``with_streaming_response``, the ``stream()`` and ``parse()`` helpers), and keeps the findings
of ``messages.create`` and ``messages.parse`` where callers read them. Sync and async clients
share one code path; nothing here imports the SDK."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from guard.dialects import Dialect
from guard.gate import Policy
from guard.integrations._transported import (
    AsyncTransportedStream,
    TransportedClient,
    TransportedStream,
    async_judged_result,
    judged_result,
)
from guard.stream import OnLeak

__all__ = ["GuardedAnthropic", "guard_client"]

ClientT = TypeVar("ClientT")


def _is_async(client: Any) -> bool:
    create = getattr(getattr(client, "messages", None), "create", None)
    return create is not None and inspect.iscoroutinefunction(inspect.unwrap(create))


class _Messages:
    """``client.messages`` of the guarded copy: ``create`` and ``parse`` carry guard's
    findings; every other attribute (``stream``, ``count_tokens``, ``batches``,
    ``with_raw_response``, ...) is the guarded SDK's."""

    def __init__(self, inner: Any, on_leak: str, is_async: bool) -> None:
        self._inner = inner
        self._on_leak = on_leak
        self._async = is_async

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def create(self, **params: Any) -> Any:
        """``messages.create``: for ``stream=True`` the SDK's event stream with ``verdicts``,
        ``cut`` (by content block), ``forged``...; else the judged message (see
        :func:`guard_result`)."""
        if self._async:
            return self._acreate(params)
        if params.get("stream") is True:
            return TransportedStream(self._inner.create(**params))
        return judged_result(self._inner.with_raw_response.create(**params), self._on_leak)

    async def _acreate(self, params: dict[str, Any]) -> Any:
        if params.get("stream") is True:
            return AsyncTransportedStream(await self._inner.create(**params))
        raw = await self._inner.with_raw_response.create(**params)
        return await async_judged_result(raw, self._on_leak)

    def parse(self, **params: Any) -> Any:
        """``messages.parse``: the judged parsed message."""
        if self._async:
            return self._aparse(params)
        return judged_result(self._inner.with_raw_response.parse(**params), self._on_leak)

    async def _aparse(self, params: dict[str, Any]) -> Any:
        raw = await self._inner.with_raw_response.parse(**params)
        return await async_judged_result(raw, self._on_leak)


class GuardedAnthropic(TransportedClient):
    """An Anthropic client whose every request goes through the guarded transport (a copy of
    the client given); ``messages.create`` and ``messages.parse`` also carry guard's findings.
    ``unwrapped`` is the client given, unguarded; ``config`` the transport's settings."""

    _is_async = staticmethod(_is_async)

    @property
    def messages(self) -> _Messages:
        return _Messages(self._client.messages, self.config.on_leak, self._async)


def guard_client(
    client: ClientT,
    *,
    dialect: str | Dialect | None = None,
    dialects: Mapping[str, str] | None = None,
    policy: Policy | None = None,
    on_leak: OnLeak = "truncate",
    escape_inputs: bool = True,
    allow_passthrough: bool = False,
) -> ClientT:
    """Guard an ``anthropic.Anthropic`` or ``anthropic.AsyncAnthropic`` client (see
    :mod:`guard.integrations.anthropic`): a copy of it sends through the guarded transport.

    Args:
        client: the SDK client (sync or async).
        dialect: pin the wire format of the model behind it; ``None`` (default): every
            dialect's spellings, the request's ``model`` adding its own, as ``guard serve``.
        dialects: model-name keys pinning a dialect per model (``[serve.dialects]``).
        policy: the gate's rules (default: ``docs/detection.md``, "Gate").
        on_leak: ``truncate`` (default), ``abort`` (raise :class:`guard.LeakAborted`),
            ``recover`` or ``report``.
        escape_inputs: escape every string of a request (off: sent as written, still checked).
        allow_passthrough: let routes that may carry model output and are not guarded (files,
            batches, ...) through unguarded, each logged; by default they are refused (403).

    Returns:
        A :class:`GuardedAnthropic` with the client's interface (typed as the client).
    """
    options = {
        "dialect": dialect,
        "dialects": dialects,
        "policy": policy,
        "on_leak": on_leak,
        "escape_inputs": escape_inputs,
        "allow_passthrough": allow_passthrough,
    }
    return cast(ClientT, GuardedAnthropic(client, options))
