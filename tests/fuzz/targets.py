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


# --- the wire engine ------------------------------------------------------------------------------

#: pieces the wire targets build strings from: reserved spellings, their halves, key-case folds
_PIECES = (
    "<|start|>",
    "<|channel|>",
    "<|message|>",
    "<|",
    "|>",
    "start",
    "assistant",
    "analysis",
    " ",
    "a",
    "ſ",
    "\u212a",
    "`",
    '"',
    "\\",
    "\n",
)
#: the spellings no string the wire engine hands on may hold
_RESERVED = ("<|start|>", "<|channel|>", "<|message|>")
_KEYS = ("messages", "Messages", "content", "type", "role", "x", "text", "delta", "refusal")


def _spelled(data: bytes) -> str:
    """A string made of :data:`_PIECES`, one byte a piece."""
    return "".join(_PIECES[b % len(_PIECES)] for b in data)


def _value(data: bytes, depth: int = 0) -> Any:
    """A JSON value from the bytes: objects and lists around :func:`_spelled` strings."""
    if not data:
        return ""
    head, rest = data[0], data[1:]
    if depth >= 4 or head % 4 == 0:
        return _spelled(rest[:12])
    if head % 4 == 1:
        return [_value(rest[i : i + 6], depth + 1) for i in range(0, min(len(rest), 18), 6)]
    if head % 4 == 2:
        return head // 4
    out: dict[str, Any] = {}
    for i in range(0, min(len(rest), 24), 8):
        part = rest[i : i + 8]
        key = _KEYS[part[0] % len(_KEYS)] if part else "k"
        out[key] = _value(part[1:], depth + 1)
    return out


def _strings(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [*node.keys(), *(s for v in node.values() for s in _strings(v))]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return [node] if isinstance(node, str) else []


def wire_request(data: bytes) -> None:
    """``prepare_request`` on any body: the body to send or a refusal (``RequestRefused``),
    never another exception; what it sends is JSON that holds no reserved spelling in any
    string, keys included, at any depth."""
    from guard.wire import RequestRefused, prepare_request

    mode = data[0] % 3 if data else 0
    rest = data[1:]
    if mode == 0:
        raw = rest
    else:
        body = _value(rest)
        body = body if isinstance(body, dict) else {"messages": [{"content": body}]}
        body.setdefault("model", "gpt-oss-20b")
        raw = json.dumps(body, ensure_ascii=mode == 1).encode()
    try:
        sent = prepare_request(raw)
    except RequestRefused:
        return
    parsed = json.loads(sent.raw)
    for text in _strings(parsed):
        assert not any(r in text for r in _RESERVED), f"a reserved spelling was sent: {text!r}"


_KINDS = ("chat", "responses", "messages")


def _answer_events(kind: str, data: bytes) -> bytes:
    """An SSE body of events of ``kind`` with fuzzed strings in known and unknown places."""
    events: list[Any] = []
    for i in range(0, len(data), 10):
        part = data[i : i + 10]
        text = _spelled(part[1:])
        shape = part[0] % 4
        if kind == "chat":
            delta: dict[str, Any] = (
                {"content": text}
                if shape == 0
                else {"refusal": text}
                if shape == 1
                else {"x": _value(part[1:])}
            )
            choice = {"index": part[0] % 2, "delta": delta, "finish_reason": None}
            event: Any = {"id": "c", "choices": [choice]}
            if shape == 3:
                event["note"] = text
        elif kind == "responses":
            names = ("response.output_text.delta", "response.output_text.done", "vendor.x", "")
            event = {"type": names[shape], "output_index": 0, "delta": text, "text": text}
            if shape == 3:
                event = {"type": "response.output_item.done", "item": _value(part[1:])}
        else:
            names = ("content_block_delta", "message_start", "vendor", "content_block_start")
            body = {"type": "text_delta", "text": text} if shape == 0 else _value(part[1:])
            event = {"type": names[shape], "index": 0, "delta": body, "message": body}
            event["content_block"] = {"type": "text", "text": text}
        events.append(event)
    out = b""
    for event in events:
        out += b"data: " + json.dumps(event).encode() + b"\n\n"
    return out + (b"data: [DONE]\n\n" if kind != "messages" else b"")


async def _relay(kind: str, wire: bytes) -> tuple[bytes, dict[str, Any]]:
    import httpx

    from guard.serve import ServeConfig
    from guard.serve._deadlines import Deadline
    from guard.serve._logging import AccessRecord
    from guard.serve._relay import ChatRelay, MessagesRelay, ResponsesRelay

    relays = {"chat": ChatRelay, "responses": ResponsesRelay, "messages": MessagesRelay}

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=wire)

    config = ServeConfig(upstream="http://upstream.test/v1")
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        resp = await client.send(
            client.build_request("POST", "http://upstream.test/v1/x"), stream=True
        )
        access = AccessRecord("POST", "/v1/x")
        relay = relays[kind](resp, "harmony", config, access, Deadline(60))
        out = b"".join([piece async for piece in relay.body()])
    return out, access.fields


def wire_answer(data: bytes) -> None:
    """The proxy's stream relays on any upstream SSE body (fuzzed bytes, or events with fuzzed
    strings in known and unknown places): the client's stream ends with a whole event, never
    with the proxy's own failure, and no string of any event, nor the strings of one place
    joined over the events, is a leak (a reserved spelling the detector does not excuse)."""
    import asyncio

    kind, rest = _pick(data, _KINDS)
    built = bool(rest) and rest[0] % 2 == 0
    wire = _answer_events(kind, rest[1:]) if built else rest[1:]
    out, fields = asyncio.run(_relay(kind, wire))
    # an upstream fault ends the stream with an error event; nothing else fails it
    assert fields.get("error") in (None, "UpstreamFault", "SSELimitError"), fields
    assert not out or out.endswith(b"\n\n"), out[-80:]
    if not built:
        return
    joined: dict[str, str] = {}
    for block in out.split(b"\n\n"):
        lines = [line[6:] for line in block.split(b"\n") if line.startswith(b"data: ")]
        if not lines or lines == [b"[DONE]"]:
            continue
        event = json.loads(b"\n".join(lines))
        kind = str(event.get("type", "chunk"))
        for path, text in _paths(event, kind):
            joined[path] = joined.get(path, "") + text
            _no_leak(text)
    for text in joined.values():
        _no_leak(text)


def _paths(node: Any, path: str) -> list[tuple[str, str]]:
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in _paths(v, f"{path}.{k}")]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _paths(v, f"{path}[{i}]")]
    return [(path, node)] if isinstance(node, str) else []


def _no_leak(text: str) -> None:
    """What went out is no leak by the detector's own judgment (a spelling quoted as code, for
    one, is not a leak and goes out)."""
    if any(r in text for r in _RESERVED):
        verdict = guard.detect(text, Surface.TEXT, "harmony")
        assert not verdict.leak, f"a leak went out: {text!r} ({verdict.reason})"


TARGETS: dict[str, Callable[[bytes], None]] = {
    "escape": escape_round_trip,
    "scanners": scanner_chunks,
    "detect": detect_any,
    "audit": audit_lines,
    "proxy": proxy_request,
    "wire_request": wire_request,
    "wire_answer": wire_answer,
}
