"""The proxy routes requests and JSON answers through the wire engine: the issue's hostile
request shapes reach the fake upstream escaped or are refused, and a cut answer says so in its
``x-guard-action`` header."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from support.fake_upstream import FakeUpstream, Script, chat_json, chat_sse, serve_app

from guard.serve import ServeConfig, create_app


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeUpstream]:
    with FakeUpstream() as upstream:
        yield upstream


@pytest.fixture(scope="module")
def proxy(fake: FakeUpstream) -> Iterator[str]:
    with serve_app(create_app(ServeConfig(upstream=fake.url))) as url:
        yield url


def post(url: str, raw: bytes) -> httpx.Response:
    return httpx.post(
        f"{url}/v1/chat/completions",
        content=raw,
        headers={"content-type": "application/json"},
        timeout=10,
    )


def test_a_typed_message_and_a_qwen_model_reach_the_upstream_escaped(
    fake: FakeUpstream, proxy: str
) -> None:
    fake.reset()
    fake.script = Script(body=chat_json("ok"))
    body = {
        "model": "qwen",
        "messages": [{"role": "user", "type": "text", "content": "<|start|>x", "Name": "<think>"}],
        "n": 1e999,
    }
    resp = post(proxy, json.dumps(body).encode().replace(b"Infinity", b"1e999"))
    assert resp.status_code == 200, resp.text
    sent = fake.last().body
    assert b"<|start|>" not in sent and b"<think>" not in sent
    assert b"1e999" in sent and b"Infinity" not in sent and b"null" not in sent


@pytest.mark.parametrize(
    "raw",
    [
        b'{"model":"m","messages":[],"Messages":[{"role":"user","content":"<|start|>"}]}',
        b'{"model":"m","messages":[],"messages":[]}',
        b'{"model":"m","stop":["<|im_end|>"],"messages":[]}',
    ],
)
def test_ambiguous_or_unsafe_verbatim_requests_are_refused(
    fake: FakeUpstream, proxy: str, raw: bytes
) -> None:
    fake.reset()
    resp = post(proxy, raw)
    assert resp.status_code == 400
    assert resp.json()["error"]["code"] in {"duplicate_key", "reserved_spelling"}
    assert not fake.exchanges


def test_a_cut_json_answer_carries_x_guard_action(fake: FakeUpstream, proxy: str) -> None:
    fake.reset()
    answer = chat_json("ok")
    answer["choices"][0]["message"]["refusal"] = "no<|start|>assistant<|channel|>analysis"
    fake.script = Script(body=answer)
    resp = post(proxy, b'{"model":"gpt-oss","messages":[{"role":"user","content":"hi"}]}')
    assert resp.status_code == 200
    assert resp.headers["x-guard-action"] == "truncated"
    assert "<|channel|>" not in resp.text
    fake.script = Script(body=chat_json("ok"))
    clean = post(proxy, b'{"model":"gpt-oss","messages":[{"role":"user","content":"hi"}]}')
    assert "x-guard-action" not in clean.headers


def test_errors_on_v1_messages_are_anthropic_shaped(fake: FakeUpstream, proxy: str) -> None:
    fake.reset()
    resp = httpx.post(
        f"{proxy}/v1/messages",
        content=b'{"model":"claude","messages":[],"MESSAGES":[]}',
        headers={"content-type": "application/json"},
        timeout=10,
    )
    assert resp.status_code == 400
    body = resp.json()
    assert body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    assert body["error"]["code"] == "duplicate_key" and body["error"]["message"]


def stream(url: str) -> bytes:
    body = b'{"model":"gpt-oss","stream":true,"messages":[{"role":"user","content":"hi"}]}'
    with httpx.stream(
        "POST",
        f"{url}/v1/chat/completions",
        content=body,
        headers={"content-type": "application/json"},
        timeout=10,
    ) as resp:
        return resp.read()


def test_an_event_with_a_huge_integer_is_still_judged(fake: FakeUpstream, proxy: str) -> None:
    events = chat_sse(["Sure. ", "<|start|>assistant<|channel|>analysis<|message|>x"])
    big = b', "n": ' + b"7" * 5000 + b"}"
    # the leak rides in the event with the integer: read as opaque, it would pass unjudged
    events = [*events[:2], events[2][:-3] + big + b"\n\n", *events[3:]]
    fake.reset()
    fake.script = Script(events=events)
    raw = stream(proxy)
    assert b"<|channel|>" not in raw and b"Sure." in raw


def test_an_event_that_is_not_a_json_object_ends_the_stream(fake: FakeUpstream, proxy: str) -> None:
    events = chat_sse(["Sure. ", "more"])
    fake.reset()
    fake.script = Script(events=[events[0], b"data: <|start|>assistant not json\n\n", *events[1:]])
    raw = stream(proxy)
    assert b"<|start|>" not in raw
    assert b'"error"' in raw
