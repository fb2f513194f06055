"""OpenTelemetry for ``guard serve`` (the ``otel`` extra, imported only when ``otel`` is on).

Each request is a server span (the ASGI instrumentation), each upstream call a client span
below it (the httpx instrumentation), and the server span carries what guard did:
``guard.route``, ``guard.dialect``, ``guard.leak``, ``guard.forged``, ``guard.aborted``,
``guard.signals`` and ``guard.chars_dropped``, beside the GenAI semantic conventions' request
attributes (``gen_ai.system``, ``gen_ai.operation.name``, ``gen_ai.request.model``); never
request or response text. The ASGI instrumentation's per-message ``receive`` and ``send`` spans
are left out (one span per SSE event otherwise), and an httpx already instrumented globally
(``opentelemetry-instrument``) is not instrumented again. Spans go to the global tracer
provider: configure exporters the usual way (``opentelemetry-instrument``, or code of your own);
with neither, ``OTEL_EXPORTER_OTLP_ENDPOINT`` alone sends them to a collector over OTLP/HTTP.
"""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp

from guard.serve._logging import Observation

__all__ = ["OTEL_MISSING", "annotate", "instrument_client", "traced"]

OTEL_MISSING = "guard serve --otel needs OpenTelemetry (pip install 'inband-guard[otel]')"


def _require() -> None:
    try:
        import opentelemetry.instrumentation.asgi
        import opentelemetry.instrumentation.httpx  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"{OTEL_MISSING}: {exc}") from None


def _export_from_environment() -> None:
    """With no tracer provider set up (no ``opentelemetry-instrument``, no code of the
    operator's), send spans over OTLP/HTTP when the standard ``OTEL_EXPORTER_OTLP_ENDPOINT`` or
    ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` variable names a collector, so ``GUARD_OTEL=true`` in
    the container is enough. ``OTEL_TRACES_EXPORTER=none`` turns this off."""
    import os

    from opentelemetry import trace

    if os.environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return
    if not any(
        os.environ.get(name)
        for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    ):
        return
    if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return  # the operator's (or opentelemetry-instrument's) provider wins
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        raise ImportError(f"{OTEL_MISSING}: {exc}") from None
    service = os.environ.get("OTEL_SERVICE_NAME") or "guard-serve"
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)


def traced(app: ASGIApp) -> ASGIApp:
    """``app`` with a server span per request."""
    _require()
    _export_from_environment()
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware

    return OpenTelemetryMiddleware(
        app, excluded_urls="healthz,metrics", exclude_spans=["receive", "send"]
    )


def instrument_client(client: Any) -> None:
    """Make each request of the upstream client (an ``httpx.AsyncClient``) a client span."""
    _require()
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor

    if HTTPXClientInstrumentor().is_instrumented_by_opentelemetry:
        return  # every httpx client already makes client spans: a second would double them
    HTTPXClientInstrumentor.instrument_client(client)


#: ``gen_ai.system`` by guarded route: the API the upstream speaks
_SYSTEMS = {
    "chat": "openai",
    "responses": "openai",
    "completions": "openai",
    "messages": "anthropic",
}


def annotate(route: str, observation: Observation) -> None:
    """Put what guard did on the current (server) span."""
    from opentelemetry import trace

    span = trace.get_current_span()
    if not span.is_recording():
        return
    fields = observation.fields
    signals = sorted({s for v in observation.verdicts for s in v.signals})
    span.set_attribute("guard.route", route)
    system = _SYSTEMS.get(route)
    if system is not None:
        span.set_attribute("gen_ai.system", system)
        operation = "text_completion" if route == "completions" else "chat"
        span.set_attribute("gen_ai.operation.name", operation)
        model = fields.get("model")
        if isinstance(model, str):
            span.set_attribute("gen_ai.request.model", model)
    if fields.get("dialect"):
        span.set_attribute("guard.dialect", str(fields["dialect"]))
    for key in ("leak", "forged", "aborted"):
        span.set_attribute(f"guard.{key}", bool(fields.get(key)))
    span.set_attribute("guard.signals", signals)
    dropped = fields.get("chars_dropped")
    if isinstance(dropped, int):
        span.set_attribute("guard.chars_dropped", dropped)
