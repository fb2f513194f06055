"""``guard serve``: an OpenAI- and Anthropic-compatible HTTP proxy that guards a provider.

Clients talk to the proxy as to the provider (``base_url="http://127.0.0.1:8787/v1"``; an
Anthropic client ``base_url="http://127.0.0.1:8787"``); the proxy forwards to ``--upstream`` (the
provider's base URL, ending in ``/v1``) and

* escapes request inputs (chat ``messages`` and ``tools``; Responses ``input``,
  ``instructions`` and ``tools``; Anthropic ``system``, ``messages`` and ``tools``) for the
  dialect of the requested model;
* guards responses with the stream middleware (:func:`guard.guard_stream`): streaming SSE
  chunk by chunk, complete responses as a whole. On a forged tool result or an aborting leak it
  closes the upstream connection at once and ends the client's stream with a well-formed final
  chunk and ``data: [DONE]``;
* guards ``/v1/chat/completions``, ``/v1/responses`` and ``/v1/messages``; passes the
  ``/v1/...`` paths that carry no model output (``models``, ``embeddings``, ``moderations``,
  ``messages/count_tokens``, ...) through unchanged, and refuses every other one with 403
  unless the policy file's ``[serve] allow_passthrough = true`` lets it through (each such
  request logged as ``guard.serve.unguarded``); ``/healthz`` answers without the upstream.

The dialect is chosen per request from the ``model`` name by a table
(:data:`guard.dialects.MODEL_DIALECTS`, here also :data:`DEFAULT_DIALECTS`, plus the
``[serve.dialects]`` table of the policy file; the first matching key wins, the file's entries
before the defaults), unless a dialect is forced. Paths are decoded and checked before
routing (dot, empty and backslash segments get 400), and every failure the proxy answers is
an OpenAI-style JSON error with the connection kept usable: 400 for the client's input (also
nesting over 128 levels and invalid Unicode), 401 without a client key when keys are set, 413
for a body over the size limit, 502 for upstream faults, 504 for the idle and total deadlines
(an upstream ``4xx`` is the client's and passes through; a stream that already started ends
with an error event); a client that disconnects closes the upstream too. Hop-by-hop headers are
dropped both ways. Each request is logged once as ``guard.serve.request`` (method, path,
status, duration, upstream status, chunks, forged, ...), never with request or response
bodies. ``docs/serve.md`` has the contract and the security notes.

Settings come from flags, ``GUARD_*`` variables and the policy file's ``[serve]`` table
(:class:`ServeSettings`); ``/metrics`` serves Prometheus metrics (``_metrics``), and with the
``otel`` extra requests become OpenTelemetry spans (``_tracing``).

Needs the ``serve`` extra (Starlette, uvicorn, httpx, pydantic-settings, prometheus_client).
Names load lazily (PEP 562): :class:`ServeConfig` and :func:`load_policy_file`, which the
httpx transport (:mod:`guard.transport`) shares, need none of them.
The request escaping and response judging are :mod:`guard.integrations.openai.protocol`'s and
:mod:`guard.integrations.anthropic.protocol`'s, shared with the SDK wrappers. Modules:
``_config`` (:class:`ServeConfig`, the policy file's ``[serve]`` table), ``_settings``
(:class:`ServeSettings`), ``_app`` (routes,
:func:`create_app`), ``_front`` (path check and client keys before routing), ``_paths``,
``_auth``, ``_errors`` (the error contract and the boundary that keeps exceptions from the
server), ``_headers`` (what crosses the proxy), ``_deadlines``, ``_upstream`` (the provider's
HTTP client), ``_relay`` (guarded SSE streams, judged by :class:`guard.wire.StreamedAnswer`),
``_logging`` (access records, JSON lines), ``_outcome`` (the one outcome vocabulary of the
access log and the metrics), ``_causes`` (why an upstream could not be reached), ``_secrets``
(upstream URLs without their password), ``_models`` (the warning once per model name no table
claims), ``_offload`` (judging off the event loop), ``_connections`` (client bounds),
``_listen`` (the socket bound first, the start-up line), ``_run`` (:func:`run`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING as _TYPE_CHECKING

from guard._lazy import lazy_exports as _lazy_exports

if _TYPE_CHECKING:
    from guard.dialects import FALLBACK_DIALECT as FALLBACK_DIALECT
    from guard.dialects import dialect_for_model as dialect_for_model
    from guard.serve._app import create_app as create_app
    from guard.serve._config import DEFAULT_DIALECTS as DEFAULT_DIALECTS
    from guard.serve._config import DEFAULT_MAX_BODY_BYTES as DEFAULT_MAX_BODY_BYTES
    from guard.serve._config import DEFAULT_READ_TIMEOUT as DEFAULT_READ_TIMEOUT
    from guard.serve._config import DEFAULT_TOTAL_TIMEOUT as DEFAULT_TOTAL_TIMEOUT
    from guard.serve._config import ServeConfig as ServeConfig
    from guard.serve._config import load_policy_file as load_policy_file
    from guard.serve._logging import configure_logging as configure_logging
    from guard.serve._run import run as run
    from guard.serve._settings import ServeSettings as ServeSettings

__getattr__, __dir__ = _lazy_exports(__name__, globals())
