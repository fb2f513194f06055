"""guard serve in operation: one settings model (flags > GUARD_* > policy file), the upstream
client honouring the standard TLS and proxy variables, Prometheus metrics at /metrics and
OpenTelemetry spans (issue 16)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient
from support.fake_upstream import CHAT_CLEAN, CHAT_FORGED, CHAT_LEAKED, chat_json

from guard.cli import main
from guard.errors import ConfigError, PolicyError
from guard.serve import ServeConfig, ServeSettings, create_app
from guard.serve._metrics import outcome_of, route_of
from guard.serve._upstream import Upstream

USER = [{"role": "user", "content": "weather?"}]


# --- settings ------------------------------------------------------------------------------------


def write_policy(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(text)
    return path


def test_flags_win_over_environment_which_wins_over_the_policy_file(tmp_path: Path) -> None:
    policy = write_policy(
        tmp_path,
        '[serve]\nupstream = "http://file/v1"\nport = 1111\nhost = "0.0.0.0"\n'
        'on_leak = "report"\nread_timeout = 7\ntrust_env = false\n',
    )
    environ = {"GUARD_POLICY": str(policy), "GUARD_PORT": "2222", "GUARD_ON_LEAK": "abort"}
    settings = ServeSettings.load({"on_leak": "recover", "host": None}, environ)
    assert settings.upstream == "http://file/v1"  # file only
    assert settings.port == 2222  # environment over file
    assert settings.on_leak == "recover"  # flag over environment
    assert settings.host == "0.0.0.0" and settings.read_timeout == 7  # None flags are unset
    assert settings.trust_env is False
    config = settings.config()
    assert (config.upstream, config.on_leak) == ("http://file/v1", "recover")
    assert config.trust_env is False


def test_defaults_and_trust_env_on() -> None:
    settings = ServeSettings.load({"upstream": "http://x/v1"}, {})
    assert (settings.host, settings.port, settings.trust_env, settings.metrics) == (
        "127.0.0.1",
        8787,
        True,
        True,
    )
    assert settings.config().trust_env and not settings.otel


def test_secrets_never_come_from_the_policy_file(tmp_path: Path) -> None:
    policy = write_policy(tmp_path, '[serve]\nupstream_api_key = "sk-committed"\n')
    with pytest.raises(PolicyError, match="never read from a policy file"):
        ServeSettings.load({"upstream": "http://x/v1", "policy": str(policy)}, {})
    policy = write_policy(tmp_path, '[serve]\napi_keys = ["k"]\n')
    with pytest.raises(PolicyError, match="api_keys"):
        ServeSettings.load({"upstream": "http://x/v1", "policy": str(policy)}, {})


def test_client_keys_from_flags_are_added_to_the_environment_s(tmp_path: Path) -> None:
    environ = {"GUARD_API_KEYS": " e1, ,e2 ", "GUARD_UPSTREAM_API_KEY": "up-secret"}
    settings = ServeSettings.load({"upstream": "http://x/v1", "api_keys": ("f1",)}, environ)
    config = settings.config()
    assert config.api_keys == ("f1", "e1", "e2") and config.upstream_api_key == "up-secret"
    only_env = ServeSettings.load({"upstream": "http://x/v1"}, environ).config()
    assert only_env.api_keys == ("e1", "e2")


def test_bad_values_name_their_source(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="port"):
        ServeSettings.load({"upstream": "http://x/v1"}, {"GUARD_PORT": "eighty"})
    with pytest.raises(ConfigError, match="on_leak"):
        ServeSettings.load({"upstream": "http://x/v1", "on_leak": "explode"}, {})
    policy = write_policy(tmp_path, '[serve]\nport = "high"\n')
    with pytest.raises(PolicyError, match=r"policy .*port"):
        ServeSettings.load({"upstream": "http://x/v1", "policy": str(policy)}, {})
    with pytest.raises(ConfigError, match="no upstream"):
        ServeSettings.load({}, {}).config()
    with pytest.raises(ConfigError, match="upstream must be an http"):
        ServeSettings.load({"upstream": "ftp://x"}, {}).config()


def test_check_prints_the_effective_settings_with_secrets_masked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GUARD_UPSTREAM", "https://user:hunter2@llm.internal/v1")
    monkeypatch.setenv("GUARD_API_KEYS", "client-secret-1")
    monkeypatch.setenv("GUARD_UPSTREAM_API_KEY", "upstream-secret")
    monkeypatch.setenv("GUARD_PORT", "9100")
    assert main(["serve", "--check", "--api-key", "flag-secret", "--no-metrics"]) == 0
    out = capsys.readouterr().out
    for secret in ("client-secret-1", "upstream-secret", "flag-secret", "hunter2"):
        assert secret not in out
    shown = json.loads(out)
    assert shown["port"] == 9100 and shown["metrics"] is False and shown["trust_env"] is True
    assert shown["api_keys"] == ["**********", "**********"]
    assert shown["upstream_api_key"] == "**********"
    assert shown["upstream"] == "https://user:**********@llm.internal/v1"


def test_check_fails_cleanly_on_unusable_settings(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GUARD_UPSTREAM", raising=False)
    assert main(["serve", "--check"]) == 2
    assert "no upstream" in capsys.readouterr().err
    assert main(["serve", "--check", "--upstream", "http://x/v1", "--dialect", "klingon"]) == 2
    assert "klingon" in capsys.readouterr().err


def test_cli_hands_host_and_port_from_the_environment_to_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import guard.serve

    got: list[Any] = []
    monkeypatch.setattr(
        guard.serve, "run", lambda config, host, port, **_: got.append((host, port)) or 0
    )
    monkeypatch.setenv("GUARD_UPSTREAM", "http://x/v1")
    monkeypatch.setenv("GUARD_HOST", "0.0.0.0")
    monkeypatch.setenv("GUARD_PORT", "8080")
    main(["serve"])
    assert got == [("0.0.0.0", 8080)]


# --- trust_env -----------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("trust_env", [True, False])
async def test_the_upstream_client_honours_proxy_variables_only_with_trust_env(
    monkeypatch: pytest.MonkeyPatch, trust_env: bool
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    upstream = Upstream(ServeConfig(upstream="https://llm.test/v1", trust_env=trust_env), None)
    async with upstream.open():
        assert upstream.client is not None
        assert upstream.client.trust_env is trust_env
        transport = upstream.client._transport_for_url(httpx.URL("https://llm.test/v1/models"))
        proxied = transport is not upstream.client._transport
        assert proxied is trust_env


@pytest.mark.anyio
async def test_ssl_cert_file_is_read_with_trust_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing-ca.pem"))
    with pytest.raises(FileNotFoundError):  # the private CA bundle is really opened
        async with Upstream(ServeConfig(upstream="https://llm.test/v1"), None).open():
            pass
    off = ServeConfig(upstream="https://llm.test/v1", trust_env=False)
    async with Upstream(off, None).open():  # ignored without trust_env
        pass


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# --- metrics -------------------------------------------------------------------------------------


def upstream_of(script: dict[str, Any]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        kind = script.get(body.get("model", ""), script["default"])
        if isinstance(kind, list):
            return httpx.Response(
                200, content=b"".join(kind), headers={"content-type": "text/event-stream"}
            )
        return httpx.Response(200, json=kind)

    return httpx.MockTransport(handler)


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample of the exposition ``text`` (0 when absent)."""
    from prometheus_client.parser import text_string_to_metric_families

    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return float(sample.value)
    return 0.0


def client_for(config: ServeConfig, script: dict[str, Any]) -> TestClient:
    return TestClient(create_app(config, transport=upstream_of(script)))


def test_metrics_count_requests_findings_closes_and_dropped_characters() -> None:
    script = {
        "leaky": CHAT_LEAKED,
        "forger": CHAT_FORGED,
        "whole-leak": chat_json("Done. <|channel|>analysis secret plan"),
        "default": CHAT_CLEAN,
    }
    config = ServeConfig(upstream="http://upstream.test/v1", on_leak="abort")
    with client_for(config, script) as client:
        for model in ("gpt-oss-clean", "leaky", "forger", "whole-leak"):
            stream = model != "whole-leak"
            r = client.post(
                "/v1/chat/completions", json={"model": model, "messages": USER, "stream": stream}
            )
            assert r.status_code == 200
        assert client.get("/healthz").status_code == 200
        assert client.post("/v1/chat/completions", content=b"{bad").status_code == 400
        exposition = client.get("/metrics")
    assert exposition.headers["content-type"].startswith("text/plain")
    text = exposition.text
    requests = "guard_serve_requests_total"
    assert metric(text, requests, route="chat", dialect="all", outcome="passed") == 1
    assert metric(text, requests, route="chat", outcome="aborted") == 2
    assert metric(text, requests, route="chat", outcome="forged") == 1
    assert metric(text, requests, route="chat", outcome="refused") == 1
    assert metric(text, requests, route="healthz", dialect="none", outcome="passed") == 1
    findings = "guard_serve_findings_total"
    assert metric(text, findings, kind="leak", signal="H", surface="text", dialect="all") == 2
    assert metric(text, findings, kind="forgery", signal="R", surface="text") == 1
    closes = "guard_serve_upstream_closes_total"
    assert metric(text, closes, reason="forged") == 1
    assert metric(text, closes, reason="leak_abort") == 1  # the stream; a whole body was read
    assert metric(text, "guard_serve_chars_dropped_total", dialect="all") > 0
    assert metric(text, "guard_serve_request_duration_seconds_count", route="chat") == 5
    # no request or response text in any label
    assert "secret plan" not in text and "weather" not in text


def test_each_app_has_its_own_registry_and_metrics_can_be_off() -> None:
    config = ServeConfig(upstream="http://upstream.test/v1")
    with (
        client_for(config, {"default": CHAT_CLEAN}) as one,
        client_for(config, {"default": CHAT_CLEAN}) as two,
    ):
        one.post("/v1/chat/completions", json={"model": "m", "messages": USER, "stream": True})
        name = "guard_serve_requests_total"
        assert metric(one.get("/metrics").text, name, route="chat") == 1
        assert metric(two.get("/metrics").text, name, route="chat") == 0
    off = ServeConfig(upstream="http://upstream.test/v1", metrics=False)
    with client_for(off, {"default": CHAT_CLEAN}) as client:
        assert client.get("/metrics").status_code == 404


def test_metrics_need_no_client_key_but_the_api_does() -> None:
    config = ServeConfig(upstream="http://upstream.test/v1", api_keys=("k1",))
    with client_for(config, {"default": CHAT_CLEAN}) as client:
        r = client.post("/v1/chat/completions", json={"model": "m", "messages": USER})
        assert r.status_code == 401
        text = client.get("/metrics").text
    assert metric(text, "guard_serve_requests_total", route="chat", outcome="refused") == 1


@pytest.mark.parametrize(
    ("path", "route"),
    [
        ("/v1/chat/completions", "chat"),
        ("/v1/responses", "responses"),
        ("/v1/messages", "messages"),
        ("/v1/models", "passthrough"),
        ("/healthz", "healthz"),
        ("/metrics", "metrics"),
        ("/anything/else", "other"),
    ],
)
def test_route_labels_are_bounded(path: str, route: str) -> None:
    assert route_of(path) == route


@pytest.mark.parametrize(
    ("status", "fields", "outcome"),
    [
        (200, {"forged": True, "leak": True, "cut": True}, "forged"),
        (200, {"forged": True, "leak": True}, "forged"),
        (200, {"aborted": True, "leak": True}, "aborted"),
        (200, {"aborted": True, "forged": True, "leak": True}, "aborted"),
        (200, {"leak": True, "cut": True}, "truncated"),
        (200, {"leak": True}, "reported"),
        (499, {"disconnected": True}, "disconnected"),
        (200, {"disconnected": True}, "disconnected"),
        (504, {"error": "DeadlineExceeded"}, "error"),
        (200, {"error": "ReadError"}, "error"),
        (413, {}, "refused"),
        (400, {"error": "invalid_json"}, "refused"),
        (200, {}, "passed"),
    ],
)
def test_outcome_labels(status: int, fields: dict[str, Any], outcome: str) -> None:
    assert outcome_of(status, fields) == outcome


# --- OpenTelemetry -------------------------------------------------------------------------------


def test_otel_spans_carry_guard_attributes() -> None:
    pytest.importorskip("opentelemetry.instrumentation.asgi")
    pytest.importorskip("opentelemetry.instrumentation.httpx")
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    config = ServeConfig(upstream="http://upstream.test/v1", on_leak="abort", otel=True)
    with client_for(config, {"default": CHAT_LEAKED}) as client:
        r = client.post(
            "/v1/chat/completions", json={"model": "gpt-oss-1", "messages": USER, "stream": True}
        )
        assert r.status_code == 200
    spans = exporter.get_finished_spans()
    servers = [s for s in spans if s.kind == trace.SpanKind.SERVER]
    clients = [s for s in spans if s.kind == trace.SpanKind.CLIENT]
    assert servers and clients, [s.name for s in spans]
    attributes = servers[-1].attributes or {}
    assert attributes["guard.leak"] is True and attributes["guard.aborted"] is True
    assert attributes["guard.forged"] is False and attributes["guard.dialect"] == "all"
    assert "H" in tuple(attributes["guard.signals"])  # type: ignore[arg-type]
    assert clients[-1].parent is not None
    assert clients[-1].parent.trace_id == servers[-1].context.trace_id
    # the GenAI conventions' request attributes beside guard's
    assert attributes["gen_ai.system"] == "openai"
    assert attributes["gen_ai.request.model"] == "gpt-oss-1"
    assert attributes["gen_ai.operation.name"] == "chat"
    # no span per ASGI message: a streamed answer of many events is one server span
    assert not [s for s in spans if s.kind == trace.SpanKind.INTERNAL], [s.name for s in spans]


def test_otel_does_not_instrument_a_globally_instrumented_httpx_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("opentelemetry.instrumentation.httpx")
    import httpx
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor

    from guard.serve._tracing import instrument_client

    calls: list[object] = []
    monkeypatch.setattr(HTTPXClientInstrumentor, "instrument_client", calls.append)
    instrumentor = HTTPXClientInstrumentor()
    instrumentor.instrument()
    try:
        instrument_client(httpx.AsyncClient())
        assert calls == []  # every client already makes spans (opentelemetry-instrument)
    finally:
        instrumentor.uninstrument()
    client = httpx.AsyncClient()
    instrument_client(client)
    assert calls == [client]


@pytest.mark.parametrize(
    ("variables", "provider"),
    [
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}, "TracerProvider"),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:9/v1/traces"}, "TracerProvider"),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_TRACES_EXPORTER": "none"},
            "ProxyTracerProvider",
        ),
        ({}, "ProxyTracerProvider"),
    ],
)
def test_otel_exports_over_otlp_when_only_the_endpoint_is_set(
    variables: dict[str, str], provider: str
) -> None:
    """The container's GUARD_OTEL=true with OTEL_EXPORTER_OTLP_ENDPOINT needs no other set-up;
    without an endpoint, or with OTEL_TRACES_EXPORTER=none, no provider is made."""
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
    code = (
        "from opentelemetry import trace\n"
        "from starlette.applications import Starlette\n"
        "from guard.serve._tracing import traced\n"
        "traced(Starlette())\n"
        "print(type(trace.get_tracer_provider()).__name__)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**env, **variables}
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == provider
