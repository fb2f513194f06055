"""The SDK wrapper: :func:`guard_client` installs the guarded transport
(:mod:`guard.transport`) in a copy of an ``anthropic.Anthropic`` / ``AsyncAnthropic`` client,
so every method of the SDK is guarded (``messages``, ``beta.messages``, ``with_raw_response``,
``with_streaming_response``, the ``stream()`` and ``parse()`` helpers), and keeps the findings
of ``messages.create`` and ``messages.parse`` where callers read them. Sync and async clients
share one code path; nothing here imports the SDK."""

from __future__ import annotations

import inspect
from typing import Any

from guard.integrations._transported import ClientGuard, GuardedResource, TransportedClient

__all__ = ["GuardedAnthropic", "guard_client"]


def _is_async(client: Any) -> bool:
    create = getattr(getattr(client, "messages", None), "create", None)
    return create is not None and inspect.iscoroutinefunction(inspect.unwrap(create))


class _Messages(GuardedResource):
    """``client.messages`` of the guarded copy: ``create`` and ``parse`` carry guard's
    findings; every other attribute (``stream``, ``count_tokens``, ``batches``,
    ``with_raw_response``, ...) is the guarded SDK's."""

    def create(self, **params: Any) -> Any:
        """``messages.create``: for ``stream=True`` the SDK's event stream with ``verdicts``,
        ``cut`` (by content block), ``forged``...; else the judged message (see
        :func:`guard_result`)."""
        return self._guarded("create", (), params)

    def parse(self, **params: Any) -> Any:
        """``messages.parse``: the judged parsed message."""
        return self._guarded("parse", (), params, streams=False)


class GuardedAnthropic(TransportedClient):
    """An Anthropic client whose every request goes through the guarded transport (a copy of
    the client given); ``messages.create`` and ``messages.parse`` also carry guard's findings.
    ``unwrapped`` is the client given, unguarded; ``config`` the transport's settings."""

    _is_async = staticmethod(_is_async)

    @property
    def messages(self) -> _Messages:
        return _Messages(self._client.messages, self.config.on_leak, self._async)


guard_client = ClientGuard(
    GuardedAnthropic,
    __name__,
    """Guard an ``anthropic.Anthropic`` or ``anthropic.AsyncAnthropic`` client (see
    :mod:`guard.integrations.anthropic`): a copy of it sends through the guarded transport, a
    :class:`GuardedAnthropic` with the client's interface (typed as the client). The options
    are those of every SDK's ``guard_client`` (``dialect``, ``dialects``, ``policy``,
    ``on_leak``, ``escape_inputs``, ``allow_passthrough``; see its ``__call__``).""",
)
