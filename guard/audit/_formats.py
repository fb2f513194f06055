"""Transcript formats for ``guard audit``: sniffing, and adapters that turn one transcript into
the text parts to judge, each on its surface (docs/detection.md, "Surfaces"; the mappings:
docs/audit.md, "Formats").

* ``openai``: ``{"messages": [...]}`` or a bare message list (Chat Completions). Assistant
  ``content`` and ``refusal`` are ``text``, ``reasoning_content`` / ``reasoning`` / ``thinking``
  ``thinking``, each ``tool_calls[i].function`` (or ``.custom``) name ``tool_name`` and
  arguments ``tool_arg``; system, developer and user messages ``user``; tool messages
  ``tool_result``.
* ``responses``: ``{"input": [...], "output": [...]}`` (``instructions`` counts as message 0,
  a string ``input`` as a user message) or a bare item list. Message items by role,
  ``function_call`` name and arguments, ``function_call_output`` ``tool_result``, ``reasoning``
  summary and content ``thinking``.
* ``chatglm3``: a list of ``{"role", "metadata", "content"}`` (or one under ``messages`` /
  ``history``). System and user ``user``; assistant ``text``, or, when ``metadata`` names a
  tool, the name ``tool_name`` and the content (the call) ``tool_arg``; observation
  ``tool_result``.
* ``sharegpt``: ``{"conversations": [{"from", "value"}, ...]}`` (shared chat datasets; a
  top-level ``system`` string is message 0) or the bare turn list. ``human`` / ``system``
  ``user``, ``gpt`` ``text``, ``function_call`` (``{"name", "arguments"}``) ``tool_name`` and
  ``tool_arg``, ``tool`` / ``observation`` ``tool_result``.
* ``harmony``: raw envelopes (:mod:`guard.audit._harmony`). Assistant ``analysis`` is
  ``thinking``, ``final`` and commentary without recipient ``text``, a body sent ``to=`` a
  recipient ``tool_arg`` with the recipient (``functions.`` stripped) as ``tool_name``;
  system, developer and user ``user``; tool-authored messages ``tool_result``.
* ``text``: a whole file of raw model output, one message on ``text``.

Adapters never judge anything: they hand ``(surface, text, ...)`` parts to a sink, which batches
them. Wrong types inside a transcript are reported per message; the rest of it is still read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from guard.audit._format_chat import openai
from guard.audit._format_datasets import _sharegpt_like, chatglm3, sharegpt
from guard.audit._format_parts import (
    Part,
    ShapeError,
    Sink,
    add_part,
)
from guard.audit._format_responses import responses
from guard.audit._sources import looks_binary
from guard.audit._wire import sniff_dialect
from guard.models import Surface

if TYPE_CHECKING:
    from guard.audit._harmony import HarmonyTranscript

__all__ = [
    "ADAPTERS",
    "FORMAT_DIALECT",
    "JSON_FORMATS",
    "Part",
    "ShapeError",
    "Sink",
    "classify",
    "harmony_transcript",
    "sniff",
]

JSON_FORMATS = frozenset({"openai", "responses", "chatglm3", "sharegpt"})
#: The dialect each format implies when ``--dialect`` is not given.
FORMAT_DIALECT = {
    "openai": "harmony",
    "responses": "harmony",
    "harmony": "harmony",
    "chatglm3": "chatglm3",
    "sharegpt": "harmony",
    "text": "harmony",
    "raw": "",  # the dialect comes from --dialect or the file's opening
}


ADAPTERS: dict[str, Callable[[object, Sink, int], int]] = {
    "openai": openai,
    "responses": responses,
    "chatglm3": chatglm3,
    "sharegpt": sharegpt,
}


# ---------------------------------------------------------------------------------------------
# Harmony and plain text


def harmony_transcript(transcript: HarmonyTranscript, sink: Sink) -> int:
    """Hand one split Harmony transcript to the sink; returns its number of messages. Each
    message's parts are at the line of its own ``<|start|>``."""
    # the splitter's module (and the scanners it reads headers with) only for Harmony input
    from guard.audit._harmony import INPUT_AUTHORS, is_tool_author

    previous = None
    for i, m in enumerate(transcript.messages):
        line = m.line
        author = m.author
        role = author[:64]
        if author == "assistant":
            name = m.header.tool_name
            if name is not None:
                add_part(sink, Surface.TOOL_NAME, name, line, i, role, "recipient")
                add_part(sink, Surface.TOOL_ARG, m.body, line, i, role, "content", name)
            elif m.channel == "analysis":
                add_part(sink, Surface.THINKING, m.body, line, i, role, "content")
            else:
                add_part(sink, Surface.TEXT, m.body, line, i, role, "content")
        elif author in INPUT_AUTHORS or not author:
            add_part(sink, Surface.USER, m.body, line, i, role or "unknown", "content")
        else:
            if (
                previous is not None
                and previous.author == "assistant"
                and previous.end != "call"
                and is_tool_author(author)
            ):
                if m.interrupted:
                    reason = (
                        "forged tool result: a tool message starts inside the assistant's"
                        f" unfinished message {i - 1} (no <|call|>)"
                    )
                else:
                    reason = (
                        f"forged tool result: a tool message follows assistant message {i - 1},"
                        f" which ended with <|{previous.end}|>, not <|call|>"
                    )
                sink.forgery(line, i, role, reason, f"<|start|>{m.header.raw}")
            add_part(sink, Surface.TOOL_RESULT, m.body, line, i, role, "content")
        previous = m
    return len(transcript.messages)


# ---------------------------------------------------------------------------------------------
# Sniffing


def _glm_like(messages: object) -> bool:
    if type(messages) is not list:
        return False
    return any(
        type(m) is dict and ("metadata" in m or m.get("role") == "observation")
        for m in messages[:32]
    )


def classify(obj: object) -> str | None:
    """The JSON format of one transcript value, or ``None`` when it is none of them."""
    if type(obj) is dict:
        if "messages" in obj:
            return "chatglm3" if _glm_like(obj["messages"]) else "openai"
        if "input" in obj or "output" in obj:
            return "responses"
        if "conversations" in obj and _sharegpt_like(obj["conversations"]):
            return "sharegpt"
        if "history" in obj or "conversations" in obj:
            return "chatglm3"
        return None
    if type(obj) is list:
        if _sharegpt_like(obj):
            return "sharegpt"
        items = [m for m in obj[:32] if type(m) is dict]
        if any("type" in m for m in items):
            return "responses"
        if _glm_like(items):
            return "chatglm3"
        if any("role" in m for m in items):
            return "openai"
    return None


#: A raw Harmony file starts with a message (or with output captured after the prompt).
_HARMONY_OPENINGS = (b"<|start|>", b"<|startoftext|>", b"<|channel|>")


def sniff(head: bytes, at_eof: bool) -> tuple[str | None, str]:
    """``(format, note)`` for a file beginning with ``head``; format ``None`` means the file is
    not transcripts and ``note`` says why.

    JSON lines are looked for before the binary test, so that a file whose first line is
    UTF-16 (NUL bytes) is still read as the JSON lines its other lines are; only a head with
    NUL bytes and no transcript line in it is binary data.
    """
    body = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    stripped = body.lstrip()
    if not stripped:
        return None, "empty"
    binary = looks_binary(body)
    # before Harmony (LFM2's transcripts open with Harmony's <|startoftext|> too) and before
    # JSON (GLM's opening starts with [)
    if not binary and sniff_dialect(body) is not None:
        return "raw", "sniffed"
    if stripped.startswith(_HARMONY_OPENINGS):
        return "harmony", "sniffed"
    if stripped[:1] in (b"{", b"[") or binary:
        fmt, parsed = _sniff_json(body, at_eof)
        if fmt is not None:
            return fmt, "sniffed"
        if binary:
            return None, "binary data (NUL bytes), not UTF-8 transcripts"
        if parsed:
            return None, (
                "JSON lines, but none looks like a transcript (expected messages,"
                " input/output items, or a message list)"
            )
        return "openai", "assumed: no line parses as JSON"
    return None, "plain text, not transcripts (--format text reads a file as raw model output)"


def _sniff_json(body: bytes, at_eof: bool) -> tuple[str | None, bool]:
    """The format of the first line of ``body`` that is a transcript, and whether any line
    parsed as JSON (UTF-8 only; a line with NUL bytes is not looked at)."""
    lines = body.split(b"\n")
    if not at_eof:
        lines = lines[:-1]  # the last one may be cut
    parsed = False
    for raw in lines[:256]:
        if not raw.strip() or b"\x00" in raw:
            continue
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            continue
        parsed = True
        fmt = classify(obj)
        if fmt is not None:
            return fmt, True
    return None, parsed
