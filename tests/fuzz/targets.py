"""Fuzz targets: each takes the fuzzer's bytes and fails (raises) only on a real fault.

The same functions serve atheris (coverage-guided, :mod:`tests.fuzz.run`) and hypothesis (the
short run in ``pytest``, ``test_fuzz.py``). The first bytes of the input choose a dialect,
surface or chunking; the rest is the text, decoded as UTF-8 with replacement characters (and,
for the audit, passed as raw bytes).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from functools import cache
from typing import Any

import guard
from guard.dialects import DIALECTS
from guard.models import Surface
from guard.scanners import available_scanners, scanner

__all__ = ["TARGETS"]

_DIALECTS = sorted(DIALECTS)
_SCANNERS = available_scanners()
_SURFACES = [s.value for s in Surface]


def _pick(data: bytes, options: list[str] | tuple[str, ...]) -> tuple[str, bytes]:
    if not data:
        return options[0], b""
    return options[data[0] % len(options)], data[1:]


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def escape_round_trip(data: bytes) -> None:
    """``unescape(escape(t)) == t`` for every text and dialect, and escaped text holds no
    reserved spelling of the dialect."""
    name, rest = _pick(data, _DIALECTS)
    text = _text(rest)
    escaped = guard.escape(text, name)
    assert guard.unescape(escaped, name) == text, name
    assert guard.escape(escaped, name) is not None


def scanner_chunks(data: bytes) -> None:
    """Each registered scanner takes any text cut anywhere: no exception, and every call
    answers a list of events."""
    name, rest = _pick(data, _SCANNERS)
    cuts, rest = rest[:4], rest[4:]
    text = _text(rest)
    s = scanner(name)
    position = 0
    for cut in cuts:
        step = 1 + cut % 17
        chunk = text[position : position + step]
        position += step
        assert isinstance(s.feed(chunk), list)
    assert isinstance(s.feed(text[position:]), list)
    assert isinstance(s.flush(), list)


def detect_any(data: bytes) -> None:
    """``detect`` on any text, surface and dialect returns a verdict whose cut lies in it."""
    name, rest = _pick(data, _DIALECTS)
    surface, rest = _pick(rest, _SURFACES)
    text = _text(rest)
    verdict = guard.detect(text, surface, name)
    if verdict.cut is not None:
        assert 0 <= verdict.cut <= len(text)


_FORMATS = ("auto", "openai", "responses", "chatglm3", "harmony")
_SHAPES = (
    b'{"messages": [',
    b'{"input": [',
    b'{"history": [',
    b'[{"role": ',
    b"<|start|>",
    b"",
)


def audit_lines(data: bytes) -> None:
    """``guard.audit`` on any bytes in any format: a report, never an exception, never an
    internal error, and every error entry names a line of the input."""
    fmt, rest = _pick(data, _FORMATS)
    shape = _SHAPES[rest[0] % len(_SHAPES)] if rest else b""
    body = shape + rest[1:]
    report = guard.audit(io.BytesIO(body), format=fmt, max_line_bytes=4096)
    assert report.summary.internal_errors == 0, [e.error for e in report.errors if e.internal]
    lines = body.count(b"\n") + 1
    assert all(e.line is None or 1 <= e.line <= lines for e in report.errors)
    assert all(1 <= f.line <= lines for f in report.findings)


@cache
def _client() -> Any:
    """A TestClient on the proxy app; the upstream is an in-process fake that answers every
    chat request with the request's last message as the assistant's reply."""
    import httpx
    from starlette.testclient import TestClient

    from guard.serve import ServeConfig, create_app

    def upstream(request: httpx.Request) -> httpx.Response:
        try:
            body = json.loads(request.content or b"{}")
            messages = body.get("messages") if isinstance(body, dict) else None
            last = messages[-1].get("content") if isinstance(messages, list) and messages else ""
        except (ValueError, AttributeError, TypeError):
            last = ""
        reply = {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-oss-20b",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": str(last)},
                }
            ],
        }
        data = json.dumps(reply).encode()
        headers = {"content-type": "application/json"}
        return httpx.Response(200, headers=headers, stream=httpx.ByteStream(data))

    app = create_app(
        ServeConfig(upstream="http://upstream.invalid/v1"), transport=httpx.MockTransport(upstream)
    )
    client = TestClient(app, raise_server_exceptions=True)
    client.__enter__()  # runs the app's lifespan (its upstream client); open for the process
    return client


_PATHS = ("/v1/chat/completions", "/v1/responses", "/v1/models", "/v1/./chat/completions")


def proxy_request(data: bytes) -> None:
    """The proxy answers any request body on its routes without an unhandled exception, and
    every answer it makes itself on a JSON route is JSON."""
    path, rest = _pick(data, _PATHS)
    kind = rest[0] % 3 if rest else 0
    body = rest[1:]
    if kind == 1:  # a well-formed request around fuzzed text
        text = _text(body)
        body = json.dumps(
            {"model": "gpt-oss-20b", "messages": [{"role": "user", "content": text}]}
        ).encode()
    elif kind == 2:
        body = b'{"model": "gpt-oss-20b", "messages": ' + body + b"}"
    response = _client().post(path, content=body, headers={"content-type": "application/json"})
    if response.headers.get("content-type", "").startswith("application/json"):
        json.loads(response.content)


TARGETS: dict[str, Callable[[bytes], None]] = {
    "escape": escape_round_trip,
    "scanners": scanner_chunks,
    "detect": detect_any,
    "audit": audit_lines,
    "proxy": proxy_request,
}
