"""The SDK wrapper: :func:`guard_client` and the resources whose ``create`` it guards.

Sync and async clients share one code path; only awaiting the SDK's ``create`` and the stream
class differ. Nothing here imports the SDK at import time.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

from guard.dialects import Dialect
from guard.gate import Policy
from guard.integrations._results import guard_result, remember_result
from guard.integrations.openai._chat_streams import AsyncGuardedChatStream, GuardedChatStream
from guard.integrations.openai.protocol import (
    AsyncGuardedResponseStream,
    GuardedResponseStream,
    GuardResult,
    GuardSettings,
    escape_chat_request,
    escape_responses_request,
    guard_chat_completion,
    guard_response,
)
from guard.stream import OnLeak

__all__ = ["GuardedClient", "guard_client", "guard_result"]

ClientT = TypeVar("ClientT")


def _is_async(client: Any) -> bool:
    try:
        from openai import AsyncOpenAI
    except ImportError:  # pragma: no cover - the wrapper is used with the SDK installed
        AsyncOpenAI = None  # type: ignore[assignment,misc]
    if AsyncOpenAI is not None and isinstance(client, AsyncOpenAI):
        return True
    create = getattr(getattr(getattr(client, "chat", None), "completions", None), "create", None)
    return create is not None and inspect.iscoroutinefunction(inspect.unwrap(create))


class _Resource:
    """Passes every attribute through to the wrapped SDK resource."""

    def __init__(self, inner: Any, settings: GuardSettings, is_async: bool) -> None:
        self._inner = inner
        self._settings = settings
        self._async = is_async

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _Endpoint(_Resource):
    """A resource whose ``create`` escapes the request and guards the result: a guarded stream
    for ``stream=True``, else the judged complete response (see :func:`guard_result`)."""

    def _escape(self, params: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _stream(self, result: Any, settings: GuardSettings) -> Any:
        raise NotImplementedError

    def _judge(self, result: Any, settings: GuardSettings) -> tuple[Any, GuardResult]:
        raise NotImplementedError

    def create(self, *args: Any, **params: Any) -> Any:
        if self._settings.escape_inputs:
            params = self._escape(params)
        # the tools the model is offered (as sent) are the context of the judge
        settings = self._settings.for_request(params)
        stream = params.get("stream") is True
        if self._async:
            return self._acreate(args, params, stream, settings)
        return self._wrap(self._inner.create(*args, **params), stream, settings)

    async def _acreate(
        self, args: tuple[Any, ...], params: dict[str, Any], stream: bool, settings: GuardSettings
    ) -> Any:
        return self._wrap(await self._inner.create(*args, **params), stream, settings)

    def _wrap(self, result: Any, stream: bool, settings: GuardSettings) -> Any:
        if stream:
            return self._stream(result, settings)
        out, found = self._judge(result, settings)
        remember_result(out, found)
        return out

    @staticmethod
    def _judge_with(
        judge: Callable[..., tuple[Any, GuardResult]], result: Any, s: GuardSettings
    ) -> tuple[Any, GuardResult]:
        return judge(result, dialect=s.dialect, policy=s.policy, on_leak=s.on_leak, tools=s.tools)


class _Completions(_Endpoint):
    def create(self, *args: Any, **params: Any) -> Any:
        """``chat.completions.create`` with escaped messages and tools and a guarded result."""
        return super().create(*args, **params)

    def _escape(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return escape_chat_request(params, self._settings.dialect)

    def _stream(self, result: Any, settings: GuardSettings) -> Any:
        if self._async:
            return AsyncGuardedChatStream(result, settings)
        return GuardedChatStream(result, settings)

    def _judge(self, result: Any, settings: GuardSettings) -> tuple[Any, GuardResult]:
        return self._judge_with(guard_chat_completion, result, settings)


class _Chat(_Resource):
    @property
    def completions(self) -> _Completions:
        return _Completions(self._inner.completions, self._settings, self._async)


class _Responses(_Endpoint):
    def create(self, *args: Any, **params: Any) -> Any:
        """``responses.create`` with escaped input, instructions and tools and a guarded
        result."""
        return super().create(*args, **params)

    def _escape(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return escape_responses_request(params, self._settings.dialect)

    def _stream(self, result: Any, settings: GuardSettings) -> Any:
        if self._async:
            return AsyncGuardedResponseStream(result, settings, "raise")
        return GuardedResponseStream(result, settings, "raise")

    def _judge(self, result: Any, settings: GuardSettings) -> tuple[Any, GuardResult]:
        return self._judge_with(guard_response, result, settings)


class GuardedClient:
    """An OpenAI client whose ``chat.completions.create`` and ``responses.create`` are guarded;
    every other attribute is the wrapped client's. ``unwrapped`` is the client itself."""

    def __init__(self, client: Any, settings: GuardSettings) -> None:
        self._client = client
        self._settings = settings
        self._async = _is_async(client)

    @property
    def unwrapped(self) -> Any:
        return self._client

    @property
    def chat(self) -> _Chat:
        return _Chat(self._client.chat, self._settings, self._async)

    @property
    def responses(self) -> _Responses:
        return _Responses(self._client.responses, self._settings, self._async)

    def with_options(self, *args: Any, **kwargs: Any) -> GuardedClient:
        return GuardedClient(self._client.with_options(*args, **kwargs), self._settings)

    def copy(self, *args: Any, **kwargs: Any) -> GuardedClient:
        return GuardedClient(self._client.copy(*args, **kwargs), self._settings)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __enter__(self) -> GuardedClient:
        self._client.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._client.__exit__(*exc)

    async def __aenter__(self) -> GuardedClient:
        await self._client.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._client.__aexit__(*exc)

    def __repr__(self) -> str:
        return f"guard_client({self._client!r}, dialect={self._settings.dialect.name!r})"


def guard_client(
    client: ClientT,
    *,
    dialect: str | Dialect = "harmony",
    policy: Policy | None = None,
    on_leak: OnLeak = "truncate",
    escape_inputs: bool = True,
) -> ClientT:
    """Wrap an ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client (see
    :mod:`guard.integrations.openai`).

    Args:
        client: the SDK client (sync or async).
        dialect: the wire format of the model behind it (escaping and detection).
        policy: the gate's rules (default: ``docs/detection.md``, "Gate").
        on_leak: ``truncate`` (default), ``abort`` (raise :class:`guard.LeakAborted`),
            ``recover`` or ``report``.
        escape_inputs: escape messages, input items, instructions and tool definitions.

    Returns:
        A :class:`GuardedClient` with the client's interface (typed as the client).
    """
    if type(client).__module__.split(".")[0] == "anthropic":
        raise TypeError(
            "guard.integrations.openai.guard_client wraps OpenAI clients; for an anthropic"
            " client use guard.integrations.anthropic.guard_client"
        )
    settings = GuardSettings.resolve(dialect, policy, on_leak, escape_inputs)
    return cast(ClientT, GuardedClient(client, settings))
