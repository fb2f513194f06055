"""What the SDK wrappers share now that the guarded transport (:mod:`guard.transport`) does
the guarding: installing it in an SDK client, and reading what it found off the answers.

A wrapped client is a copy of the SDK client whose HTTP client sends through the guarded
transport, so every method of the SDK is guarded by construction. The wrappers' own
``create`` adds only what a caller of the SDK cannot see on the SDK's objects: the findings
(:func:`guard.integrations.guard_result` for a complete answer, attributes on a stream) and
:class:`guard.LeakAborted` for ``on_leak="abort"`` (the transport filters a complete answer,
as the proxy does, since SDKs retry any exception of their HTTP client).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from guard.errors import LeakAborted
from guard.integrations._names import Rename, renamed, renamed_abort, renamed_cut, same
from guard.integrations._results import remember_result
from guard.integrations._shells import AsyncStreamShell, StreamShell
from guard.models import Outcome, Verdict

if TYPE_CHECKING:  # guard.wire reads answers with the protocol halves of this package
    from collections.abc import Mapping

    from guard.dialects import Dialect
    from guard.gate import Policy
    from guard.serve import ServeConfig
    from guard.stream import OnLeak
    from guard.wire import StreamedAnswer

__all__ = [
    "AsyncTransportedStream",
    "ClientGuard",
    "GuardedResource",
    "TransportedClient",
    "TransportedStream",
    "async_judged_result",
    "install_transport",
    "judged_result",
]

ClientT = TypeVar("ClientT")


def install_transport(
    client: Any, config: ServeConfig, *, escape_inputs: bool, is_async: bool
) -> Any:
    """A copy of the SDK ``client`` whose HTTP client sends through the guarded transport:
    a new client of the same library over the SDK client's own transports (its pool, proxies
    and mounts), each guarded. It keeps the SDK's HTTP client alive, so that client's
    finaliser does not close the pool under it."""
    import importlib

    from guard.transport import async_guarded_transport, guarded_transport

    http = client._client  # the SDK's httpx (or httpx2) client
    library = next(
        top
        for cls in type(http).__mro__
        if (top := cls.__module__.partition(".")[0]) in ("httpx", "httpx2")
    )
    x = importlib.import_module(library)
    make = async_guarded_transport if is_async else guarded_transport

    def wrap(inner: Any) -> Any:
        return make(inner, config=config, abort="raise", escape_inputs=escape_inputs)

    kind = x.AsyncClient if is_async else x.Client
    guarded = kind(
        timeout=http.timeout,
        follow_redirects=http.follow_redirects,
        event_hooks=http.event_hooks,
        trust_env=False,  # the mounts are the SDK client's, below
    )
    guarded._transport = wrap(http._transport)
    guarded._mounts = {k: None if t is None else wrap(t) for k, t in http._mounts.items()}
    guarded._guard_origin = http
    return client.with_options(http_client=guarded)


class TransportedClient:
    """What the SDK wrappers share: a copy of the SDK client given whose every request goes
    through the guarded transport (:func:`install_transport`), with the transport's settings
    (``config``, ``guard serve``'s) made from the wrapper's ``options``; every attribute the
    wrapper does not define is the guarded copy's. ``unwrapped`` is the client given."""

    def __init__(self, client: Any, options: dict[str, Any]) -> None:
        from guard.transport import transport_config

        self._unwrapped = client
        self._options = options
        self._async = self._is_async(client)
        #: the transport's settings (``guard serve``'s)
        self.config: ServeConfig = transport_config(
            dialect=options["dialect"],
            dialects=options["dialects"],
            policy=options["policy"],
            on_leak=options["on_leak"],
            allow_passthrough=options["allow_passthrough"],
        )
        self._on_leak = self.config.on_leak
        self._client = install_transport(
            client, self.config, escape_inputs=options["escape_inputs"], is_async=self._async
        )

    @staticmethod
    def _is_async(client: Any) -> bool:
        """Whether ``client`` is the SDK's async client (each wrapper knows its SDK)."""
        raise NotImplementedError

    @staticmethod
    def _check(client: Any) -> None:
        """Refuse a client of another SDK (``TypeError``); by default any is taken."""

    @property
    def unwrapped(self) -> Any:
        return self._unwrapped

    def with_options(self, *args: Any, **kwargs: Any) -> Self:
        return type(self)(self._unwrapped.with_options(*args, **kwargs), self._options)

    def copy(self, *args: Any, **kwargs: Any) -> Self:
        return type(self)(self._unwrapped.copy(*args, **kwargs), self._options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __enter__(self) -> Self:
        self._client.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._client.__exit__(*exc)

    async def __aenter__(self) -> Self:
        await self._client.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._client.__aexit__(*exc)

    def __repr__(self) -> str:
        dialect = self._options["dialect"]
        name = "by model" if dialect is None else getattr(dialect, "name", dialect)
        return f"guard_client({self._unwrapped!r}, dialect={name!r})"


class ClientGuard:
    """The ``guard_client`` of one SDK: the same options for every SDK, each guarding a
    client with its own wrapper (a :class:`TransportedClient`)."""

    def __init__(self, wrapper: type[TransportedClient], module: str, doc: str) -> None:
        self._wrapper = wrapper
        self.__name__ = self.__qualname__ = "guard_client"
        self.__module__ = module
        self.__doc__ = doc

    def __call__(
        self,
        client: ClientT,
        *,
        dialect: str | Dialect | None = None,
        dialects: Mapping[str, str] | None = None,
        policy: Policy | None = None,
        on_leak: OnLeak = "truncate",
        escape_inputs: bool = True,
        allow_passthrough: bool = False,
    ) -> ClientT:
        """A copy of the SDK ``client`` (sync or async) that sends through the guarded
        transport, with the client's interface (typed as the client).

        Args:
            client: the SDK client (sync or async).
            dialect: pin the wire format of the model behind it (escaping and detection);
                ``None`` (default): every dialect's spellings, the request's ``model`` adding
                its own, as ``guard serve`` does.
            dialects: model-name keys pinning a dialect per model (``guard serve``'s
                ``[serve.dialects]``).
            policy: the gate's rules (default: ``docs/detection.md``, "Gate").
            on_leak: ``truncate`` (default), ``abort`` (raise :class:`guard.LeakAborted`),
                ``recover`` or ``report``.
            escape_inputs: escape every string of a request (off: sent as written, still
                checked).
            allow_passthrough: let routes that may carry model output and are not guarded
                (files, batches, ...) through unguarded, each logged; by default they are
                refused (403).
        """
        self._wrapper._check(client)
        options = {
            "dialect": dialect,
            "dialects": dialects,
            "policy": policy,
            "on_leak": on_leak,
            "escape_inputs": escape_inputs,
            "allow_passthrough": allow_passthrough,
        }
        return cast(ClientT, self._wrapper(client, options))


class GuardedResource:
    """A resource of a guarded client (``messages``, ``chat.completions``, ``responses``)
    whose methods named here return the SDK's answer with guard's findings: a stream with
    ``verdicts``, ``cut``, ``forged``... for ``stream=True``, else the judged complete answer
    (see :func:`guard.integrations.guard_result`); every other attribute is the guarded
    SDK's. Sync and async clients share it."""

    #: the middleware's part names as the answer's (chat: ``content``, not ``text``)
    rename: Rename = staticmethod(same)
    #: the mapping type of a stream's ``cut``
    offsets: type[dict[str, int]] = dict

    def __init__(self, inner: Any, on_leak: str, is_async: bool) -> None:
        self._inner = inner
        self._on_leak = on_leak
        self._async = is_async

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _guarded(
        self, method: str, args: tuple[Any, ...], params: dict[str, Any], streams: bool = True
    ) -> Any:
        """``method`` of the resource, called with guard's findings kept (a stream for
        ``stream=True`` when the method ``streams``)."""
        if self._async:
            return self._aguarded(method, args, params, streams)
        if streams and params.get("stream") is True:
            stream = getattr(self._inner, method)(*args, **params)
            return TransportedStream(stream, self.rename, self.offsets)
        raw = getattr(self._inner.with_raw_response, method)(*args, **params)
        return judged_result(raw, self._on_leak)

    async def _aguarded(
        self, method: str, args: tuple[Any, ...], params: dict[str, Any], streams: bool
    ) -> Any:
        if streams and params.get("stream") is True:
            stream = await getattr(self._inner, method)(*args, **params)
            return AsyncTransportedStream(stream, self.rename, self.offsets)
        raw = await getattr(self._inner.with_raw_response, method)(*args, **params)
        return await async_judged_result(raw, self._on_leak)


def judged_result(raw: Any, on_leak: str) -> Any:
    """The parsed answer of an SDK raw response the transport judged, its findings kept for
    :func:`guard.integrations.guard_result`; :class:`guard.LeakAborted` for an aborting leak."""
    return _judged(raw, raw.parse(), on_leak)


async def async_judged_result(raw: Any, on_leak: str) -> Any:
    """:func:`judged_result` of an async SDK's raw response (whose ``parse`` may be awaited)."""
    parsed = raw.parse()
    if inspect.isawaitable(parsed):
        parsed = await parsed
    return _judged(raw, parsed, on_leak)


def _judged(raw: Any, parsed: Any, on_leak: str) -> Any:
    from guard.wire import JudgedAnswer

    judged = raw.http_response.extensions.get("guard")
    if isinstance(judged, JudgedAnswer):
        if judged.abort is not None and on_leak == "abort":
            raise judged.abort
        remember_result(parsed, judged.result)
    return parsed


def _abort_of(exc: BaseException) -> LeakAborted | None:
    """The aborting leak behind an SDK's error: some SDKs report any failure to read a
    stream's body as a connection error caused by it."""
    for error in (exc, exc.__cause__):
        if isinstance(error, LeakAborted):
            return error
    return None


class _Findings:
    """What a guarded stream tells about itself: the transport's findings on the response.
    ``rename`` names the middleware's parts as the answer's; ``offsets`` is the mapping type
    ``cut`` is given in."""

    def __init__(
        self, stream: Any, rename: Rename = same, offsets: type[dict[str, int]] = dict
    ) -> None:
        self._stream = stream
        self._rename = rename
        self._offsets = offsets
        self._iterator = self._run()

    def _run(self) -> Any:
        """The stream's items, an aborting leak raised as the answer names its part."""
        raise NotImplementedError

    @property
    def _answer(self) -> StreamedAnswer | None:
        from guard.wire import StreamedAnswer

        answer = self._stream.response.extensions.get("guard")
        return answer if isinstance(answer, StreamedAnswer) else None

    @property
    def response(self) -> Any:
        """The HTTP response (as on the SDK's stream)."""
        return self._stream.response

    @property
    def verdicts(self) -> list[Verdict]:
        answer = self._answer
        if answer is None:
            return []
        return renamed(answer.verdicts, self._rename)

    @property
    def cut(self) -> dict[str, int]:
        answer = self._answer
        return renamed_cut(answer.cut if answer else {}, self._rename, self._offsets)

    @property
    def forged(self) -> bool:
        answer = self._answer
        return answer.forged if answer else False

    @property
    def chars_dropped(self) -> int:
        answer = self._answer
        return answer.chars_dropped if answer else 0

    @property
    def upstream_closed(self) -> bool:
        """Whether guard closed the upstream before it ended by itself."""
        answer = self._answer
        return answer.upstream_closed if answer else False

    @property
    def outcomes(self) -> list[Outcome]:
        answer = self._answer
        return answer.outcomes if answer else []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class TransportedStream(_Findings, StreamShell):
    """The SDK's stream of an answer the transport guards: iterate it, use it in ``with``,
    ``close()`` it, as the SDK's; plus ``verdicts``, ``forged``, ``cut``, ``chars_dropped``,
    ``upstream_closed`` and ``outcomes`` (final once it has ended). An aborting leak raises
    :class:`guard.LeakAborted` where the stream is cut, and closes the HTTP response."""

    def _run(self) -> Iterator[Any]:
        try:
            yield from self._stream
        except Exception as exc:
            abort = _abort_of(exc)
            if abort is None:
                raise
            self._stream.close()
            raise renamed_abort(abort, self._rename) from None

    def close(self) -> None:
        self._stream.close()


class AsyncTransportedStream(_Findings, AsyncStreamShell):
    """The async twin of :class:`TransportedStream`."""

    async def _run(self) -> AsyncIterator[Any]:
        try:
            async for item in self._stream:
                yield item
        except Exception as exc:
            abort = _abort_of(exc)
            if abort is None:
                raise
            await self._stream.close()
            raise renamed_abort(abort, self._rename) from None

    async def close(self) -> None:
        await self._stream.close()

    aclose = close
