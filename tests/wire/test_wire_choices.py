"""The request's ``n`` reaches the chat stream's guard: a leak that ends one choice stops the
stream (closes the upstream) only once every choice asked for has ended, so a server that
streams ``n`` choices one after another still delivers the later, clean ones."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.fake_upstream import FakeUpstream, Script, serve_app, sse_data

import guard
from guard.serve import ServeConfig, create_app
from guard.wire import ChoiceGuard, prepare_request

LEAK = "<|start|>assistant<|channel|>analysis<|message|>secret"
CLEAN = "Alpha beta gamma."


def chunk(delta: dict[str, Any], index: int = 0, finish: str | None = None) -> Any:
    choice = {"index": index, "delta": delta, "finish_reason": finish, "logprobs": None}
    return {"id": "c1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}


def sequential(leak_in: int) -> list[Any]:
    """Two choices streamed one after the other, choice ``leak_in`` leaking."""
    out: list[Any] = []
    for index in (0, 1):
        text = "Hi " + LEAK if index == leak_in else CLEAN
        out += [chunk({"content": text[:5]}, index), chunk({"content": text[5:]}, index)]
        out.append(chunk({}, index, "stop"))
    return out


def texts(chunks: list[Any]) -> dict[int, str]:
    out: dict[int, str] = {}
    for item in chunks:
        for choice in item.get("choices") or ():
            out[choice["index"]] = out.get(choice["index"], "") + (
                choice["delta"].get("content") or ""
            )
    return out


def drive(answer: ChoiceGuard, items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if answer.stopped:
            break
        out += answer.push(item)
    return out + answer.end()


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        (None, None, 1),
        ("n", 2, 2),
        ("N", 3, 3),
        ("n", 2.0, 2),
        ("n", True, 1),
        ("n", 0, 1),
        ("n", -4, 1),
        ("n", "2", 1),
        ("n", 2.5, 1),
        ("n", 10**6, 128),
    ],
)
def test_the_choices_a_request_asks_for(field: str | None, value: Any, expected: int) -> None:
    body: dict[str, Any] = {"model": "m", "messages": []}
    if field is not None:
        body[field] = value
    assert prepare_request(json.dumps(body).encode()).choices == expected


def test_an_infinite_n_asks_for_one_choice() -> None:
    assert prepare_request(b'{"model":"m","messages":[],"n":1e999}').choices == 1


def test_a_leak_in_the_first_of_two_sequential_choices_keeps_the_second() -> None:
    answer = ChoiceGuard("harmony", choices=2)
    out = drive(answer, sequential(0))
    assert texts(out) == {0: "Hi ", 1: CLEAN}
    assert answer.ended == {0: "truncated"}
    event = answer.guard_event()
    assert event is not None and event["guard"]["choices"] == [0]


def test_with_one_choice_asked_for_a_leak_stops_the_stream_at_once() -> None:
    answer = ChoiceGuard("harmony")
    items = sequential(0)
    answer.push(items[0])
    answer.push(items[1])
    assert answer.stopped  # the upstream is closed: no more tokens are paid for


def test_the_stream_stops_once_the_clean_choice_finished_and_the_other_leaked() -> None:
    answer = ChoiceGuard("harmony", choices=2)
    items = sequential(1)
    for item in items[:3]:
        answer.push(item)
    assert not answer.stopped
    answer.push(items[3])
    answer.push(items[4])  # choice 1 leaks; choice 0 had finished
    assert answer.stopped


def test_a_leak_outside_any_choice_ends_the_choices_still_to_come() -> None:
    answer = ChoiceGuard("harmony", choices=3)
    out = answer.push(chunk({"content": "Hi"}))
    out += answer.push({**chunk({"content": " there"}), "note": LEAK})
    assert answer.stopped
    ends = {c["index"]: c["finish_reason"] for o in out for c in o["choices"] if c["finish_reason"]}
    assert ends == {0: "stop", 1: "stop", 2: "stop"}
    assert LEAK not in json.dumps(out)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_a_bad_choice_count_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match="choices must be a positive integer"):
        ChoiceGuard("harmony", choices=bad)


# --- through the transport and the proxy ---------------------------------------------------------


def _stream_bytes(items: list[Any]) -> bytes:
    return b"".join(sse_data(item) for item in items) + b"data: [DONE]\n\n"


def _parsed(raw: bytes) -> list[Any]:
    out = []
    for block in raw.split(b"\n\n"):
        if block.startswith(b"data: ") and block != b"data: [DONE]":
            out.append(json.loads(block[6:]))
    return out


def test_the_transport_reads_n_from_the_request() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            headers={"content-type": "text/event-stream"},
            content=_stream_bytes(sequential(0)),
        )

    http = guard.http_client(transport=httpx.MockTransport(handler))
    body = {"model": "m", "messages": [], "n": 2, "stream": True}
    with http.stream("POST", "http://upstream.test/v1/chat/completions", json=body) as resp:
        out = _parsed(resp.read())
    assert texts(out) == {0: "Hi ", 1: CLEAN}


@pytest.fixture(scope="module")
def proxy() -> Iterator[tuple[FakeUpstream, str]]:
    with FakeUpstream() as fake, serve_app(create_app(ServeConfig(upstream=fake.url))) as url:
        yield fake, url


@pytest.mark.parametrize(("n", "second"), [(2, CLEAN), (None, None)])
def test_the_proxy_reads_n_from_the_request(
    proxy: tuple[FakeUpstream, str], n: int | None, second: str | None
) -> None:
    fake, url = proxy
    fake.reset()
    fake.script = Script(events=[sse_data(item) for item in sequential(0)])
    body: dict[str, Any] = {"model": "m", "messages": [], "stream": True}
    if n is not None:
        body["n"] = n
    resp = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=10)
    got = texts(_parsed(resp.content))
    assert got.get(0) == "Hi "
    assert got.get(1) == second  # without n, the stream stopped with the first choice's leak


# --- a spelling split over the events of a delta field the engine does not read ------------------


def refusals(out: list[Any]) -> str:
    return "".join(
        c["delta"].get("refusal") or "" for o in out for c in o.get("choices") or () if "delta" in c
    )


def pieces_of(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def test_the_first_fragment_of_a_split_spelling_is_held_back() -> None:
    answer = ChoiceGuard("harmony")
    first = answer.push(chunk({"refusal": "No <|sta"}))
    assert refusals(first) == "No "  # "<|sta" may still become a spelling: held
    rest = answer.push(chunk({"refusal": "rt|>assistant"}))
    out = first + rest + answer.end()
    assert refusals(out) == "No " and "<|" not in json.dumps(out)


def test_a_held_fragment_that_becomes_no_spelling_goes_out_with_the_next_string() -> None:
    answer = ChoiceGuard("harmony")
    out = answer.push(chunk({"refusal": "a <|ch"}))
    out += answer.push(chunk({"refusal": "eese|"}))
    assert refusals(out) == "a <|cheese|"


def test_a_held_fragment_goes_out_with_the_choices_finishing_chunk() -> None:
    answer = ChoiceGuard("harmony")
    out = answer.push(chunk({"refusal": "a <|ch"}))
    finishing = answer.push(chunk({}, 0, "stop"))
    assert refusals(finishing) == "<|ch" and finishing[-1]["choices"][0]["finish_reason"] == "stop"
    assert refusals(out + finishing + answer.end()) == "a <|ch"


def test_what_is_held_at_the_end_of_the_stream_goes_out_before_it_ends() -> None:
    answer = ChoiceGuard("harmony")
    out = answer.push(chunk({"refusal": "a <|ch"}))
    out += answer.end()
    assert refusals(out) == "a <|ch"


def test_report_mode_holds_nothing() -> None:
    answer = ChoiceGuard("harmony", on_leak="report")
    assert refusals(answer.push(chunk({"refusal": "a <|ch"}))) == "a <|ch"


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["Sorry <|ch <| <|channel no", "a <|sta", "<|"]),
    st.lists(st.integers(0, 40), max_size=5),
    st.booleans(),
)
def test_a_clean_field_split_anyhow_arrives_whole(text: str, cuts: list[int], finish: bool) -> None:
    answer = ChoiceGuard("harmony")
    out: list[Any] = []
    for piece in pieces_of(text, cuts):
        out += answer.push(chunk({"refusal": piece}))
    if finish:
        out += answer.push(chunk({}, 0, "stop"))
    out += answer.end()
    assert refusals(out) == text and not answer.verdicts


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 60), max_size=5))
def test_a_leaking_field_split_anyhow_lets_no_fragment_out(cuts: list[int]) -> None:
    text = "No. " + LEAK
    answer = ChoiceGuard("harmony")
    out: list[Any] = []
    for piece in pieces_of(text, cuts):
        out += answer.push(chunk({"refusal": piece}))
    out += answer.end()
    assert refusals(out) == "No. "
