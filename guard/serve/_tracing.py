"""OpenTelemetry for ``guard serve`` (the ``otel`` extra, imported only when ``otel`` is on).

Each request is a server span (the ASGI instrumentation), each upstream call a client span
below it (the httpx instrumentation), and the server span carries what guard did:
``guard.route``, ``guard.dialect``, ``guard.leak``, ``guard.forged``, ``guard.aborted``,
``guard.signals`` and ``guard.chars_dropped``; never request or response text. Spans go to the
global tracer provider: configure exporters the usual way (``opentelemetry-instrument``, or the
``OTEL_*`` variables with the SDK).
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


def traced(app: ASGIApp) -> ASGIApp:
    """``app`` with a server span per request."""
    _require()
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware

    return OpenTelemetryMiddleware(app, excluded_urls="healthz,metrics")


def instrument_client(client: Any) -> None:
    """Make each request of the upstream client (an ``httpx.AsyncClient``) a client span."""
    _require()
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor

    HTTPXClientInstrumentor.instrument_client(client)


def annotate(route: str, observation: Observation) -> None:
    """Put what guard did on the current (server) span."""
    from opentelemetry import trace

    span = trace.get_current_span()
    if not span.is_recording():
        return
    fields = observation.fields
    signals = sorted({s for v in observation.verdicts for s in v.signals})
    span.set_attribute("guard.route", route)
    if fields.get("dialect"):
        span.set_attribute("guard.dialect", str(fields["dialect"]))
    for key in ("leak", "forged", "aborted"):
        span.set_attribute(f"guard.{key}", bool(fields.get(key)))
    span.set_attribute("guard.signals", signals)
    dropped = fields.get("chars_dropped")
    if isinstance(dropped, int):
        span.set_attribute("guard.chars_dropped", dropped)
