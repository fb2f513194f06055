"""Harmony scanner throughput (MB/s of raw stream) beside openai-harmony's ``StreamableParser``
fed the same completion's tokens, in one run.

Two completions: one with long bodies (analysis, a call with a large argument, a final answer)
and one with many short messages. guard's scanner is fed the text of one token per ``feed``
(what a streaming server delivers), and also the whole completion in one call; the parser is fed
the token ids one by one. Needs ``openai-harmony`` (the ``dev`` extra); the vocabulary comes from
guard's verified offline copy, never from the network.

    python benchmarks/bench_scanner.py [--size 200000]
"""

from __future__ import annotations

import argparse
import codecs
import os
import random
import tempfile
from pathlib import Path
from typing import Any

from _common import machine, prose, timeit

from guard.encoding import o200k_base_bytes
from guard.scanners import HarmonyScanner


def load_encoding(tmp: Path) -> Any:
    import openai_harmony as oh

    (tmp / "o200k_base.tiktoken").write_bytes(o200k_base_bytes())
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(tmp)
    return oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)


def message(
    channel: str, content: str, recipient: str | None = None, content_type: str | None = None
) -> Any:
    import openai_harmony as oh

    msg = oh.Message.from_role_and_content(oh.Role.ASSISTANT, content).with_channel(channel)
    if recipient:
        msg = msg.with_recipient(recipient)
    if content_type:
        msg = msg.with_content_type(content_type)
    return msg


def completion_tokens(enc: Any, messages: list[Any]) -> list[int]:
    """Tokens of the messages, without the prompt's ``<|start|>assistant``."""
    tokens: list[int] = []
    for msg in messages:
        tokens += enc.render(msg)
    return tokens[1 + len(enc.encode("assistant", disallowed_special=())) :]


def long_bodies(size: int) -> list[Any]:
    third = size // 3
    code = prose(third, seed=3).replace(". ", ';\\n    x = "é"\\n')
    return [
        message("analysis", prose(third, seed=1)),
        message(
            "commentary", f'{{"path": "a.py", "content": "{code}"}}', "functions.write", "json"
        ),
        message("final", prose(third, seed=2)),
    ]


def short_messages(size: int) -> list[Any]:
    rng = random.Random(5)
    out: list[Any] = []
    n = 0
    while n < size:
        kind = rng.choice(["analysis", "preamble", "call"])
        text = prose(rng.randint(20, 60), seed=rng.randrange(10**6))
        if kind == "call":
            out.append(message("commentary", f'{{"q": "{text}"}}', "functions.lookup", "json"))
        else:
            out.append(message("analysis" if kind == "analysis" else "commentary", text))
        n += len(text) + 40
    return out


def token_texts(enc: Any, tokens: list[int]) -> list[str]:
    """The text each token adds to the stream (UTF-8 split across tokens joins the later one)."""
    dec = codecs.getincrementaldecoder("utf-8")()
    pieces = [dec.decode(bytes(enc._inner.decode_bytes([t]))) for t in tokens]
    return [p for p in pieces if p]


def guard_chunks(chunks: list[str]) -> None:
    s = HarmonyScanner()
    feed = s.feed
    for c in chunks:
        feed(c)
    s.flush()


def guard_whole(text: str) -> None:
    s = HarmonyScanner()
    s.feed(text)
    s.flush()


def reference(enc: Any, tokens: list[int]) -> None:
    import openai_harmony as oh

    p = oh.StreamableParser(enc, oh.Role.ASSISTANT)
    process = p.process
    for t in tokens:
        process(t)
    p.process_eos()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=200_000, help="characters per completion")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        enc = load_encoding(Path(tmp))
        streams = {
            "long bodies (3 messages)": long_bodies(args.size),
            "many short messages": short_messages(args.size),
        }
        print(f"# Harmony scanner throughput, {machine()}")
        print(
            "| stream | chars | tokens | guard, one feed per token MB/s | guard, one feed MB/s"
            " | StreamableParser MB/s | time ratio (guard per token / parser) |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, messages in streams.items():
            tokens = completion_tokens(enc, messages)
            chunks = token_texts(enc, tokens)
            text = "".join(chunks)
            assert text == enc.decode_utf8(tokens)
            mb = len(text.encode()) / 1e6
            t_chunks = timeit(lambda chunks=chunks: guard_chunks(chunks), runs=5)
            t_whole = timeit(lambda text=text: guard_whole(text), runs=5)
            t_ref = timeit(lambda tokens=tokens: reference(enc, tokens), runs=5)
            print(
                f"| {name} | {len(text):,} | {len(tokens):,} | {mb / t_chunks:,.1f}"
                f" | {mb / t_whole:,.0f} | {mb / t_ref:,.1f} | {t_chunks / t_ref:.2f} |"
            )


if __name__ == "__main__":
    main()
