"""Metrics and traces of ``guard serve``: Prometheus counters at ``/metrics`` and, with the
``otel`` extra, OpenTelemetry span attributes.

Every request passes :class:`Observe`, which opens an :class:`Observation` for it; the request's
access record (:mod:`guard.serve._logging`) fills it in when it is emitted, with what the log
line says plus the verdicts behind it. When the request is done (a stream: after its last
byte), the observation becomes metrics. Each app has its own
``prometheus_client.CollectorRegistry``, so several apps in one process never share counts.

Labels are bounded: ``route`` is one of :data:`ROUTES`, ``dialect`` a known dialect name (or
``none``), ``outcome`` one of :data:`OUTCOMES` (the access log's word for the request,
:mod:`guard.serve._outcome`); finding labels are signal codes and surfaces.
No label carries request or response text.
"""

from __future__ import annotations

import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from guard.serve._layer import HttpLayer
from guard.serve._logging import OBSERVATION, Observation
from guard.serve._outcome import OUTCOMES, outcome_of

__all__ = ["OUTCOMES", "ROUTES", "Metrics", "Observe", "outcome_of", "route_of"]

#: the ``route`` label: the guarded endpoints, the open ones, passthrough and the rest
ROUTES = ("chat", "responses", "messages", "passthrough", "healthz", "metrics", "other")
_ROUTE_PATHS = {
    "/v1/chat/completions": "chat",
    "/v1/responses": "responses",
    "/v1/messages": "messages",
    "/healthz": "healthz",
    "/metrics": "metrics",
}
_DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)


def route_of(path: str) -> str:
    """The ``route`` label of a (checked) request path."""
    if path in _ROUTE_PATHS:
        return _ROUTE_PATHS[path]
    return "passthrough" if path.startswith("/v1/") else "other"


def _close_reason(status: int, fields: dict[str, Any]) -> str | None:
    """Why the proxy closed the upstream exchange before its end, if it did: a deadline, or,
    in a stream, a forgery, an aborting leak, the client going away or a broken stream."""
    error = str(fields.get("error", ""))
    if "Deadline" in error or "Timeout" in error:
        return "deadline"
    if "upstream_chunks" not in fields:  # not a stream: the answer was read whole
        return None
    if fields.get("forged"):
        return "forged"
    if fields.get("aborted"):
        return "leak_abort"
    if status == 499 or fields.get("disconnected"):
        return "client_disconnected"
    if error:
        return "upstream_error"
    return None


class Metrics:
    """The proxy's Prometheus metrics, in a registry of their own."""

    def __init__(self) -> None:
        try:
            from prometheus_client import CollectorRegistry, Counter, Histogram
        except ImportError as exc:
            raise ImportError(
                "guard serve's metrics need prometheus_client (pip install"
                f" 'inband-guard[serve]', or turn metrics off with --no-metrics): {exc}"
            ) from None

        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "guard_serve_requests",
            "Requests answered, by route, dialect and outcome",
            ["route", "dialect", "outcome"],
            registry=self.registry,
        )
        self.findings = Counter(
            "guard_serve_findings",
            "Leaking verdicts on model output, one per tripping signal",
            ["kind", "signal", "surface", "dialect"],
            registry=self.registry,
        )
        self.upstream_closes = Counter(
            "guard_serve_upstream_closes",
            "Upstream exchanges the proxy closed before their end, by reason",
            ["reason"],
            registry=self.registry,
        )
        self.chars_dropped = Counter(
            "guard_serve_chars_dropped",
            "Characters of model output cut or dropped by the guard",
            ["dialect"],
            registry=self.registry,
        )
        self.duration = Histogram(
            "guard_serve_request_duration_seconds",
            "Time from the request to the answer's last byte",
            ["route"],
            buckets=_DURATION_BUCKETS,
            registry=self.registry,
        )

    def observe(self, route: str, observation: Observation, seconds: float) -> None:
        status = observation.status or 500
        fields = observation.fields
        dialect = str(fields.get("dialect") or "none")
        # the access record's word when there is one (a request refused before routing has none)
        outcome = str(fields.get("outcome") or outcome_of(status, fields))
        self.requests.labels(route, dialect, outcome).inc()
        self.duration.labels(route).observe(seconds)
        for verdict in observation.verdicts:
            if not verdict.leak:
                continue
            kind = "forgery" if verdict.forged else "leak"
            for signal in verdict.signals or ("-",):
                self.findings.labels(kind, signal, verdict.surface.value, verdict.dialect).inc()
        dropped = fields.get("chars_dropped")
        if isinstance(dropped, int) and dropped > 0:
            self.chars_dropped.labels(dialect).inc(dropped)
        reason = _close_reason(status, fields)
        if reason is not None:
            self.upstream_closes.labels(reason).inc()

    def exposition(self) -> tuple[bytes, str]:
        """The metrics in Prometheus' text format, and its content type."""
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST


class Observe(HttpLayer):
    """The ASGI layer that opens an :class:`Observation` per request and, when the request is
    done, turns it into metrics and (with tracing on) span attributes."""

    def __init__(self, app: ASGIApp, metrics: Metrics | None, *, spans: bool = False) -> None:
        super().__init__(app)
        self.metrics = metrics
        self.spans = spans

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        observation = Observation()
        token = OBSERVATION.set(observation)
        start = time.perf_counter()

        async def tracked(message: Message) -> None:
            if message["type"] == "http.response.start" and observation.status is None:
                observation.started = int(message["status"])
            elif (
                self.spans
                and message["type"] == "http.response.body"
                and not message.get("more_body", False)
            ):
                # the server span ends with the last body message: annotate it before
                from guard.serve._tracing import annotate

                annotate(route_of(observation.path or scope.get("path", "")), observation)
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        finally:
            OBSERVATION.reset(token)
            if observation.status is None:
                observation.status = observation.started or 500
            route = route_of(observation.path or scope.get("path", ""))
            if self.metrics is not None:
                self.metrics.observe(route, observation, time.perf_counter() - start)
