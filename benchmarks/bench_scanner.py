"""Scanner throughput (MB/s of raw stream): guard's Harmony scanner beside openai-harmony's
``StreamableParser`` fed the same completion's tokens (its floor), and a table per dialect beside
a plain scan of the same pieces (theirs), each ratio measured in the same run.

Two completions: one with long bodies (analysis, a call with a large argument, a final answer)
and one with many short messages. guard's scanner is fed the text of one token per ``feed``
(what a streaming server delivers), and also the whole completion in one call; the parser is fed
the token ids one by one. Needs ``openai-harmony`` (the ``dev`` extra); the vocabulary comes from
guard's verified offline copy, never from the network.

The per-dialect table renders one completion per dialect with guard's own renderers (reasoning,
text and calls with string, number and nested arguments, repeated to the size asked for) and
feeds it as pseudo-tokens (each control spelling whole, text in pieces of at most four
characters: what a streaming server delivers), in 4,096-character chunks, and whole. The floor
of each is a loop over the same pieces that counts, in each, the first characters of the
dialect's markers (``str.count`` per character): the least any scanner of that stream does.

    python benchmarks/bench_scanner.py [--size 200000] [--only harmony|dialects] [--quick]
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import random
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import Timer, add_quick, machine, mbps, print_table, prose, quick_note, ratio

from guard.dialects import get_dialect
from guard.encoding import o200k_base_bytes
from guard.scanners import HarmonyScanner, scanner
from guard.testing import (
    anthropic,
    deepseek,
    deepseek_v32,
    gemma,
    glm,
    kimi,
    llama3,
    minimax,
    pythonic,
    qwen3_coder,
)

#: optional packages (import names) this script needs; the smoke test skips it without them
REQUIRES = ("openai_harmony",)


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


# ---------------------------------------------------------------------------------------------
# Per dialect


def _arguments(rng: random.Random) -> dict[str, Any]:
    return {
        "path": f"src/{rng.choice(['a', 'b', 'c'])}.py",
        "content": prose(rng.randint(200, 600), seed=rng.randrange(10**6)),
        "line": rng.randint(1, 500),
        "options": {"create": True, "tags": ["x", "y"]},
    }


#: dialect -> renderer of one turn (reasoning, text, one call), for the per-dialect table.
TURNS: dict[str, Callable[[str, str, dict[str, Any], int], str]] = {
    "glm": lambda r, t, a, k: glm.render_thinking(r) + t + glm.render_tool_call("write", a),
    "kimi": lambda r, t, a, k: (
        kimi.render_thinking(r) + t + kimi.render_tool_call("write", a, index=k) + "<|im_end|>"
    ),
    "deepseek": lambda r, t, a, k: (
        deepseek.render_thinking(r) + t + deepseek.render_tool_call("write", a)
    ),
    "deepseek_v32": lambda r, t, a, k: (
        deepseek_v32.render_thinking(r) + t + deepseek_v32.render_tool_call("write", a)
    ),
    "minimax": lambda r, t, a, k: (
        minimax.render_thinking(r) + t + "\n" + minimax.render_tool_call("write", a)
    ),
    "chatml": lambda r, t, a, k: (
        f"<think>{r}</think>{t}<tool_call>\n"
        + json.dumps({"name": "write", "arguments": a}, ensure_ascii=False)
        + "\n</tool_call>"
    ),
    "qwen3_coder": lambda r, t, a, k: (
        qwen3_coder.render_thinking(r) + t + "\n" + qwen3_coder.render_tool_call("write", a)
    ),
    "anthropic": lambda r, t, a, k: (
        anthropic.render_thinking(r) + t + "\n" + anthropic.render_tool_call("write", a)
    ),
    "gemma": lambda r, t, a, k: gemma.render_thinking(r) + t + gemma.render_tool_call("write", a),
    "pythonic": lambda r, t, a, k: (
        pythonic.render_tool_call("write", a) + "<|eom|>" + t + "<|eot|>"
    ),
    "llama3": lambda r, t, a, k: (
        t
        + "<|eot_id|>"
        + llama3.render_tool_call("write", a)
        + "<function=write>"
        + json.dumps(a, ensure_ascii=False)
        + "</function><|eom_id|>"
    ),
}


def completion(dialect: str, size: int) -> str:
    rng = random.Random(11)
    parts: list[str] = []
    n = k = 0
    while n < size:
        turn = TURNS[dialect](
            prose(rng.randint(100, 400), seed=rng.randrange(10**6)),
            prose(rng.randint(50, 200), seed=rng.randrange(10**6)),
            _arguments(rng),
            k,
        )
        parts.append(turn)
        n += len(turn)
        k += 1
    return "".join(parts)


def pseudo_tokens(dialect: str, text: str) -> list[str]:
    """Control spellings whole, other text in pieces of at most four characters."""
    d = get_dialect(dialect)
    spellings = {*d.reserved, *d.call_open, *d.call_close, *d.result_open, *d.stop}
    alternatives = [re.escape(s) for s in sorted(spellings, key=len, reverse=True)]
    pattern = re.compile("|".join([*alternatives, r"\w{1,4}", r"\s+", r"[^\w\s]"]))
    return pattern.findall(text)


def feed_all(dialect: str, chunks: list[str]) -> None:
    s = scanner(dialect)
    feed = s.feed
    for c in chunks:
        feed(c)
    s.flush()


def marker_starts(dialect: str) -> str:
    """The first characters of the dialect's control spellings."""
    d = get_dialect(dialect)
    spellings = {*d.reserved, *d.call_open, *d.call_close, *d.result_open, *d.stop}
    return "".join(sorted({s[0] for s in spellings if s}))


def floor_scan(starts: str, chunks: list[str]) -> int:
    """The floor: count each marker's first character in every piece."""
    n = 0
    for c in chunks:
        for ch in starts:
            n += c.count(ch)
    return n


def dialect_table(size: int, timer: Timer, quick: bool) -> None:
    rows = []
    for dialect in TURNS:
        text = completion(dialect, size)
        tokens = pseudo_tokens(dialect, text)
        assert "".join(tokens) == text
        blocks = [text[i : i + 4096] for i in range(0, len(text), 4096)]
        made = scanner(dialect)
        calls = sum(type(e).__name__ == "ToolEnd" for e in made.feed(text) + made.flush())
        starts = marker_starts(dialect)
        mb = len(text.encode()) / 1e6
        row: list[object] = [dialect, f"{len(text):,}", f"{len(tokens):,}"]
        for pieces in (tokens, blocks, [text]):
            t_guard = timer.median(lambda d=dialect, c=pieces: feed_all(d, c))
            t_floor = timer.median(lambda s=starts, c=pieces: floor_scan(s, c))
            row += [mbps(mb, t_guard), ratio(t_guard, t_floor)]
        rows.append([*row, calls])
    print_table(
        f"Scanner throughput per dialect, {machine()}{quick_note(quick)}",
        [
            "dialect",
            "chars",
            "pseudo-tokens",
            "one feed per token MB/s",
            "time ratio vs floor",
            "4,096-char chunks MB/s",
            "time ratio vs floor",
            "one feed MB/s",
            "time ratio vs floor",
            "calls",
        ],
        rows,
    )


def harmony_table(size: int, timer: Timer, quick: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        enc = load_encoding(Path(tmp))
        streams = {
            "long bodies (3 messages)": long_bodies(size),
            "many short messages": short_messages(size),
        }
        rows = []
        for name, messages in streams.items():
            tokens = completion_tokens(enc, messages)
            chunks = token_texts(enc, tokens)
            text = "".join(chunks)
            assert text == enc.decode_utf8(tokens)
            mb = len(text.encode()) / 1e6
            t_chunks = timer.median(lambda chunks=chunks: guard_chunks(chunks))
            t_whole = timer.median(lambda text=text: guard_whole(text))
            t_ref = timer.median(lambda tokens=tokens: reference(enc, tokens))
            rows.append(
                [
                    name,
                    f"{len(text):,}",
                    f"{len(tokens):,}",
                    mbps(mb, t_chunks),
                    ratio(t_chunks, t_ref),
                    mbps(mb, t_whole),
                    ratio(t_whole, t_ref),
                    mbps(mb, t_ref),
                ]
            )
    print_table(
        f"Harmony scanner throughput, {machine()}{quick_note(quick)}",
        [
            "stream",
            "chars",
            "tokens",
            "guard, one feed per token MB/s",
            "time ratio vs parser",
            "guard, one feed MB/s",
            "time ratio vs parser",
            "StreamableParser MB/s",
        ],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=200_000, help="characters per completion")
    parser.add_argument("--only", choices=["harmony", "dialects"], help="print one table only")
    add_quick(parser)
    args = parser.parse_args()
    size = 3_000 if args.quick else args.size
    timer = Timer.make(args.quick, runs=5)
    if args.only != "harmony":
        dialect_table(size, timer, args.quick)
    if args.only != "dialects":
        harmony_table(size, timer, args.quick)


if __name__ == "__main__":
    main()
