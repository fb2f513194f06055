"""guard serve against hostile clients and broken upstreams: checked paths, one JSON error
contract with the connection kept, hop-by-hop headers, client keys, deadlines.

Requests with paths a client library would normalise are sent with ``http.client``, which
sends the request target as given."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import http.client
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.fake_upstream import CHAT_CLEAN, FakeUpstream, Script, chat_json, serve_app, sse_data

from guard.errors import ConfigError, PolicyError
from guard.serve import ServeConfig, create_app
from guard.serve._auth import ClientAuth, keys_from_env

USER = [{"role": "user", "content": "hi <|channel|>"}]
BODY = {"model": "gpt-oss-120b", "messages": USER}


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeUpstream]:
    with FakeUpstream() as upstream:
        yield upstream


@pytest.fixture(scope="module")
def proxy(fake: FakeUpstream) -> Iterator[str]:
    with serve(ServeConfig(upstream=fake.url, allow_passthrough=True)) as url:
        yield url


@contextlib.contextmanager
def serve(config: ServeConfig, transport: httpx.AsyncBaseTransport | None = None) -> Iterator[str]:
    with serve_app(create_app(config, transport=transport)) as url:
        yield url


def raw_request(
    url: str,
    method: str,
    target: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, list[tuple[str, str]], bytes]:
    """One request with the target sent exactly as given: (status, headers, body)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        conn.putrequest(method, target, skip_accept_encoding=True)
        for name, value in {"content-type": "application/json", **(headers or {})}.items():
            conn.putheader(name, value)
        conn.putheader("content-length", str(len(body or b"")))
        conn.endheaders(body or b"")
        resp = conn.getresponse()
        return resp.status, [(k.lower(), v) for k, v in resp.getheaders()], resp.read()
    finally:
        conn.close()


def nested(depth: int, leaf: str = '"x"') -> str:
    """JSON text of ``leaf`` inside ``depth`` lists (written by hand: json.dumps recurses)."""
    return "[" * depth + leaf + "]" * depth


def request_with(field: str, value: str) -> bytes:
    # the field replaces BODY's own: a repeated key is refused (issue 28) before anything else
    head = json.dumps({k: v for k, v in BODY.items() if k != field})[:-1]
    return f'{head}, "{field}": {value}}}'.encode()


def assert_error(status: int, body: bytes, expected: int, code: str) -> dict[str, Any]:
    assert status == expected, body[:300]
    error = json.loads(body)["error"]
    assert error["code"] == code and {"message", "type", "code"} <= error.keys()
    return error


# --- paths ---------------------------------------------------------------------------------------

DOT_PATHS = [
    "/v1/./chat/completions",
    "/v1/x/../chat/completions",
    "/v1/%2e/chat/completions",
    "/v1/%2E/chat/completions",
    "/v1/x/%2e%2e/chat/completions",
    "/v1/chat/completions/.",
    "/v1/chat/completions/%2e",
    "/v1/responses/../chat/completions",
    "/v1/../admin",
    "/v1/%2e%2e/admin",
    "/v1//chat/completions",
    "/v1/chat/completions/",
    "/v1/chat\\completions",
    "/v1/chat%5ccompletions",
    "/v1/chat%2fcompletions",
    "/v1/models/%00",
    "/v1/models/%ff",
]


@pytest.mark.parametrize("path", DOT_PATHS)
def test_paths_with_dot_or_empty_segments_are_refused_before_the_upstream(
    proxy: str, fake: FakeUpstream, path: str
) -> None:
    fake.reset()
    fake.script = Script(body=chat_json("answer <|start|>assistant leaked"))
    for method in ("POST", "GET"):
        status, _, body = raw_request(proxy, method, path, json.dumps(BODY).encode())
        error = assert_error(status, body, 400, "invalid_path")
        assert error["type"] == "invalid_request_error"
    assert fake.exchanges == []  # the upstream never saw it, guarded or not


def test_checked_paths_still_route_and_reach_the_upstream_encoded(
    proxy: str, fake: FakeUpstream
) -> None:
    fake.reset()
    fake.script = Script(body=chat_json("fine <|channel|>analysis"))
    status, _, body = raw_request(proxy, "POST", "/v1/chat/completions", json.dumps(BODY).encode())
    assert status == 200 and json.loads(body)["choices"][0]["message"]["content"] == "fine "
    assert fake.last().path == "/v1/chat/completions"
    # an encoded letter is the letter: still the guarded route
    status, _, body = raw_request(
        proxy, "POST", "/v1/chat/c%6fmpletions", json.dumps(BODY).encode()
    )
    assert status == 200 and json.loads(body)["choices"][0]["message"]["content"] == "fine "
    assert json.loads(fake.last().body)["messages"][0]["content"] == "hi <\\|channel\\|>"
    # a double-encoded dot reaches the upstream as a literal "%2e", never as a dot segment
    fake.script = Script(body={"object": "list", "data": []})
    status, _, _ = raw_request(proxy, "GET", "/v1/models/%252e%252e?x=1")
    assert status == 200 and fake.last().path == "/v1/models/%252e%252e?x=1"


def test_under_base_and_normalise_path_units() -> None:
    from guard.serve._paths import PathError, normalise_path, quote_path, under_base

    assert under_base(b"/v1/chat/completions", b"/v1")
    assert under_base(b"/api/v1/x", b"/api/v1/")
    for raw in (b"/v1", b"/admin", b"/v1x/y", b"/v1/../admin", b"/v1/%2e%2e/admin", b"/v1//x"):
        assert not under_base(raw, b"/v1"), raw
    assert normalise_path(b"/v1/models/caf%C3%A9") == "/v1/models/café"
    assert quote_path("/v1/models/café a%") == "/v1/models/caf%C3%A9%20a%25"
    assert normalise_path(b"/") == "/"
    for bad in (b"v1/x", b"/v1/%2E%2e/x", b"/v1/x/"):
        with pytest.raises(PathError):
            normalise_path(bad)
    assert issubclass(PathError, ValueError)


# --- the error contract --------------------------------------------------------------------------


def pooled_pair(
    url: str, first: dict[str, Any], then: dict[str, Any]
) -> tuple[httpx.Response, httpx.Response, bool]:
    """Two requests on one pooled client: (first, second, whether the second reused the first's
    connection)."""
    with httpx.Client(base_url=url, timeout=10, limits=httpx.Limits(max_connections=1)) as client:
        one = client.request(**first)
        stream_one = one.extensions.get("network_stream")
        two = client.request(**then)
        return one, two, two.extensions.get("network_stream") is stream_one


CONTENT_500 = '[{"role": "user", "content": ' + nested(500, '{"type": "text"}') + "}]"
TOOL_500 = '[{"type": "function", "function": {"name": "f", "parameters": ' + nested(500, "{}")
TOOL_500 += "}}]"


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (request_with("metadata", nested(1000)), "nesting_too_deep"),
        (request_with("metadata", nested(100_000)), "nesting_too_deep"),
        (request_with("messages", CONTENT_500), "nesting_too_deep"),
        (request_with("tools", TOOL_500), "nesting_too_deep"),
        (request_with("messages", '[{"role": "user", "content": "\\ud800"}]'), "invalid_unicode"),
        (b"\xff\xfe{", "invalid_unicode"),
        (b"[1, 2]", "invalid_json"),
    ],
    ids=["1000", "100000", "content500", "tool500", "surrogate", "utf8", "array"],
)
def test_hostile_bodies_get_a_400_json_error_and_the_connection_stays(
    proxy: str, fake: FakeUpstream, content: bytes, code: str
) -> None:
    fake.reset()
    fake.script = Script(body=chat_json("ok"))
    first = {"method": "POST", "url": "/v1/chat/completions", "content": content}
    then = {"method": "POST", "url": "/v1/chat/completions", "json": BODY}
    one, two, reused = pooled_pair(proxy, first, then)
    assert_error(one.status_code, one.content, 400, code)
    assert two.status_code == 200 and reused
    assert len(fake.exchanges) == 1  # only the second one was forwarded


def test_a_paired_surrogate_passes(proxy: str, fake: FakeUpstream) -> None:
    fake.reset()
    fake.script = Script(body=chat_json("ok"))
    content = (
        b'{"model": "m", "messages": [{"role": "user", "content": "\\ud83d\\ude00 \\\\ud800"}]}'
    )
    r = httpx.post(proxy + "/v1/chat/completions", content=content, timeout=10)
    assert r.status_code == 200
    assert fake.last().json["messages"][0]["content"] == "\U0001f600 \\ud800"


class Streamed(httpx.AsyncByteStream):
    """A mock upstream body that is streamed, as a real one is (not read up front)."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    async def __aiter__(self) -> Any:
        yield self.data


def mock_upstream(handler: Any, **settings: Any) -> Any:
    config = ServeConfig(upstream="http://upstream.test/v1", **settings)
    return serve(config, transport=httpx.MockTransport(handler))


def test_an_upstream_body_nested_50000_levels_is_a_502(fake: FakeUpstream) -> None:
    deep = b"[" * 50_000 + b"]" * 50_000
    shallow_but_deep = ('{"output": [], "extra": ' + nested(200) + "}").encode()

    def handler(request: httpx.Request) -> httpx.Response:
        body = deep if request.url.path.endswith("completions") else shallow_but_deep
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    with mock_upstream(handler) as url:
        first = {"method": "POST", "url": "/v1/chat/completions", "json": BODY}
        one, two, reused = pooled_pair(url, first, {"method": "GET", "url": "/healthz"})
        error = assert_error(one.status_code, one.content, 502, "bad_body")
        assert error["type"] == "upstream_error" and reused and two.status_code == 200
        r = httpx.post(url + "/v1/responses", json={"model": "m", "input": "hi"}, timeout=10)
        assert_error(r.status_code, r.content, 502, "bad_body")


def test_an_upstream_event_nested_too_deep_ends_the_stream_with_an_error_event() -> None:
    events = [CHAT_CLEAN[0], b"data: " + b"[" * 50_000 + b"]" * 50_000 + b"\n\n", CHAT_CLEAN[1]]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, content=b"".join(events), headers={"content-type": "text/event-stream"}
        )

    with mock_upstream(handler) as url:
        r = httpx.post(url + "/v1/chat/completions", json={**BODY, "stream": True}, timeout=10)
    assert r.status_code == 200
    last = [e for e in r.content.split(b"\n\n") if e][-1]
    assert json.loads(last[len(b"data: ") :])["error"]["type"] == "upstream_error"


def test_internal_faults_and_refused_methods_are_json_too(
    proxy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from guard.serve import _app

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("bug")

    monkeypatch.setattr(_app, "prepare_request", broken)
    first = {"method": "POST", "url": "/v1/chat/completions", "json": BODY}
    one, two, reused = pooled_pair(proxy, first, {"method": "GET", "url": "/healthz"})
    error = assert_error(one.status_code, one.content, 500, "internal_error")
    assert error["type"] == "server_error" and "RuntimeError" in error["message"]
    assert two.status_code == 200 and reused
    status, _, body = raw_request(proxy, "TRACE", "/healthz")
    assert_error(status, body, 405, "method_not_allowed")


# --- deadlines -----------------------------------------------------------------------------------


def test_total_deadline_before_the_answer_is_a_504() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(5)
        return httpx.Response(200, json=chat_json("late"))

    with mock_upstream(handler, total_timeout=0.3) as url:
        first = {"method": "POST", "url": "/v1/chat/completions", "json": BODY}
        one, two, reused = pooled_pair(url, first, {"method": "GET", "url": "/healthz"})
    error = assert_error(one.status_code, one.content, 504, "upstream_deadline")
    assert "0.3 s" in error["message"] and reused and two.status_code == 200


def test_idle_timeout_before_the_answer_is_a_504() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("silent", request=request)

    with mock_upstream(handler, read_timeout=1) as url:
        r = httpx.post(url + "/v1/chat/completions", json=BODY, timeout=10)
    assert_error(r.status_code, r.content, 504, "upstream_timeout")


@pytest.mark.parametrize(
    ("settings", "delay"), [({"total_timeout": 1.0}, 0.2), ({"read_timeout": 0.5}, 2.0)]
)
def test_deadlines_mid_stream_end_it_with_an_error_event(
    fake: FakeUpstream, settings: dict[str, float], delay: float
) -> None:
    events = [sse_data({"choices": [{"index": 0, "delta": {"content": "w0 "}}]})]
    events += [sse_data({"choices": [{"index": 0, "delta": {"content": "more "}}]})] * 20
    fake.reset()
    fake.script = Script(events=events, delay=delay)
    with serve(ServeConfig(upstream=fake.url, **settings)) as url:
        client = openai.OpenAI(base_url=url + "/v1", api_key="k", max_retries=0, timeout=10)
        got = []
        with pytest.raises(openai.APIError, match="upstream stream failed"):
            for chunk in client.chat.completions.create(
                model="gpt-oss-120b", messages=USER, stream=True
            ):
                got.append(chunk.choices[0].delta.content)
        assert got and got[0] == "w0 "
    assert fake.last(timeout=5).closed_by_client


def test_timeouts_from_the_policy_file_and_their_checks(tmp_path: Any) -> None:
    path = tmp_path / "p.toml"
    path.write_text("[serve]\nread_timeout = 12\ntotal_timeout = 34\n")
    config = ServeConfig.load("http://127.0.0.1:1/v1", policy_file=path)
    assert (config.read_timeout, config.total_timeout) == (12, 34)
    assert ServeConfig.load("http://x/v1", policy_file=path, total_timeout=5).total_timeout == 5
    path.write_text('[serve]\ntotal_timeout = "soon"\n')
    with pytest.raises(PolicyError, match="soon"):
        ServeConfig.load("http://127.0.0.1:1/v1", policy_file=path)
    with pytest.raises(ConfigError, match="total_timeout"):
        ServeConfig(upstream="http://x/v1", total_timeout=0)
    with pytest.raises(ConfigError, match="api_keys"):
        ServeConfig(upstream="http://x/v1", api_keys=(" k",))
    assert "secret" not in repr(ServeConfig(upstream="http://x/v1", api_keys=("secret",)))


# --- headers -------------------------------------------------------------------------------------


def test_hop_by_hop_headers_are_dropped_both_ways() -> None:
    seen: list[httpx.Headers] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers)
        headers = [
            ("content-type", "application/json"),
            ("connection", "X-Up-Hop, keep-alive"),
            ("x-up-hop", "1"),
            ("keep-alive", "timeout=5"),
            ("x-up-end", "2"),
            ("set-cookie", "a=1"),
            ("set-cookie", "b=2"),
        ]
        return httpx.Response(
            200, headers=headers, stream=Streamed(json.dumps(chat_json("ok")).encode())
        )

    with mock_upstream(handler) as url:
        for path in ("/v1/chat/completions", "/v1/models"):
            headers = {
                "Connection": "keep-alive, X-Client-Hop",
                "X-Client-Hop": "1",
                "Keep-Alive": "timeout=5",
                "TE": "trailers",
                "Trailer": "X-T",
                "Proxy-Connection": "keep-alive",
                "X-Client-End": "2",
            }
            method = "POST" if "chat" in path else "GET"
            status, got, _ = raw_request(url, method, path, json.dumps(BODY).encode(), headers)
            assert status == 200
            sent = seen[-1]
            for name in ("x-client-hop", "keep-alive", "te", "trailer", "proxy-connection"):
                assert name not in sent, name
            assert sent["x-client-end"] == "2"
            names = [k for k, _ in got]
            assert "x-up-hop" not in names and "keep-alive" not in names
            assert ("x-up-end", "2") in got
            assert [v for k, v in got if k == "set-cookie"] == ["a=1", "b=2"]


def test_request_header_rules_unit() -> None:
    from guard.serve._headers import request_headers

    pairs = [("Connection", "x-a"), ("X-A", "1"), ("Authorization", "Bearer c"), ("X-B", "2")]
    assert request_headers(pairs, guarded=False) == [("Authorization", "Bearer c"), ("X-B", "2")]
    up = ("authorization", "Bearer u")
    assert request_headers(pairs, guarded=True, credential=up) == [("X-B", "2"), up]
    assert request_headers(pairs, guarded=False, consume_credentials=True) == [("X-B", "2")]


# --- client keys ---------------------------------------------------------------------------------


def test_client_keys_are_checked_and_replaced_by_the_upstream_key() -> None:
    seen: list[httpx.Headers] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers)
        body = json.dumps(chat_json("ok")).encode()
        return httpx.Response(
            200, headers={"content-type": "application/json"}, stream=Streamed(body)
        )

    with mock_upstream(handler, api_keys=("k-one", "k-two"), upstream_api_key="up-key") as url:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"X-Api-Key": "k-one "[:-2]}):
            r = httpx.post(url + "/v1/chat/completions", json=BODY, headers=headers, timeout=10)
            error = assert_error(r.status_code, r.content, 401, "invalid_api_key")
            assert error["type"] == "authentication_error"
        assert seen == []
        assert httpx.get(url + "/healthz", timeout=10).status_code == 200
        r = httpx.post(
            url + "/v1/chat/completions",
            json=BODY,
            headers={"Authorization": "Bearer k-two"},
            timeout=10,
        )
        assert r.status_code == 200 and seen[-1]["authorization"] == "Bearer up-key"
        r = httpx.post(
            url + "/v1/messages",
            json={"model": "m", "max_tokens": 5, "messages": USER},
            headers={"X-Api-Key": "k-one", "Cookie": "s=1"},
            timeout=10,
        )
        assert seen[-1]["x-api-key"] == "up-key" and "authorization" not in seen[-1]
        assert seen[-1]["cookie"] == "s=1"  # other headers are forwarded as they came
    with mock_upstream(handler, api_keys=("k-one",)) as url:
        r = httpx.get(url + "/v1/models", headers={"Authorization": "Bearer k-one"}, timeout=10)
        assert r.status_code == 200 and "authorization" not in seen[-1]


def test_client_auth_compares_every_key_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr("guard.serve._auth.hmac.compare_digest", spy)
    auth = ClientAuth(["a1", "b2", "c3"])
    assert auth.check({"authorization": "Bearer a1"}) == "authorization"
    assert len(calls) == 3  # no early exit on the first match
    assert auth.check({"authorization": "Basic a1"}) is None
    assert auth.check({"x-api-key": "c3"}) == "x-api-key"
    assert auth.check({}) is None and not ClientAuth([]).enabled
    assert keys_from_env({"GUARD_API_KEYS": " a, ,b "}) == ("a", "b")


def test_cli_passes_keys_and_deadlines(monkeypatch: pytest.MonkeyPatch) -> None:
    import guard.serve
    from guard.cli import main

    got: list[Any] = []
    monkeypatch.setattr(guard.serve, "run", lambda config, host, port, **_: got.append(config) or 0)
    monkeypatch.setenv("GUARD_API_KEYS", "env-1,env-2")
    monkeypatch.setenv("GUARD_UPSTREAM_API_KEY", "up")
    argv = ["serve", "--upstream", "http://x/v1", "--api-key", "flag-1", "--total-timeout", "9"]
    assert main([*argv, "--read-timeout", "3"]) == 0
    config = got[-1]
    assert config.api_keys == ("flag-1", "env-1", "env-2") and config.upstream_api_key == "up"
    assert (config.read_timeout, config.total_timeout) == (3, 9)


SEGMENT = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/\\"), min_size=1
).filter(lambda s: s not in (".", ".."))


@settings(max_examples=100, deadline=None)
@given(st.lists(SEGMENT, min_size=1, max_size=5))
def test_checked_paths_round_trip_through_the_upstream_encoding(segments: list[str]) -> None:
    from guard.serve._paths import normalise_path, quote_path, under_base

    path = "/v1/" + "/".join(segments)
    wire = quote_path(path).encode("ascii")
    assert normalise_path(wire) == path
    assert under_base(wire, b"/v1")  # a "%" or "%2e" in a segment stays a literal there


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["v1", ".", "..", "%2e", "%2E", "", "a", "%2f", "%5c", "%25"])))
def test_any_accepted_path_has_one_reading(parts: list[str]) -> None:
    from guard.serve._paths import PathError, normalise_path

    raw = ("/" + "/".join(parts)).encode()
    try:
        path = normalise_path(raw)
    except PathError:
        return
    segments = path.split("/")[1:] if path != "/" else []
    assert all(s not in ("", ".", "..") and "\\" not in s for s in segments)
