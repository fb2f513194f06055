"""The SDK wrapper: :func:`guard_client` installs the guarded transport
(:mod:`guard.transport`) in a copy of the client, so every method of the SDK is guarded, and
keeps the findings of ``chat.completions.create`` and ``responses.create`` where callers read
them. Sync and async clients share one code path. Nothing here imports the SDK."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from guard.dialects import Dialect
from guard.gate import Policy
from guard.integrations._results import guard_result
from guard.integrations._transported import (
    AsyncTransportedStream,
    TransportedClient,
    TransportedStream,
    async_judged_result,
    judged_result,
)
from guard.integrations.openai._chat_streams import PartOffsets, chat_part
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


class _Endpoint:
    """A resource whose ``create`` returns the SDK's answer with guard's findings: a stream
    with ``verdicts``, ``cut``, ``forged``... for ``stream=True``, else the judged complete
    response (see :func:`guard_result`); every other attribute is the guarded SDK's."""

    #: the middleware's part names as the answer's (chat: ``content``, not ``text``)
    rename: Any = staticmethod(lambda name: name)
    #: the mapping type of a stream's ``cut``
    offsets: type[dict[str, int]] = dict

    def __init__(self, inner: Any, on_leak: str, is_async: bool) -> None:
        self._inner = inner
        self._on_leak = on_leak
        self._async = is_async

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def create(self, *args: Any, **params: Any) -> Any:
        if self._async:
            return self._acreate(args, params)
        if params.get("stream") is True:
            stream = self._inner.create(*args, **params)
            return TransportedStream(stream, self.rename, self.offsets)
        return judged_result(self._inner.with_raw_response.create(*args, **params), self._on_leak)

    async def _acreate(self, args: tuple[Any, ...], params: dict[str, Any]) -> Any:
        if params.get("stream") is True:
            stream = await self._inner.create(*args, **params)
            return AsyncTransportedStream(stream, self.rename, self.offsets)
        raw = await self._inner.with_raw_response.create(*args, **params)
        return await async_judged_result(raw, self._on_leak)


class _Completions(_Endpoint):
    rename = staticmethod(chat_part)
    offsets = PartOffsets

    def create(self, *args: Any, **params: Any) -> Any:
        """``chat.completions.create``, guarded; a stream's ``cut`` is keyed by the message's
        fields (``cut["text"]`` still reads)."""
        return super().create(*args, **params)


class _Chat:
    def __init__(self, inner: Any, on_leak: str, is_async: bool) -> None:
        self._inner = inner
        self._on_leak = on_leak
        self._async = is_async

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    @property
    def completions(self) -> _Completions:
        return _Completions(self._inner.completions, self._on_leak, self._async)


class _Responses(_Endpoint):
    def create(self, *args: Any, **params: Any) -> Any:
        """``responses.create``, guarded."""
        return super().create(*args, **params)


class GuardedClient(TransportedClient):
    """An OpenAI client whose every request goes through the guarded transport (a copy of
    the client given); ``chat.completions.create`` and ``responses.create`` also carry guard's
    findings. ``unwrapped`` is the client given, unguarded."""

    _is_async = staticmethod(_is_async)

    @property
    def chat(self) -> _Chat:
        return _Chat(self._client.chat, self._on_leak, self._async)

    @property
    def responses(self) -> _Responses:
        return _Responses(self._client.responses, self._on_leak, self._async)


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
    """Guard an ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client (see
    :mod:`guard.integrations.openai`): a copy of it sends through the guarded transport.

    Args:
        client: the SDK client (sync or async).
        dialect: pin the wire format of the model behind it (escaping and detection);
            ``None`` (default): every dialect's spellings, the request's ``model`` adding its
            own, as ``guard serve`` does.
        dialects: model-name keys pinning a dialect per model (``guard serve``'s
            ``[serve.dialects]``).
        policy: the gate's rules (default: ``docs/detection.md``, "Gate").
        on_leak: ``truncate`` (default), ``abort`` (raise :class:`guard.LeakAborted`),
            ``recover`` or ``report``.
        escape_inputs: escape every string of a request (off: sent as written, still checked).
        allow_passthrough: let routes that may carry model output and are not guarded (files,
            batches, ...) through unguarded, each logged; by default they are refused (403).

    Returns:
        A :class:`GuardedClient` with the client's interface (typed as the client).
    """
    if type(client).__module__.split(".")[0] == "anthropic":
        raise TypeError(
            "guard.integrations.openai.guard_client wraps OpenAI clients; for an anthropic"
            " client use guard.integrations.anthropic.guard_client"
        )
    options = {
        "dialect": dialect,
        "dialects": dialects,
        "policy": policy,
        "on_leak": on_leak,
        "escape_inputs": escape_inputs,
        "allow_passthrough": allow_passthrough,
    }
    return cast(ClientT, GuardedClient(client, options))
