"""Adversarial text families: what a prompt-injected or broken model writes to make a guard
slow or hungry, built to a given size for a given dialect (its own markers and its own call).

Shared by ``bench_adversarial.py`` (the per-MB table) and ``tests/complexity`` (growth ratios at
two sizes). Every family is deterministic: the same name, dialect and size give the same text.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from functools import cache

from guard.dialects import get_dialect

__all__ = [
    "FAMILIES",
    "SCANNER_DIALECTS",
    "STREAM_FAMILIES",
    "build",
    "call_text",
    "chunked",
    "fullwidth",
    "markers",
    "system_turns",
]

#: every dialect with a scanner (raw streams read their wire text through it)
SCANNER_DIALECTS = (
    "harmony",
    "chatglm3",
    "chatml",
    "qwen3_coder",
    "llama3",
    "pythonic",
    "glm",
    "kimi",
    "deepseek",
    "deepseek_v32",
    "minimax",
    "gemma",
    "anthropic",
)

ZWSP = "\u200b"
RLO, PDF = "\u202e", "\u202c"
ARGS = {"city": "Paris", "days": 2}

PROSE_WORDS = " ".join(
    [
        "the model reads a file and then writes a short answer for the user about the weather",
        "in Paris while the agent loop waits for tool results and streams tokens to a terminal",
    ]
).split(" ")


def _repeat(unit: str, size: int) -> str:
    """``unit`` repeated to exactly ``size`` characters."""
    if not unit:
        raise ValueError("expected a non-empty unit, got ''")
    return (unit * (size // len(unit) + 1))[:size]


def _whole_units(unit: str, size: int) -> str:
    """``unit`` repeated whole, padded with spaces to exactly ``size`` characters (a cut unit
    could end in a run that pairs with the first and change what the family tests)."""
    count = size // len(unit)
    return unit * count + " " * (size - count * len(unit))


def _prose(size: int) -> str:
    out: list[str] = []
    n = i = 0
    while n < size:
        word = PROSE_WORDS[(i * 7) % len(PROSE_WORDS)]
        sep = ".\n" if i % 17 == 16 else (", " if i % 5 == 4 else " ")
        out.append(word + sep)
        n += len(word) + len(sep)
        i += 1
    return "".join(out)[:size]


@cache
def markers(dialect: str) -> tuple[str, ...]:
    """The dialect's own reserved spellings (literal markers only)."""
    return tuple(m for m in get_dialect(dialect).reserved if m)


def fullwidth(text: str) -> str:
    """ASCII punctuation and letters mapped to their fullwidth lookalikes."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


@cache
def call_text(dialect: str) -> str:
    """One well-formed tool call as the dialect's model writes it (its own renderer; Harmony's
    for the union ``all``, which has no renderer of its own)."""
    mod = importlib.import_module(f"guard.testing.{'harmony' if dialect == 'all' else dialect}")
    text: str = mod.render_tool_call("get_weather", ARGS)
    return text


def _marker_unit(dialect: str, dress: Callable[[str], str], sep: str = " ") -> str:
    return sep.join(dress(m) for m in markers(dialect)) + sep


def _zero_width(m: str) -> str:
    return ZWSP.join(m)


def _combining(m: str) -> str:
    return "\u0301".join(m)


def _bidi(m: str) -> str:
    return RLO + m + PDF


def _lookalike(m: str) -> str:
    # fullwidth brackets and bars around the plain name, then a soft hyphen inside
    return fullwidth(m[:2]) + "\u00ad" + m[2:-2] + fullwidth(m[-2:])


def _nested_fences(size: int) -> str:
    unit = "".join(f"{'`' * k}py\nx = 1\n" for k in range(3, 9)) + "text <|end|>\n"
    return _repeat(unit, size)


def _unterminated_strings(dialect: str, size: int) -> str:
    # a call opening whose JSON string never ends: the rest is one long argument value
    opening = get_dialect(dialect).call_open[:1]
    head = (opening[0] if opening else "") + '{"city": "'
    return head + _repeat('Paris \\" x ', size - len(head))


def _first_marker(dialect: str) -> str:
    return markers(dialect)[0]


def _escaped_backticks(dialect: str, size: int) -> str:
    # escaped double-backtick runs (each opens nothing, the rest of its run may), none paired,
    # in one paragraph, with a marker now and then so detection has hits to place
    return _whole_units("\\`` " * 15 + _first_marker(dialect) + " ", size)


def _backtick_triples(dialect: str, size: int) -> str:
    # runs of three backticks inside one long line: none can open a fence
    return _whole_units("x ``` " * 10 + _first_marker(dialect) + " ", size)


def _unclosed_span(dialect: str, size: int) -> str:
    # a code span that never closes, then markers in the same paragraph: whether they are
    # code stays open until the paragraph ends
    return "`" + _repeat(_first_marker(dialect) + " x ", size - 1)


#: a raw transcript's system turn, per dialect whose transcript splitter reads it
_SYSTEM_TURNS = {
    "harmony": "<|start|>system<|message|>You are terse.<|end|>",
    "chatml": "<|im_start|>system\nYou are terse.<|im_end|>\n",
}


def system_turns(dialect: str, size: int) -> str:
    """A raw transcript of ``size`` characters made of consecutive system turns (each may
    start a new transcript, so a splitter asks at every turn); ``harmony`` and ``chatml``."""
    if dialect not in _SYSTEM_TURNS:
        raise ValueError(f"expected one of {sorted(_SYSTEM_TURNS)}, got {dialect!r}")
    unit = _SYSTEM_TURNS[dialect]
    return unit * max(1, size // len(unit))


def _json_nest(size: int) -> str:
    depth = max(1, size // 2)
    return "[" * depth + "]" * depth


#: family name -> builder(dialect, size)
FAMILIES: dict[str, Callable[[str, int], str]] = {
    "clean prose": lambda d, n: _prose(n),
    "backtick runs": lambda d, n: _repeat("`` ``` ` x ```` ", n),
    "zero-width markers": lambda d, n: _repeat(_marker_unit(d, _zero_width), n),
    "fullwidth markers": lambda d, n: _repeat(_marker_unit(d, fullwidth), n),
    "bidi around markers": lambda d, n: _repeat(_marker_unit(d, _bidi), n),
    "run of <": lambda d, n: "<" * n,
    "run of <|": lambda d, n: _repeat("<|", n),
    # one token of a family no record lists after another (chatml judges its shape; each was
    # once walked back over the whole run to see whether a JSON string held it)
    "run of <|name|>": lambda d, n: _repeat("<|x|>", n),
    "run of [": lambda d, n: "[" * n,
    "repeated <think>": lambda d, n: _repeat("<think>", n),
    "repeated calls": lambda d, n: _repeat(call_text(d) + "\n", n),
    "nested fences": lambda d, n: _nested_fences(n),
    "unterminated string": _unterminated_strings,
    "lookalike flood": lambda d, n: _repeat(_marker_unit(d, _lookalike), n),
    "combining marks": lambda d, n: _repeat(_marker_unit(d, _combining), n),
    "markers split": lambda d, n: _repeat(_marker_unit(d, lambda m: m, " w "), n),
    "nested JSON": lambda d, n: _json_nest(n),
    "escaped backticks": _escaped_backticks,
    "backtick triples": _backtick_triples,
    "unclosed span": _unclosed_span,
    # a run of backslashes, then a bar: the bar lets escaping search the run
    "backslash run": lambda d, n: "\\" * (n - 1) + "|",
}

#: the table of issue 33 (guard_stream, raw chunks)
STREAM_FAMILIES = (
    "backtick runs",
    "zero-width markers",
    "fullwidth markers",
    "bidi around markers",
    "run of <",
    "run of <|",
    "run of [",
    "repeated <think>",
    "repeated calls",
)


def build(family: str, dialect: str, size: int) -> str:
    """``family``'s text for ``dialect``, about ``size`` characters."""
    return FAMILIES[family](dialect, size)


def chunked(text: str, size: int = 4096, *, split: bool = False) -> list[str]:
    """``text`` in chunks of ``size`` characters; ``split``: sizes cycling 1..13, so every
    marker is cut at every position somewhere in the stream."""
    if not split:
        return [text[i : i + size] for i in range(0, len(text), size)]
    out, i, k = [], 0, 0
    while i < len(text):
        step = 1 + k % 13
        out.append(text[i : i + step])
        i += step
        k += 1
    return out


def chat_chunk(piece: str) -> dict[str, object]:
    """An OpenAI-style chat completion chunk carrying ``piece`` as content."""
    return {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}


def tool_chunks(dialect: str, calls: int) -> list[dict[str, object]]:
    """``calls`` small tool calls in dict chunks (name, then arguments in two deltas)."""
    args = json.dumps(ARGS)
    out: list[dict[str, object]] = []
    for k in range(calls):
        for delta in (
            {"index": k, "id": f"c{k}", "function": {"name": "get_weather", "arguments": ""}},
            {"index": k, "function": {"arguments": args[:9]}},
            {"index": k, "function": {"arguments": args[9:]}},
        ):
            out.append({"choices": [{"index": 0, "delta": {"tool_calls": [delta]}}]})
    return out
