"""Anthropic (Claude's underlying XML) and the generic XML fallback; summarised in
docs/wire-formats.md, "Other dialects".

There is no public tokenizer, so the reserved spellings are the tag spellings, each with and
without Claude's ``antml:`` namespace prefix, and the legacy ``Human:`` / ``Assistant:`` turn
prefixes.
"""

from __future__ import annotations

from guard.dialects._record import Dialect, TurnGrammar

#: Tag spellings without a prefix. `<invoke` and `<parameter` are open-ended: attributes follow.
TAGS = (
    "<function_calls>",
    "</function_calls>",
    "<tool_calls>",
    "</tool_calls>",
    "<invoke",
    "</invoke>",
    "<parameter",
    "</parameter>",
    "<function_results>",
    "</function_results>",
    "<result>",
    "</result>",
    "<error>",
    "</error>",
    "<tool_name>",
    "</tool_name>",
    "<stdout>",
    "</stdout>",
    "<stderr>",
    "</stderr>",
    "<tool_response>",
    "</tool_response>",
    "<thinking>",
    "</thinking>",
    "<think>",
    "</think>",
    "<scratchpad>",
    "</scratchpad>",
)


#: Claude's XML namespace prefix.
NS = "antml:"


def _antml(tag: str) -> str:
    """The prefixed spelling of ``tag``: ``<x`` gets ``NS`` after ``<``, ``</x`` after ``</``."""
    return "</" + NS + tag[2:] if tag.startswith("</") else "<" + NS + tag[1:]


ANTHROPIC = Dialect(
    name="anthropic",
    aliases=("xml", "claude"),
    reserved=(
        *TAGS,
        *(_antml(t) for t in TAGS),
        "\n\nHuman:",
        "\n\nAssistant:",
    ),
    call_open=(
        "<function_calls>",
        _antml("<function_calls>"),
        "<tool_calls>",
        "<invoke",
        _antml("<invoke"),
    ),
    call_close=(
        "</function_calls>",
        _antml("</function_calls>"),
        "</tool_calls>",
        "</invoke>",
        _antml("</invoke>"),
    ),
    result_open=("<function_results>", _antml("<function_results>"), "<tool_response>"),
    thinking=tuple(
        pair
        for open_, close in (
            ("<thinking>", "</thinking>"),
            ("<think>", "</think>"),
            ("<scratchpad>", "</scratchpad>"),
        )
        for pair in ((open_, close), (_antml(open_), _antml(close)))
    ),
    # The legacy text-completion stop sequence.
    stop=("\n\nHuman:",),
    family="Anthropic Claude XML (<function_calls>/<invoke>, antml: prefix) and generic XML",
    sources=(
        "can1357/oh-my-pi docs/toolconv/anthropic.md",
        "can1357/oh-my-pi packages/ai/src/dialect (Anthropic scanner, owned-stream.ts)",
    ),
    transcript=TurnGrammar(
        ((r"\n\nHuman: ?", "user"), (r"\n\nAssistant: ?", "assistant")),
        end_before_tool=False,
        result_bodies=("<function_results>",),
        results=(
            r"\s*<function_results>\s*<(?P<tag>result|error)>\s*"
            r"(?:<tool_name>[^<]*</tool_name>\s*)?<(?P<out>stdout|stderr)>\n?(?P<body>.*?)\n?"
            r"</(?P=out)>\s*</(?P=tag)>\s*</function_results>\s*",
        ),
    ),
)
