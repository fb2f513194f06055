"""Differential test: guard's Harmony scanner against openai-harmony's ``StreamableParser``.

Random assistant turns (analysis, preambles, function calls with the recipient in the role part
or the channel part, ``<|constrain|>`` glued or spaced, bare content types, built-in tools, finals,
several calls in one turn, unicode, look-alike spellings in bodies, long bodies) are rendered to
tokens, mostly by openai-harmony itself. The completion part (everything after the priming
``<|start|>assistant``) goes token by token into ``StreamableParser`` and, decoded to text and cut
into random chunks, into guard's scanner. Both must agree on the channel, recipient, content type
and content of every message. Guard's header parser (``parse_header``) must read every header as
openai-harmony does, and a header with two recipients as openai-harmony reads it before it
rejects the header: the last ``to=`` is the recipient.

openai-harmony loads ``o200k_base.tiktoken`` from the directory named by
``TIKTOKEN_ENCODINGS_BASE`` when that variable is set, verifying its SHA-256, and only downloads
when it is not set. The fixture writes guard's verified copy there first, so nothing touches the
network; a missing or wrong file makes the load fail instead.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from guard.encoding import o200k_base_bytes
from guard.models import (
    Event,
    Malformed,
    ResultForgery,
    Text,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolArgs,
    ToolEnd,
    ToolStart,
)
from guard.scanners import HarmonyScanner, parse_header

oh = pytest.importorskip("openai_harmony")

CONVERSATIONS = 600


@pytest.fixture(scope="module")
def encoding(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    base: Path = tmp_path_factory.mktemp("tiktoken-encodings")
    (base / "o200k_base.tiktoken").write_bytes(o200k_base_bytes())
    old = os.environ.get("TIKTOKEN_ENCODINGS_BASE")
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(base)
    try:
        enc = oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)
    finally:
        if old is None:
            del os.environ["TIKTOKEN_ENCODINGS_BASE"]
        else:
            os.environ["TIKTOKEN_ENCODINGS_BASE"] = old
    yield enc


# ---------------------------------------------------------------------------------------------
# generating turns


@dataclass(frozen=True)
class Spec:
    channel: str
    recipient: str | None
    content_type: str | None
    content: str
    recipient_in: str = "role"  # "role" or "channel"
    glued: bool = False  # "<|constrain|>" glued to the recipient (channel position only)


_PIECES = [
    *"abcdefghijklmnopqrstuvwxyz ABCXYZ 0123456789 .,:;!?-_/()[]{}'\"\n\t",
    " the ",
    " weather ",
    "é",
    "ß",
    "你好",
    "🙂",
    "Жук",
    "مرحبا",
    "\u200b",
    "<",
    ">",
    "|",
    "<|",
    "|>",
    "<|foo|>",
    "<|channel",
    "<|channel|>",
    "<|message|>",
    "<|constrain|>",
    "<|reserved_200100|>",
    "to=functions.x",
    "analysis",
    "```",
]


def _text(rng: random.Random, size: int) -> str:
    return "".join(rng.choice(_PIECES) for _ in range(size))


def _json_body(rng: random.Random, long: bool) -> str:
    value: dict[str, Any] = {
        "location": _text(rng, rng.randint(0, 12)),
        "n": rng.randint(-5, 10**6),
        "flag": rng.choice([True, False, None]),
    }
    if long:
        value["content"] = _text(rng, rng.randint(2000, 8000))
    if rng.random() < 0.3:
        value["nested"] = {"list": [_text(rng, 3) for _ in range(rng.randint(0, 4))]}
    return json.dumps(value, ensure_ascii=rng.random() < 0.3, indent=rng.choice([None, 2]))


def _body(rng: random.Random) -> str:
    long = rng.random() < 0.1
    return _text(rng, rng.randint(2000, 12000) if long else rng.randint(0, 60))


def random_turn(rng: random.Random) -> list[Spec]:
    specs: list[Spec] = []
    for _ in range(rng.randint(1, 7)):
        kind = rng.choice(["analysis", "analysis", "preamble", "call", "call", "call", "builtin"])
        if kind == "analysis":
            specs.append(Spec("analysis", None, None, _body(rng)))
        elif kind == "preamble":
            specs.append(Spec("commentary", None, None, _body(rng)))
        elif kind == "call":
            name = rng.choice(["get_weather", "edit", "bash", "read_file", "a", "lookup_v2"])
            ct = rng.choice([None, "json", "<|constrain|>json", "code"])
            where = rng.choice(["role", "channel"])
            glued = where == "channel" and ct == "<|constrain|>json" and rng.random() < 0.5
            body = _json_body(rng, rng.random() < 0.1)
            specs.append(Spec("commentary", f"functions.{name}", ct, body, where, glued))
        else:
            recipient = rng.choice(["browser.search", "browser.open", "python"])
            ct = rng.choice([None, "code", "json"])
            where = rng.choice(["role", "channel"])
            specs.append(Spec("analysis", recipient, ct, _body(rng), where))
    if rng.random() < 0.7:
        # No content type here: openai-harmony 0.0.8 reads a lone header word after the channel,
        # `<|constrain|>json` included, as a recipient; guard reads it as a content type.
        specs.append(Spec("final", None, None, _body(rng)))
    return specs


# ---------------------------------------------------------------------------------------------
# rendering


def _tokens(enc: Any, spec: Spec, last: bool) -> list[int]:
    """Tokens of one message: openai-harmony's own rendering for the role position, the same
    token structure built by hand for the channel position (openai-harmony never renders it)."""
    if spec.recipient_in == "role" or spec.recipient is None:
        msg = oh.Message.from_role_and_content(oh.Role.ASSISTANT, spec.content).with_channel(
            spec.channel
        )
        if spec.recipient:
            msg = msg.with_recipient(spec.recipient)
        if spec.content_type:
            msg = msg.with_content_type(spec.content_type)
        tokens = list(enc.render(msg))
    else:
        special = {"<|start|>", "<|channel|>", "<|constrain|>", "<|message|>", "<|call|>"}
        ct = ""
        if spec.content_type:
            ct = spec.content_type if spec.glued else " " + spec.content_type
        tokens = [
            *enc.encode("<|start|>", allowed_special=special),
            *enc.encode("assistant", disallowed_special=()),
            *enc.encode(
                f"<|channel|>{spec.channel} to={spec.recipient}{ct}", allowed_special=special
            ),
            *enc.encode("<|message|>", allowed_special=special),
            *enc.encode(spec.content, disallowed_special=()),
            *enc.encode("<|call|>", allowed_special=special),
        ]
    if last and spec.recipient is None and spec.channel == "final":
        assert enc.decode([tokens[-1]]) == "<|end|>"
        tokens[-1] = enc.encode("<|return|>", allowed_special="all")[0]
    return tokens


def completion(enc: Any, specs: list[Spec]) -> list[int]:
    """The assistant's tokens after the prompt's ``<|start|>assistant``."""
    tokens: list[int] = []
    for k, spec in enumerate(specs):
        tokens += _tokens(enc, spec, k == len(specs) - 1)
    prime = 1 + len(enc.encode("assistant", disallowed_special=()))
    assert enc.decode_utf8(tokens[:prime]) == "<|start|>assistant"
    return tokens[prime:]


# ---------------------------------------------------------------------------------------------
# comparing


@dataclass(frozen=True)
class Msg:
    channel: str | None
    recipient: str | None
    content_type: str | None
    content: str


def reference(enc: Any, tokens: list[int]) -> list[Msg]:
    parser = oh.StreamableParser(enc, oh.Role.ASSISTANT)
    for t in tokens:
        parser.process(t)
    parser.process_eos()
    return [
        Msg(m.channel, m.recipient, m.content_type, "".join(c.text for c in m.content))
        for m in parser.messages
    ]


def guard_messages(text: str, rng: random.Random) -> list[Msg]:
    scanner = HarmonyScanner(keep_headers=True)
    events: list[Event] = []
    pos = 0
    while pos < len(text):
        size = rng.choice([1, 1, 2, 3, 5, 8, 16, 64, 1000])
        events += scanner.feed(text[pos : pos + size])
        pos += size
    events += scanner.flush()
    assert "".join(e.raw for e in events) == text
    assert not [e for e in events if isinstance(e, Malformed | ResultForgery)], events
    assert scanner.headers is not None
    starts = [k for k, _ in scanner.headers] + [len(events)]
    messages: list[Msg] = []
    for (start, header), end in zip(scanner.headers, starts[1:], strict=True):
        part = events[start:end]
        first, last = part[0], part[-1]
        if header.recipient is not None:
            assert isinstance(first, ToolStart) and first.name == header.tool_name
            assert isinstance(last, ToolEnd)
            assert (last.channel, last.content_type) == (header.channel, header.content_type)
            content = last.arguments
            assert content == "".join(e.delta for e in part if isinstance(e, ToolArgs))
        elif header.channel == "analysis":
            assert isinstance(first, ThinkingStart) and isinstance(last, ThinkingEnd)
            content = "".join(e.delta for e in part if isinstance(e, ThinkingDelta))
        else:
            assert all(isinstance(e, Text) for e in part)
            content = "".join(e.text for e in part if isinstance(e, Text))
        messages.append(Msg(header.channel, header.recipient, header.content_type, content))
    return messages


def test_differential_agrees_with_openai_harmony_on_every_message(
    encoding: Any, examples: Callable[[int], int]
) -> None:
    conversations = examples(CONVERSATIONS)
    total_messages = 0
    total_chars = 0
    for seed in range(conversations):
        rng = random.Random(seed)
        specs = random_turn(rng)
        tokens = completion(encoding, specs)
        text = encoding.decode_utf8(tokens)
        expected = reference(encoding, tokens)
        assert len(expected) == len(specs)
        got = guard_messages(text, rng)
        assert got == expected, f"seed {seed}"
        total_messages += len(expected)
        total_chars += len(text)
    assert total_messages > 2 * conversations
    print(
        f"\ndifferential: {conversations} conversations, {total_messages} messages,"
        f" {total_chars:,} characters: all agree"
    )


def test_differential_channel_position_reference_parses_what_we_render(encoding: Any) -> None:
    """Sanity check of the hand-built tokens: openai-harmony reads the channel-position
    recipient and the glued ``<|constrain|>`` the same way as the role position."""
    spec = Spec("commentary", "functions.f", "<|constrain|>json", '{"a": 1}', "channel", True)
    (msg,) = reference(encoding, completion(encoding, [spec]))
    assert msg == Msg("commentary", "functions.f", "<|constrain|>json", '{"a": 1}')


# ---------------------------------------------------------------------------------------------
# the header parser alone


Header = tuple[str, str | None, str | None, str | None]


def _reference_header(enc: Any, tokens: list[int]) -> Header:
    (msg,) = enc.parse_messages_from_completion_tokens(tokens, role=None)
    author = msg.author.name or msg.author.role.value
    return author, msg.recipient or None, msg.channel, msg.content_type


def _header_text(enc: Any, tokens: list[int]) -> str:
    text: str = enc.decode_utf8(tokens)
    return text[: text.index("<|message|>") + len("<|message|>")]


def test_header_parser_agrees_with_openai_harmony_on_every_header(
    encoding: Any, examples: Callable[[int], int]
) -> None:
    conversations = examples(CONVERSATIONS)
    headers = 0
    for seed in range(conversations):
        specs = random_turn(random.Random(seed))
        for k, spec in enumerate(specs):
            tokens = _tokens(encoding, spec, k == len(specs) - 1)
            h = parse_header(_header_text(encoding, tokens))
            got = (h.author, h.recipient, h.channel, h.content_type)
            assert got == _reference_header(encoding, tokens), f"seed {seed}, message {k}"
            headers += 1
    assert headers > 2 * conversations


DOUBLE_RECIPIENTS = [
    "assistant to=functions.a to=functions.b<|channel|>commentary",  # role part
    "assistant<|channel|>commentary to=functions.a to=functions.b",  # channel part
    "assistant to=functions.a<|channel|>commentary to=functions.b",  # both
    "assistant to=functions.a<|channel|>commentary to=functions.b <|constrain|>json",
    "assistant<|channel|>commentary to=functions.a to=functions.b json",
    "assistant to=functions.b<|channel|>commentary to=functions.a",  # order decides, not name
]


@pytest.mark.parametrize("header", DOUBLE_RECIPIENTS)
def test_double_recipient_is_the_one_openai_harmony_consumes(encoding: Any, header: str) -> None:
    """openai-harmony reads the last ``to=`` as the recipient, then rejects the header for the
    one left over, which its error names. Guard keeps the consumed one."""
    tokens = encoding.encode(f"<|start|>{header}<|message|>{{}}<|call|>", allowed_special="all")
    with pytest.raises(Exception, match="unexpected tokens remaining in message header") as info:
        encoding.parse_messages_from_completion_tokens(tokens, role=None)
    left = re.search(r'Some\("(.*)"\)', str(info.value))
    assert left is not None, str(info.value)
    leftover = left.group(1).split()
    recipients = [w[3:] for w in header.replace("<|channel|>", " ").split() if w.startswith("to=")]
    consumed = [r for r in recipients if f"to={r}" not in leftover]
    assert consumed == [parse_header(header).recipient]
