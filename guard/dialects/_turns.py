"""Turn-grammar pieces several dialect records share (ChatML's turn opening, the
``<tool_response>`` wrapping of a tool result)."""

from __future__ import annotations

from guard.dialects._record import TurnGrammar

__all__ = ["CHATML_TURNS", "ROLE", "TOOL_RESPONSE", "chatml_transcript"]

#: A role name inside a turn opening: anything up to 64 characters but blanks, ``<``, ``>``, ``|``.
ROLE = r"(?P<role>[^\s<>|]{1,64})"
CHATML_TURNS: tuple[tuple[str, str | None], ...] = ((rf"<\|im_start\|>{ROLE}\n?", None),)
#: A tool result wrapped as Hermes and Qwen templates wrap it.
TOOL_RESPONSE = (r"\s*<tool_response>\n?(?P<body>.*?)\n?</tool_response>\s*",)


def chatml_transcript(marks: tuple[str, ...] = ()) -> TurnGrammar:
    """ChatML conversations (Qwen3-Coder writes its conversations in ChatML too; ``marks``
    tell its transcripts apart)."""
    return TurnGrammar(
        CHATML_TURNS,
        ends=("<|im_end|>", "<|endoftext|>"),
        result_bodies=("<tool_response>",),
        results=TOOL_RESPONSE,
        marks=marks,
    )
