"""The SDK wrapper: :func:`guard_client` installs the guarded transport
(:mod:`guard.transport`) in a copy of the client, so every method of the SDK is guarded, and
keeps the findings of ``chat.completions.create`` and ``responses.create`` where callers read
them. Sync and async clients share one code path. Nothing here imports the SDK."""

from __future__ import annotations

import inspect
from typing import Any

from guard.integrations._results import guard_result
from guard.integrations._transported import ClientGuard, GuardedResource, TransportedClient
from guard.integrations.openai._chat_streams import PartOffsets, chat_part

__all__ = ["GuardedClient", "guard_client", "guard_result"]


def _is_async(client: Any) -> bool:
    try:
        from openai import AsyncOpenAI
    except ImportError:  # pragma: no cover - the wrapper is used with the SDK installed
        AsyncOpenAI = None  # type: ignore[assignment,misc]
    if AsyncOpenAI is not None and isinstance(client, AsyncOpenAI):
        return True
    create = getattr(getattr(getattr(client, "chat", None), "completions", None), "create", None)
    return create is not None and inspect.iscoroutinefunction(inspect.unwrap(create))


class _Completions(GuardedResource):
    rename = staticmethod(chat_part)
    offsets = PartOffsets

    def create(self, *args: Any, **params: Any) -> Any:
        """``chat.completions.create``, guarded; a stream's ``cut`` is keyed by the message's
        fields (``cut["text"]`` still reads)."""
        return self._guarded("create", args, params)


class _Chat(GuardedResource):
    @property
    def completions(self) -> _Completions:
        return _Completions(self._inner.completions, self._on_leak, self._async)


class _Responses(GuardedResource):
    def create(self, *args: Any, **params: Any) -> Any:
        """``responses.create``, guarded."""
        return self._guarded("create", args, params)


def _check(client: Any) -> None:
    if type(client).__module__.split(".")[0] == "anthropic":
        raise TypeError(
            "guard.integrations.openai.guard_client wraps OpenAI clients; for an anthropic"
            " client use guard.integrations.anthropic.guard_client"
        )


class GuardedClient(TransportedClient):
    """An OpenAI client whose every request goes through the guarded transport (a copy of
    the client given); ``chat.completions.create`` and ``responses.create`` also carry guard's
    findings. ``unwrapped`` is the client given, unguarded."""

    _is_async = staticmethod(_is_async)
    _check = staticmethod(_check)

    @property
    def chat(self) -> _Chat:
        return _Chat(self._client.chat, self._on_leak, self._async)

    @property
    def responses(self) -> _Responses:
        return _Responses(self._client.responses, self._on_leak, self._async)


guard_client = ClientGuard(
    GuardedClient,
    __name__,
    """Guard an ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client (see
    :mod:`guard.integrations.openai`): a copy of it sends through the guarded transport, a
    :class:`GuardedClient` with the client's interface (typed as the client). The options are
    those of every SDK's ``guard_client`` (``dialect``, ``dialects``, ``policy``, ``on_leak``,
    ``escape_inputs``, ``allow_passthrough``; see its ``__call__``).""",
)
