"""A guarded httpx transport: every SDK call guarded where it leaves the process.

:func:`http_client` returns an ``httpx.Client`` and :func:`async_http_client` an
``httpx.AsyncClient`` whose transports guard what ``guard serve`` guards, the same way and
with the same settings (a :class:`guard.serve.ServeConfig`, or the same keywords and policy
file); hand one to an SDK the SDK's own way: ``OpenAI(http_client=guard.http_client())``,
``Anthropic(http_client=...)``, ``AsyncOpenAI(http_client=guard.async_http_client())``.
Whatever SDK method made the call (``create``, ``with_raw_response``,
``with_streaming_response``, the ``.stream()`` and ``.parse()`` helpers, ``beta``...), the
request goes through here:

* a ``POST`` to a guarded route (a path ending in ``chat/completions``, ``responses`` or
  ``messages``) has every string of its body escaped (:func:`guard.wire.prepare_request`), or
  is answered 400 without reaching the provider; its answer is judged, a stream event by event
  (:class:`guard.wire.StreamedAnswer`), a complete one as a whole
  (:func:`guard.wire.judge_answer`), and cut, ended or reported by ``on_leak``;
* routes that carry no model output (``models``, ``embeddings``, ``moderations``,
  ``messages/count_tokens``, ...) pass through; every other route is answered 403 unless
  ``allow_passthrough`` lets it through unguarded (each such request logged);
* an error answer of the provider (HTTP 4xx/5xx) passes through as it came, so the SDK's
  own retries and errors work as without guard.

What the guard found is on the response: ``response.extensions["guard"]`` is the
:class:`guard.wire.StreamedAnswer` of a stream (final once it has ended) or the
:class:`guard.wire.JudgedAnswer` of a complete answer; ``x-guard-action`` says what was done
to a complete one.

``on_leak="abort"`` ends an answer as the proxy does (``abort="filter"``: the text is cut and
the answer marked ``content_filter`` / ``response.incomplete`` / ``refusal``); with
``abort="raise"`` a stream raises :class:`guard.LeakAborted` where it is cut instead. A
complete answer is never raised from the transport: SDKs read any exception of their HTTP
client as a network failure and send the request again.

Needs httpx (the ``serve``, ``openai`` or ``anthropic`` extra).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guard._depth import MAX_DEPTH
from guard._log import get_logger
from guard._transport_drivers import _AsyncBody, _AsyncTransport, _SyncBody, _SyncTransport
from guard.dialects import Dialect
from guard.gate import Policy
from guard.integrations.openai.protocol import AbortMode, request_tools
from guard.serve import ServeConfig, load_policy_file
from guard.stream import OnLeak
from guard.wire import (
    BadAnswer,
    RequestRefused,
    StreamedAnswer,
    carries_no_model_output,
    guarded_route,
    judge_answer,
    prepare_request,
    request_dialect,
    streamed_answer,
)

if TYPE_CHECKING:
    import httpx

__all__ = [
    "LIBRARIES",
    "async_guarded_transport",
    "async_http_client",
    "guarded_transport",
    "http_client",
    "transport_config",
]

log = get_logger("guard.transport")

#: a ServeConfig needs an upstream; the transport sends where the SDK sends
_SDK_UPSTREAM = "https://sdk.upstream.invalid"
#: response headers that no longer hold once guard rewrote the body
_BODY_HEADERS = ("content-length", "content-encoding", "transfer-encoding")


def transport_config(
    *,
    config: ServeConfig | None = None,
    policy_file: str | Path | None = None,
    dialect: str | Dialect | None = None,
    dialects: Mapping[str, str] | None = None,
    policy: Policy | None = None,
    on_leak: OnLeak | None = None,
    allow_passthrough: bool | None = None,
    max_body_bytes: int | None = None,
) -> ServeConfig:
    """The proxy's settings for a transport: ``config`` (or the defaults), then the policy
    file's rules and ``[serve]`` table (``dialect``, ``dialects``, ``on_leak``,
    ``allow_passthrough``, ``max_body_bytes``), then the keywords, which win. The proxy's
    network settings (upstream, deadlines, keys, metrics) do not apply: the transport sends
    where the SDK sends, within the client's timeouts."""
    base = config or ServeConfig(upstream=_SDK_UPSTREAM)
    changes: dict[str, Any] = {}
    if policy_file is not None:
        rules, serve = load_policy_file(policy_file)
        changes["policy"] = rules
        for key in ("dialect", "dialects", "on_leak", "allow_passthrough", "max_body_bytes"):
            if key in serve:
                changes[key] = serve[key]
    given = {
        "dialect": dialect.name if isinstance(dialect, Dialect) else dialect,
        "dialects": dict(dialects) if dialects is not None else None,
        "policy": policy,
        "on_leak": on_leak,
        "allow_passthrough": allow_passthrough,
        "max_body_bytes": max_body_bytes,
    }
    changes.update({k: v for k, v in given.items() if v is not None})
    return replace(base, **changes) if changes else base


class _Guard:
    """What the sync and async transports share: reading a request, building the answers the
    transport gives itself, judging a complete answer. No IO."""

    def __init__(self, config: ServeConfig, abort: AbortMode, escape_inputs: bool, x: Any) -> None:
        #: the HTTP library (``httpx``, or ``httpx2`` of the SDKs that moved to it)
        self.x = x
        if abort not in ("raise", "filter"):
            raise ValueError(f"abort must be 'raise' or 'filter', got {abort!r}")
        self.config = config
        self.abort: AbortMode = abort
        self.escape_inputs = escape_inputs

    def _spellings(self, model: str | None) -> Dialect:
        return request_dialect(model, self.config.dialect, self.config.dialects)

    def _error(self, status: int, message: str, code: str, kind: str | None) -> httpx.Response:
        """An answer of the transport's own, in the route's error shape."""
        if kind == "messages":
            error_type = "permission_error" if status == 403 else "invalid_request_error"
            body: dict[str, Any] = {
                "type": "error",
                "error": {"type": error_type, "message": message, "code": code},
            }
        else:
            body = {
                "error": {
                    "message": message,
                    "type": "invalid_request_error",
                    "code": code,
                    "param": None,
                }
            }
        out: httpx.Response = self.x.Response(
            status, json=body, headers={"x-guard-action": "refused"}
        )
        return out

    def route(self, request: httpx.Request) -> tuple[str | None, httpx.Response | None]:
        """(the guarded route's kind, or None to pass the request through; an answer of the
        transport's own instead of sending it, or None)."""
        path = request.url.path
        kind = guarded_route(request.method, path)
        if kind is not None or carries_no_model_output(path, rooted=False):
            return kind, None
        if self.config.allow_passthrough:
            log.warning("guard.transport.unguarded", method=request.method, path=path)
            return None, None
        message = (
            f"guard does not guard {request.method} {path}, which may carry model output; pass"
            " allow_passthrough=True (or [serve] allow_passthrough = true in the policy file)"
            " to let it through unguarded"
        )
        return None, self._error(403, message, "unguarded_route", None)

    def prepare(
        self, request: httpx.Request, kind: str, body: bytes
    ) -> tuple[httpx.Request, str, frozenset[str] | None, int] | httpx.Response:
        """(the request to send, the dialect its answer is judged for, its declared tools, the
        choices it asks for),
        or the transport's refusal."""
        limit = self.config.max_body_bytes
        if len(body) > limit:
            message = f"request body exceeds the guard's limit of {limit} bytes"
            return self._error(413, message, "request_too_large", kind)
        try:
            sent = prepare_request(body, self._spellings, max_depth=MAX_DEPTH)
        except RequestRefused as exc:
            return self._error(400, str(exc), exc.code, kind)
        headers = [
            (k, v)
            for k, v in request.headers.multi_items()
            if k.lower() not in ("content-length", "transfer-encoding", "accept-encoding")
        ]
        headers.append(("accept-encoding", "identity"))  # guard reads the answer
        out = self.x.Request(
            request.method,
            request.url,
            headers=headers,
            content=sent.raw if self.escape_inputs else body,
            extensions=request.extensions,
        )
        return out, sent.answer_dialect, request_tools(sent.body), sent.choices

    def stream(
        self, kind: str, dialect: str, tools: frozenset[str] | None, choices: int = 1
    ) -> StreamedAnswer:
        config = self.config
        return streamed_answer(
            kind, dialect, config.policy, config.on_leak, tools, self.abort, choices=choices
        )

    def answered(
        self,
        resp: httpx.Response,
        body: type[Any],
        kind: str,
        dialect: str,
        tools: frozenset[str] | None,
        choices: int,
    ) -> httpx.Response | None:
        """The answer to give for the provider's ``resp``: an error answer as it came, a
        stream with its guarded ``body`` (a byte stream type of the transport); None for a
        complete answer, read whole and judged (:meth:`complete`)."""
        if resp.status_code >= 400:
            return resp
        if not resp.headers.get("content-type", "").startswith("text/event-stream"):
            return None
        answer = self.stream(kind, dialect, tools, choices)
        out: httpx.Response = self.x.Response(
            resp.status_code,
            headers=self.answer_headers(resp),
            stream=body(resp, answer),
            extensions={**resp.extensions, "guard": answer},
        )
        return out

    def answer_headers(self, resp: httpx.Response) -> list[tuple[str, str]]:
        return [(k, v) for k, v in resp.headers.multi_items() if k.lower() not in _BODY_HEADERS]

    def complete(
        self,
        resp: httpx.Response,
        body: bytes,
        kind: str,
        dialect: str,
        tools: frozenset[str] | None,
    ) -> httpx.Response:
        """The judged complete answer (502 for a body the judge cannot read)."""
        config = self.config
        try:
            judged = judge_answer(body, kind, dialect, config.policy, config.on_leak, tools)
        except BadAnswer as exc:
            message = f"the provider sent {exc}"
            error = self._error(502, message, "bad_body", kind)
            error.extensions["guard"] = exc
            return error
        headers = self.answer_headers(resp)
        if judged.action is not None:
            headers.append(("x-guard-action", judged.action))
        content = (
            json.dumps(judged.out, ensure_ascii=False).encode("utf-8") if judged.changed else body
        )
        if judged.leak:
            log.warning(
                "guard.transport.leak",
                route=kind,
                action=judged.action,
                parts=[v.part for v in judged.verdicts],
            )
        out: httpx.Response = self.x.Response(
            resp.status_code,
            headers=headers,
            content=content,
            extensions={**resp.extensions, "guard": judged},
        )
        return out


LIBRARIES = ("httpx", "httpx2")


def _library(library: str | None, inner: Any = None) -> Any:
    """The HTTP library module: the one named, else the inner transport's, else ``httpx2``
    when installed (the openai 3.x and anthropic 2.x SDKs take its clients; openai also takes
    ``httpx``'s), else ``httpx``."""
    if library is None and inner is not None:
        library = type(inner).__module__.partition(".")[0]
        if library not in LIBRARIES:
            library = None
    names = [library] if library is not None else ["httpx2", "httpx"]
    for name in names:
        if name not in LIBRARIES:
            raise ValueError(f"library must be one of {', '.join(LIBRARIES)}, got {name!r}")
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise ImportError(
        f"guard.http_client needs {' or '.join(names)}: pip install 'inband-guard[openai]' (or"
        " the anthropic or serve extra)"
    )


@cache
def _types(name: str) -> tuple[type[Any], type[Any]]:
    """The guarded sync and async transport types of one HTTP library (their byte streams
    must be the library's own types)."""
    x = importlib.import_module(name)
    body = type("GuardedBody", (_SyncBody, x.SyncByteStream), {"__module__": __name__})
    abody = type("AsyncGuardedBody", (_AsyncBody, x.AsyncByteStream), {"__module__": __name__})
    sync = type(
        "GuardedTransport",
        (_SyncTransport, x.BaseTransport),
        {"__module__": __name__, "_body": body},
    )
    asyn = type(
        "AsyncGuardedTransport",
        (_AsyncTransport, x.AsyncBaseTransport),
        {"__module__": __name__, "_body": abody},
    )
    return sync, asyn


class _Twin:
    """One of a sync and async pair of makers (``twin``: the async one), as httpx names its
    twins; both share one definition."""

    def __init__(self, twin: bool, name: str, doc: str) -> None:
        self.twin = twin
        self.__name__ = self.__qualname__ = name
        self.__module__ = __name__
        self.__doc__ = doc


class _TransportMaker(_Twin):
    def __call__(
        self,
        transport: Any = None,
        *,
        config: ServeConfig | None = None,
        abort: AbortMode = "filter",
        escape_inputs: bool = True,
        library: str | None = None,
    ) -> Any:
        """A guarded transport sending through ``transport`` (default: the library's own)."""
        x = _library(library, transport)
        guard = _Guard(config or transport_config(), abort, escape_inputs, x)
        inner = transport or (x.AsyncHTTPTransport() if self.twin else x.HTTPTransport())
        return _types(x.__name__)[self.twin](inner, guard)


guarded_transport = _TransportMaker(
    False,
    "guarded_transport",
    """A guarded ``BaseTransport`` sending through ``transport`` (default: the library's
    ``HTTPTransport()``). ``config``: the proxy's settings (:func:`transport_config`);
    ``abort``: what an aborting leak does to a stream (``filter`` as the proxy, or ``raise``
    :class:`guard.LeakAborted`); ``escape_inputs=False`` sends request bodies as they came
    (still read and checked); ``library``: ``httpx`` or ``httpx2`` (default: the inner
    transport's, else see :func:`http_client`).""",
)
async_guarded_transport = _TransportMaker(
    True,
    "async_guarded_transport",
    """The async twin of :func:`guarded_transport` (an ``AsyncBaseTransport``).""",
)


def _guarded_client(client: Any, wrap: Any) -> Any:
    """``client`` with its transport and every mounted one (proxies from ``proxy=`` or the
    environment) guarded, so no route reaches the network around the guard."""
    client._transport = wrap(client._transport)
    client._mounts = {k: None if t is None else wrap(t) for k, t in client._mounts.items()}
    return client


class _ClientMaker(_Twin):
    def __call__(
        self,
        *,
        config: ServeConfig | None = None,
        policy_file: str | Path | None = None,
        dialect: str | Dialect | None = None,
        dialects: Mapping[str, str] | None = None,
        policy: Policy | None = None,
        on_leak: OnLeak | None = None,
        allow_passthrough: bool | None = None,
        abort: AbortMode = "filter",
        escape_inputs: bool = True,
        library: str | None = None,
        **client_options: Any,
    ) -> Any:
        """A client of the library with every transport guarded."""
        settings = transport_config(
            config=config,
            policy_file=policy_file,
            dialect=dialect,
            dialects=dialects,
            policy=policy,
            on_leak=on_leak,
            allow_passthrough=allow_passthrough,
        )
        x = _library(library, client_options.get("transport"))
        guard = _Guard(settings, abort, escape_inputs, x)
        client_options.setdefault("follow_redirects", True)
        kind = _types(x.__name__)[self.twin]
        client = (x.AsyncClient if self.twin else x.Client)(**client_options)
        return _guarded_client(client, lambda inner: kind(inner, guard))


http_client = _ClientMaker(
    False,
    "http_client",
    """A ``Client`` whose requests are guarded (see :mod:`guard.transport`): pass it as an
    SDK's ``http_client``. The settings are ``guard serve``'s (:func:`transport_config`: a
    ``config``, a ``policy_file``, keywords); ``client_options`` go to the ``Client``
    (``timeout``, ``limits``, ``proxy``, ``verify``, ``transport`` (the inner transport),
    ...). A dialect is pinned only when given (by ``dialect`` or the file's ``dialects``):
    otherwise requests are escaped and answers judged for every dialect's spellings, a
    request's ``model`` adding its own.

    ``library``: ``httpx2`` (the default when installed: the openai 3.x and anthropic 2.x
    SDKs take its clients) or ``httpx`` (``httpx.Client``: openai, LangChain and other
    httpx users).""",
)
async_http_client = _ClientMaker(
    True,
    "async_http_client",
    """The async twin of :func:`http_client`: an ``AsyncClient`` (for
    ``AsyncOpenAI(http_client=...)``, ``AsyncAnthropic``, the Agents SDK, LangChain's
    ``http_async_client``).""",
)
