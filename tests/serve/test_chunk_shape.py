"""Chunk shapes (guard/wire/_shape.py): a read taken by a shape gives exactly the item the
JSON parser gives for its event, whatever the bytes between the shape's head and tail; a chunk
that cannot be proven to have a shape has none; and the chat relay with shapes relays every
stream as the general body does."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.fake_upstream import CHAT_CLEAN, chat_sse, sse_data
from test_relay_paths import MODES, both, per_event, split

from guard._json import loads
from guard.wire._shape import ChunkShape


def chunk(delta: dict[str, Any], **extra: Any) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", **extra, "choices": [choice]}


def wire(item: Any, *, compact: bool = False, ascii_only: bool = False) -> bytes:
    separators = (",", ":") if compact else (", ", ": ")
    text = json.dumps(item, separators=separators, ensure_ascii=ascii_only)
    return b"data: " + text.encode("utf-8") + b"\n\n"


def shape_of(item: dict[str, Any], **options: Any) -> ChunkShape | None:
    return ChunkShape.of(wire(item, **options), item)


def parsed(piece: bytes) -> Any:
    """What the relay's parser gives for a one-event read."""
    return loads(piece[6:-2].decode("utf-8"))


TEXT = st.text(st.characters(codec="utf-8"), max_size=12)


@settings(max_examples=200, deadline=None)
@given(
    first=TEXT,
    then=TEXT,
    field=st.sampled_from(["content", "reasoning_content", "reasoning"]),
    model=TEXT,
    compact=st.booleans(),
    ascii_only=st.booleans(),
)
def test_a_read_taken_by_a_shape_is_the_parsed_item(
    first: str, then: str, field: str, model: str, compact: bool, ascii_only: bool
) -> None:
    options = {"compact": compact, "ascii_only": ascii_only}
    shape = shape_of(chunk({field: first}, model=model), **options)
    piece = wire(chunk({field: then}, model=model), **options)
    item = None if shape is None else shape.read(piece)
    if item is not None:
        assert item == parsed(piece)
        assert list(item) == list(parsed(piece))  # the same key order (re-serialised alike)
    # a chunk whose text is a word found nowhere else, with nothing escaped around it, has a
    # shape, and the next one with a plain, printable text fits it
    model_plain = model.isascii() and _plain(model) and model.isprintable()
    if first.isascii() and first.isalnum() and first != model and model_plain:
        assert shape is not None
        if _plain(then) and then.isprintable() and (then.isascii() or not ascii_only):
            assert item is not None


def test_a_text_that_is_not_printable_is_parsed_instead() -> None:
    # U+18CD6 is unassigned in this Python's Unicode tables: not printable, so not taken
    shape = shape_of(chunk({"content": "0"}, model=""))
    assert shape is not None
    assert shape.read(wire(chunk({"content": "\U00018cd6"}, model=""))) is None
    assert shape.read(wire(chunk({"content": "1"}, model=""))) == chunk({"content": "1"}, model="")


def _plain(text: str) -> bool:
    return all(c not in '"\\' and c >= " " for c in text)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=24))
def test_any_bytes_between_head_and_tail_read_as_the_parser_reads_them(body: bytes) -> None:
    shape = shape_of(chunk({"content": "Hello"}, created=1754000000))
    assert shape is not None
    piece = shape.head + body + shape.tail
    item = shape.read(piece)
    # taken exactly when the bytes are UTF-8 of printable text without quote or backslash (the
    # rest is parsed instead)
    text = body.decode("utf-8") if _utf8(body) else None
    assert (item is not None) == (text is not None and _plain(text) and text.isprintable())
    if item is not None:
        assert item == parsed(piece)
        assert item["choices"][0]["delta"] == {"content": text}


def _utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_reads_of_other_shapes_are_not_taken() -> None:
    shape = shape_of(chunk({"content": "Hi"}))
    assert shape is not None
    assert shape.read(wire(chunk({"content": "Hi"}, model="other"))) is None
    assert shape.read(wire(chunk({"content": "a", "role": "assistant"}))) is None
    assert shape.read(wire(chunk({"content": 'say "hi"'}))) is None  # escaped: parsed instead
    assert shape.read(wire(chunk({"content": "line\nend"}))) is None
    assert shape.read(shape.head + b"\xff" + shape.tail) is None  # not UTF-8
    assert shape.read(shape.head[:-3] + shape.tail) is None  # head and tail overlap
    assert shape.read(b"data: [DONE]\n\n") is None
    assert shape.read(wire(chunk({"content": "Hi"}))) == chunk({"content": "Hi"})


@pytest.mark.parametrize(
    "item",
    [
        chunk({"content": "Hi"}, usage={"total_tokens": 3}),  # a value that is not a scalar
        chunk({"content": "Hi", "role": "assistant"}),  # a delta of two fields
        chunk({"content": None}),
        chunk({"tool_calls": []}),
        {"choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}]},
        {"choices": [{"delta": {"content": "Hi"}}, {"delta": {"content": "Hi"}}]},
        {"choices": []},
        chunk({"content": 'say "hi"'}),  # the string is not written plainly
        chunk({"content": "é"}),  # written as \u00e9 (ascii_only below)
        chunk({"content": "Hi"}, model="a\\b"),  # an escape around the string
        chunk({"content": "Hi"}, note="guardShapeMark"),  # the marker elsewhere
        # the same text earlier in the chunk: the marker proves it is not the content
        {"x": "Hi", "choices": [{"delta": {"content": "Hi"}}]},
        {"choices": [{"delta": {"content": "Hi"}}], "y": ["Hi"]},
    ],
)
def test_chunks_without_a_shape(item: dict[str, Any]) -> None:
    assert shape_of(item, ascii_only=True) is None


def test_events_that_are_not_one_data_line_have_no_shape() -> None:
    item = chunk({"content": "Hi"})
    one = wire(item)
    assert ChunkShape.of(one, item) is not None
    assert ChunkShape.of(one[:-1], item) is None
    assert ChunkShape.of(b"event: x\n" + one, item) is None
    assert ChunkShape.of(one.replace(b", ", b",\r "), item) is None
    assert ChunkShape.of(one, [item]) is None


def test_a_duplicate_key_is_read_as_the_parser_reads_it() -> None:
    """The last of two ``content`` keys is the item's: a shape whose string is the first one
    would be wrong, so there is none; one whose string is the last one is right."""
    first = b'data: {"choices": [{"delta": {"content": "Hi", "content": "Ho"}}]}\n\n'
    item = parsed(first)
    assert item == {"choices": [{"delta": {"content": "Ho"}}]}
    shape = ChunkShape.of(first, item)
    assert shape is not None
    piece = first.replace(b'"Ho"', b'"Hey"')
    assert shape.read(piece) == parsed(piece)
    assert shape.read(first.replace(b'"Hi"', b'"Hey"')) is None


# --- the chat relay with shapes against the general body -----------------------------------------


def _event(delta: dict[str, Any], **extra: Any) -> bytes:
    return sse_data(chunk(delta, **extra))


SHAPED = {
    # reasoning, then content; one read a chunk
    "long reasoning": b"".join(
        chat_sse([f"a{i} " for i in range(20)], reasoning=[f"r{i} " for i in range(20)])
    ),
    # text the shape cannot take (quotes, escapes, non-ASCII, a line end) between shaped reads
    "odd texts": b"".join(
        chat_sse(["one ", 'say "hi" ', "two ", "back\\slash ", "é ", "tab\t", "three ", "four "])
    ),
    # a leak that comes in shaped reads
    "leak in shaped reads": b"".join(
        chat_sse(["Sure. ", "Here ", "it ", "is ", "<|cha", "nnel|>analysis", " secret", " more"])
    ),
    # chunks that change around their text (a new id, an extra field) mid-stream
    "changing shape": b"".join(CHAT_CLEAN[:4])
    + _event({"content": "x "})
    + _event({"content": "y "}, system_fingerprint="fp")
    + _event({"content": "z "}, system_fingerprint="fp")
    + _event({"content": "w "})
    + b"".join(CHAT_CLEAN[4:]),
    # a shaped read with a non-UTF-8 byte in its text
    "bad byte": b"".join(CHAT_CLEAN[:6])
    + b'data: {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1754000000,'
    b' "model": "gpt-oss-120b", "choices": [{"index": 0, "delta": {"content": "\xff"},'
    b' "logprobs": null, "finish_reason": null}]}\n\n' + b"".join(CHAT_CLEAN[6:]),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(SHAPED))
def test_the_relay_with_shapes_relays_as_the_general_body(name: str, mode: str) -> None:
    for pieces in (per_event(SHAPED[name]), [SHAPED[name]]):
        fast, general = both(pieces, mode)
        assert fast == general
        assert fast[2]


def test_the_leak_in_shaped_reads_is_caught() -> None:
    (fast, _) = both(per_event(SHAPED["leak in shaped reads"]), "truncate")
    out, fields, _closed = fast
    assert b"<|cha" not in out and b"secret" not in out
    assert fields["cut"] is True


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(sorted(SHAPED)),
    st.sampled_from(MODES),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=10),
    st.none() | st.integers(min_value=0, max_value=30),
)
def test_any_split_of_a_shaped_stream_relays_alike(
    name: str, mode: str, cuts: list[int], fail_at: int | None
) -> None:
    fast, general = both(split(SHAPED[name], cuts), mode, fail_at=fail_at)
    assert fast == general
