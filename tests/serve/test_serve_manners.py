"""guard serve's manners (issue 32): the start-up line, a taken port failing before anything
starts, the upstream named in 502/504 answers, one ``guard.leak`` per finding, one outcome
vocabulary for the access log and the metrics, one ``server`` and one ``date`` header, and a
warning once per model name no dialect claims."""

from __future__ import annotations

import json
import logging
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient
from support.fake_upstream import (
    CHAT_CLEAN,
    CHAT_FORGED,
    CHAT_LEAKED,
    MESSAGES_FORGED,
    MESSAGES_MODEL,
    FakeUpstream,
    Script,
    chat_json,
    serve_app,
)

from guard import guard_stream
from guard.cli import main
from guard.errors import ConfigError
from guard.serve import ServeConfig, create_app
from guard.serve._listen import base_url, listen, start_line
from guard.serve._models import UnknownModels
from guard.serve._outcome import OUTCOMES, outcome_of
from guard.serve._secrets import mask_url, url_origin

USER = [{"role": "user", "content": "weather?"}]
SERVE_DOC = Path(__file__).resolve().parents[2] / "docs/serve.md"


class Events(logging.Handler):
    """Every guard event logged while it is attached to the ``guard`` logger (at INFO)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def named(self, event: str) -> list[dict[str, Any]]:
        return [
            dict(getattr(r, "guard_fields", {}) or {})
            for r in list(self.records)
            if getattr(r, "guard_event", None) == event
        ]


@pytest.fixture
def events() -> Iterator[Events]:
    handler = Events()
    logger = logging.getLogger("guard")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeUpstream]:
    with FakeUpstream() as upstream:
        yield upstream


def dead_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(check: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.01)


# --- 1. the start-up line ------------------------------------------------------------------------


def test_the_start_up_line_says_where_to_point_the_client(fake: FakeUpstream) -> None:
    """The real command on port 0: its first line on stdout names the base URL (with the port
    the system chose), the upstream with its password masked, the dialect and the mode."""
    upstream = fake.url.replace("http://", "http://me:hunter2@")
    command = [sys.executable, "-m", "guard", "serve", "--upstream", upstream, "--port", "0"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1
    )
    lines: list[str] = []
    reader = threading.Thread(
        target=lambda: lines.extend(iter(process.stdout.readline, "")),  # type: ignore[union-attr]
        daemon=True,
    )
    reader.start()
    try:
        wait_for(lambda: lines or process.poll() is not None, timeout=30)
        assert lines, "guard serve printed no start-up line"
        line = lines[0]
        pattern = r"guard: point base_url at (http://127\.0\.0\.1:(\d+)/v1) \((.*)\)\n"
        found = re.fullmatch(pattern, line)
        assert found, line
        assert int(found.group(2)) > 0
        assert "hunter2" not in line and "me:**********@127.0.0.1" in line
        assert "dialect all, on_leak truncate" in line
        # the line is true: a client pointed there reaches the proxy
        url = found.group(1).removesuffix("/v1")
        wait_for(lambda: _healthy(url), timeout=20)
    finally:
        process.terminate()
        try:
            _, err = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate(timeout=5)
    listen_event = next(json.loads(e) for e in err.splitlines() if '"guard.serve.listen"' in e)
    assert listen_event["base_url"] == found.group(1)
    assert "hunter2" not in listen_event["upstream"]


def _healthy(url: str) -> bool:
    try:
        return httpx.get(url + "/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:8787/v1"),
        ("0.0.0.0", "http://127.0.0.1:8787/v1"),
        ("::", "http://[::1]:8787/v1"),
        ("::1", "http://[::1]:8787/v1"),
        ("localhost", "http://localhost:8787/v1"),
    ],
)
def test_base_url_of_each_listening_address(host: str, url: str) -> None:
    assert base_url(host, 8787) == url


def test_start_line_names_the_dialect() -> None:
    config = ServeConfig(upstream="https://u:p4ss@llm.example:8443/v1", dialect="chatml")
    line = start_line(config, "127.0.0.1", 9000)
    assert line == (
        "guard: point base_url at http://127.0.0.1:9000/v1 (upstream"
        " https://u:**********@llm.example:8443/v1, dialect chatml, on_leak truncate)"
    )
    table = ServeConfig(upstream="http://x/v1", dialects={"mine": "chatml"}, on_leak="abort")
    assert start_line(table, "::", 1).endswith(
        "at http://[::1]:1/v1 (upstream http://x/v1, dialect from [serve.dialects] by model"
        " name, else all, on_leak abort)"
    )


@pytest.mark.parametrize(
    ("url", "masked", "origin"),
    [
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1", "http://127.0.0.1:8000"),
        (
            "https://me:s3cret@llm.example/v1",
            "https://me:**********@llm.example/v1",
            "https://llm.example:443",
        ),
        ("http://:tok@[::1]:81/v1?x=1", "http://:**********@[::1]:81/v1?x=1", "http://[::1]:81"),
        ("http://llm.example/v1", "http://llm.example/v1", "http://llm.example:80"),
    ],
)
def test_mask_url_and_origin(url: str, masked: str, origin: str) -> None:
    assert mask_url(url) == masked
    assert url_origin(url) == origin
    assert "s3cret" not in url_origin(url) and "tok" not in url_origin(url)


# --- 2. a taken port -----------------------------------------------------------------------------


def test_a_taken_port_fails_before_anything_starts(
    fake: FakeUpstream, events: Events, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command's own entry point (what ``python -m guard`` runs), in this process."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve", "--upstream", fake.url, "--port", str(port)])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert err == (
        f"guard serve: error: cannot listen on 127.0.0.1:{port}: the address is in use (another"
        " program listens there); choose another --port (GUARD_PORT) or stop that program\n"
    )
    # nothing started: no start-up line, no guard.serve.listen / guard.serve.start event
    assert out == ""
    assert not [r for r in events.records if r.name.startswith("guard.serve")]


def test_listen_raises_a_config_error_naming_the_address() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match=rf"127\.0\.0\.1:{port}: the address is in use"):
            listen("127.0.0.1", port)
    sock = listen("127.0.0.1", 0)  # a free one: bound and listening
    try:
        assert sock.getsockname()[1] > 0
    finally:
        sock.close()


def test_connections_accepted_on_the_listening_socket_send_without_delay() -> None:
    """Answers on a kept-alive connection are not held back by Nagle's algorithm: asyncio sets
    TCP_NODELAY on what the listening socket accepts (it only does for sockets made as TCP)."""
    import asyncio

    async def main() -> int:
        accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            sock = writer.get_extra_info("socket")
            accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(on_client, sock=listen("127.0.0.1", 0))
        async with server:
            port = server.sockets[0].getsockname()[1]
            _reader, writer = await asyncio.open_connection("127.0.0.1", port)
            nodelay = await asyncio.wait_for(accepted, 5)
            writer.close()
        return nodelay

    assert asyncio.run(main()) == 1


# --- 3. the upstream named in 502 and 504 --------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages"])
def test_a_refused_connection_names_the_upstream_and_the_cause(path: str) -> None:
    port = dead_port()
    config = ServeConfig(upstream=f"http://me:hunter2@127.0.0.1:{port}/v1", connect_timeout=5)
    body = {"model": "gpt-oss-120b", "messages": USER, "max_tokens": 8}
    with TestClient(create_app(config)) as client:
        r = client.post(path, json=body)
    assert r.status_code == 502
    data = r.json()
    if path == "/v1/messages":  # Anthropic's error shape
        assert data["type"] == "error" and data["error"]["type"] == "api_error"
    else:  # OpenAI's
        assert data["error"]["type"] == "upstream_error"
        assert data["error"]["code"] == "upstream_unreachable"
    message = data["error"]["message"]
    assert f"upstream http://127.0.0.1:{port} could not be reached" in message
    assert "connection refused" in message
    assert "hunter2" not in r.text and "me:" not in r.text


def _failing(exc: Exception) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        raise exc

    return httpx.MockTransport(handler)


def _raised_from(exc: Exception, cause: BaseException) -> Exception:
    exc.__cause__ = cause
    return exc


@pytest.mark.parametrize(
    ("exc", "status", "cause"),
    [
        (
            _raised_from(
                httpx.ConnectError("[Errno -2] Name or service not known"),
                socket.gaierror(-2, "Name or service not known"),
            ),
            502,
            "DNS lookup failed (Name or service not known; ConnectError)",
        ),
        (
            _raised_from(
                httpx.ConnectError("All connection attempts failed"),
                ConnectionRefusedError(111, "Connect call failed"),
            ),
            502,
            "connection refused",
        ),
        (httpx.ConnectTimeout("timed out"), 504, "connecting timed out (ConnectTimeout)"),
        (httpx.RemoteProtocolError("Server disconnected"), 502, "closed the connection early"),
    ],
)
def test_each_cause_is_named(exc: Exception, status: int, cause: str) -> None:
    config = ServeConfig(upstream="https://me:hunter2@llm.example/v1")
    app = create_app(config, transport=_failing(exc))
    with TestClient(app) as client:
        r = client.post("/v1/chat/completions", json={"model": "m", "messages": USER})
    assert r.status_code == status
    message = r.json()["error"]["message"]
    assert message.startswith("upstream https://llm.example:443 ")
    assert cause in message and "hunter2" not in message


# --- 4. one guard.leak per finding ---------------------------------------------------------------


@pytest.mark.parametrize("mode", ["truncate", "abort", "report"])
@pytest.mark.parametrize("name", ["forged", "leaked"])
def test_a_stream_logs_one_leak_event_per_finding(
    fake: FakeUpstream, events: Events, name: str, mode: str
) -> None:
    """Each of these recordings holds one finding (one leaking verdict): one ``guard.leak``,
    however many times the relay, the stream, the access record and the metrics ask."""
    fake.reset()
    fake.script = Script(events=CHAT_FORGED if name == "forged" else CHAT_LEAKED)
    config = ServeConfig(upstream=fake.url, on_leak=mode)  # type: ignore[arg-type]
    body = {"model": "gpt-oss-120b", "messages": USER, "stream": True}
    with serve_app(create_app(config)) as url:
        httpx.post(url + "/v1/chat/completions", json=body, timeout=10)
        wait_for(lambda: events.named("guard.serve.request"))
    (record,) = events.named("guard.serve.request")
    assert record["leak"] is True
    leaks = events.named("guard.leak")
    assert len(leaks) == 1, leaks
    assert leaks[0]["signals"][0] == "H"


def test_an_anthropic_stream_and_a_complete_answer_log_one_leak_event_each(
    fake: FakeUpstream, events: Events
) -> None:
    config = ServeConfig(upstream=fake.url)
    with serve_app(create_app(config)) as url, httpx.Client(timeout=10) as http:
        fake.reset()
        fake.script = Script(events=MESSAGES_FORGED)
        body = {"model": MESSAGES_MODEL, "max_tokens": 64, "messages": [], "stream": True}
        http.post(url + "/v1/messages", json=body)
        wait_for(lambda: len(events.named("guard.serve.request")) == 1)
        assert len(events.named("guard.leak")) == 1
        fake.script = Script(body=chat_json("Done. <|channel|>analysis secret plan"))
        http.post(url + "/v1/chat/completions", json={"model": "gpt-oss-1", "messages": USER})
        wait_for(lambda: len(events.named("guard.serve.request")) == 2)
        assert len(events.named("guard.leak")) == 2


def test_asking_a_stream_for_its_verdicts_again_logs_nothing_new(events: Events) -> None:
    items = [json.loads(e[len(b"data: ") :]) for e in CHAT_FORGED if b"[DONE]" not in e]
    stream = guard_stream(iter(items), on_leak="report")
    list(stream)  # type: ignore[arg-type]
    for _ in range(3):
        assert any(v.leak for v in stream.verdicts)
    assert len(events.named("guard.leak")) == 1


# --- 5. one outcome vocabulary -------------------------------------------------------------------


def _metric_outcomes(text: str) -> dict[str, float]:
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "guard_serve_requests_total" and sample.labels["route"] == "chat":
                word = sample.labels["outcome"]
                out[word] = out.get(word, 0.0) + sample.value
    return out


def _upstream_by_model() -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        model = json.loads(request.content).get("model", "")
        sse = {"content-type": "text/event-stream"}
        if model == "leaky":
            return httpx.Response(200, content=b"".join(CHAT_LEAKED), headers=sse)
        if model == "forger":
            return httpx.Response(200, content=b"".join(CHAT_FORGED), headers=sse)
        if model == "broken":
            return httpx.Response(500, json={"error": {"message": "overloaded"}})
        if model == "missing":
            return httpx.Response(404, json={"error": {"message": "no such model"}})
        return httpx.Response(200, content=b"".join(CHAT_CLEAN), headers=sse)

    return httpx.MockTransport(handler)


@pytest.mark.parametrize("mode", ["truncate", "abort", "report", "recover"])
def test_access_log_and_metrics_say_the_same_word(events: Events, mode: str) -> None:
    """Each request's access record ``outcome`` is the word the metric counted for it, and
    every word is one of the documented set."""
    config = ServeConfig(upstream="http://upstream.test/v1", on_leak=mode)  # type: ignore[arg-type]
    with TestClient(create_app(config, transport=_upstream_by_model())) as client:
        for model in ("gpt-oss-clean", "leaky", "forger", "broken", "missing", None):
            before = _metric_outcomes(client.get("/metrics").text)
            seen = len(events.named("guard.serve.request"))
            if model is None:
                r = client.post("/v1/chat/completions", content=b"{bad")
            else:
                body = {"model": model, "messages": USER, "stream": True}
                r = client.post("/v1/chat/completions", json=body)
            assert r.status_code in (200, 400, 404, 502)
            after = _metric_outcomes(client.get("/metrics").text)
            counted = [w for w in after if after[w] != before.get(w, 0.0)]
            logged = [
                e["outcome"]
                for e in events.named("guard.serve.request")[seen:]
                if e["path"] == "/v1/chat/completions"
            ]
            assert counted == logged and logged[0] in OUTCOMES, (model, counted, logged)
    words = {e["outcome"] for e in events.named("guard.serve.request")}
    expected = {"passed", "forged", "error", "refused"}
    leaked = {"truncate": "truncated", "abort": "aborted", "report": "reported"}
    expected.add(leaked.get(mode, "truncated"))  # a recovered answer was cut too
    assert expected <= words <= set(OUTCOMES)


def test_the_docs_list_exactly_the_outcome_words() -> None:
    text = SERVE_DOC.read_text(encoding="utf-8")
    section = text[text.index("### Outcomes") :]
    section = section[: section.index("\n## ")]
    listed = re.findall(r"^\| `([a-z]+)` \|", section, flags=re.MULTILINE)
    assert listed == list(OUTCOMES)


def test_every_outcome_word_is_reachable() -> None:
    cases = [
        (200, {"aborted": True, "leak": True}),
        (200, {"forged": True, "leak": True}),
        (200, {"cut": True, "leak": True}),
        (200, {"leak": True}),
        (499, {}),
        (502, {}),
        (401, {}),
        (200, {}),
    ]
    assert [outcome_of(status, fields) for status, fields in cases] == list(OUTCOMES)


# --- 6. one server and one date header -----------------------------------------------------------


def _upstream_with_server_headers() -> httpx.MockTransport:
    own = {"server": "upstream-server/1.0", "date": "Mon, 01 Jan 2001 00:00:00 GMT"}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            # a body not read yet, as a real transport's (passthrough relays it raw)
            json_type = {**own, "content-type": "application/json"}
            return httpx.Response(200, stream=httpx.ByteStream(b'{"data": []}'), headers=json_type)
        body = json.loads(request.content)
        if body.get("model") == "missing":
            return httpx.Response(404, json={"error": {"message": "no"}}, headers=own)
        if body.get("stream"):
            sse = {**own, "content-type": "text/event-stream"}
            return httpx.Response(200, content=b"".join(CHAT_CLEAN), headers=sse)
        return httpx.Response(200, json=chat_json("fine"), headers=own)

    return httpx.MockTransport(handler)


def test_each_answer_has_one_server_and_one_date_header() -> None:
    app = create_app(
        ServeConfig(upstream="http://upstream.test/v1"), transport=_upstream_with_server_headers()
    )
    with serve_app(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        streamed = {"model": "m", "messages": USER, "stream": True}
        answers = [
            http.post("/v1/chat/completions", json=streamed),
            http.post("/v1/chat/completions", json={"model": "m", "messages": USER}),
            http.post("/v1/chat/completions", json={"model": "missing", "messages": USER}),
            http.get("/v1/models"),
            http.get("/healthz"),
            http.post("/v1/chat/completions", content=b"{bad"),
        ]
    for r in answers:
        assert r.headers.get_list("server") == ["uvicorn"], (r.request.url, r.headers)
        (date,) = r.headers.get_list("date")
        assert "2001" not in date


# --- 7. a warning once per unknown model name ----------------------------------------------------


def _clean_upstream() -> httpx.MockTransport:
    return httpx.MockTransport(lambda request: httpx.Response(200, json=chat_json("fine")))


def test_an_unknown_model_name_is_warned_about_once(events: Events) -> None:
    config = ServeConfig(upstream="http://upstream.test/v1", dialects={"house-*": "chatml"})
    with TestClient(create_app(config, transport=_clean_upstream())) as client:
        for model in ("my-model", "my-model", "gpt-oss-20b", "house-llm", "other", "my-model"):
            r = client.post("/v1/chat/completions", json={"model": model, "messages": USER})
            assert r.status_code == 200
    warned = events.named("guard.serve.unknown_model")
    assert [w["model"] for w in warned] == ["my-model", "other"]
    assert all(w["dialect"] == "all" and "every dialect" in w["rules"] for w in warned)
    assert "[serve.dialects]" in warned[0]["rules"]


def test_a_forced_dialect_claims_every_name(events: Events) -> None:
    config = ServeConfig(upstream="http://upstream.test/v1", dialect="chatml")
    with TestClient(create_app(config, transport=_clean_upstream())) as client:
        client.post("/v1/chat/completions", json={"model": "my-model", "messages": USER})
    assert events.named("guard.serve.unknown_model") == []


def test_the_names_remembered_are_capped(events: Events) -> None:
    models = UnknownModels(limit=3)
    warned = [models.note(f"model-{i}", "all") for i in range(10)]
    assert warned == [True, True, True] + [False] * 7
    assert len(models.seen) == 3
    assert len(events.named("guard.serve.unknown_model")) == 3
    assert len(events.named("guard.serve.unknown_model_capped")) == 1
    assert models.note("model-0", "all") is False  # still once per name
