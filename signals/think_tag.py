"""W: a think tag in the answer where only a failed reasoning split leaves one.

When a server's reasoning parser misses the model's reasoning (no parser, the wrong one, a
model that renamed its tags), the tags reach the answer: ``...is green.</M2_7think>Everything
is live`` or a closing ``</think>`` on a line of its own between the reasoning and the answer.
A dialect that reserves the tag has it judged as a control token (H); this signal reads the
tags of every family, in any dialect: ``think``, ``thinking``, ``thought``, ``thoughts``,
``reasoning``, ``reflection``, ``scratchpad`` and ``scratch_pad``, with a model prefix on the name
(``seed:think``, ``M2_7think``, Claude's ``antThinking``), with a blank inside the
brackets as templates that space them write (``</ think >``, one at most in each place), and
in the triangle brackets of Kimi-VL and Kimi-Dev, whose markers are no special tokens
(``◁/think▷``). (Ollama's ``Thinking...`` / ``...done thinking.`` frame is L's: its opening is
read with the answer's.)

Prose and code name these tags too ("split the reply on </think>", ```` `<think>` ````), so
a tag counts only when it sits as a leaked one does: glued to the word or sentence before it
(``finished.</think>``), a closing tag alone on its line with text before it, or a closing tag
that opens the answer on a line of its own (``</think>\nThe answer ...``: an empty reasoning
part, unparsed). Only closing tags count, and only unpaired ones: a pair named in prose or in
a requested format (``writes <think>reasoning</think> and then``, ``<reasoning>...
</reasoning><answer>``) has its opening tag within :data:`PAIRED` characters before the
closing one; the leak is the closer whose opener the template put in the prompt. Names are
read in any case. A tag in code (the gate's exemption) or on a Markdown quote line does not
count; a double-quoted phrase is no exemption (a stream cannot know that a quote will close).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_re as re

from ._common import hit_from_norm
from ._voice_words import _THINK_PREFIX as _PREFIX

_NAMES = (
    "think",
    "thinking",
    "thought",
    "thoughts",
    "reasoning",
    "reflection",
    "scratchpad",
    "scratch_pad",  # Hermes's function-calling prompt format
    "scratch-pad",
)


def _last_part(name: str) -> str:
    return name.replace("-", "_").rsplit("_", 1)[-1]


def _casings(name: str) -> tuple[str, ...]:
    """``name`` in lower case, upper case, capitalised, and capitalised after a ``_`` or
    ``-`` (``Scratch_Pad``)."""
    title = "".join(
        part.capitalize() for part in name.replace("-", "-\0").replace("_", "_\0").split("\0")
    )
    return (name, name.upper(), name.capitalize(), title)


#: the names as models write them: lower case, upper case, capitalised
_SPELLINGS = sorted({v for n in _NAMES for v in _casings(n)}, key=len)[::-1]
#: (the same, as a pattern source)
TAG = (
    r"[<\u25c1] ?(?P<close>/)? ?(?P<name>" + _PREFIX + "(?:" + "|".join(_SPELLINGS) + r"))"
    r" ?[>\u25b7]"
)
#: a think tag of any family: its name, a model prefix on it (``seed:think``, ``M2_7think``)
_TAG = re.compile(TAG)
#: the characters a tag may be glued to: the end of a word or of a sentence
_GLUE = re.compile(r"[\w.!?,;:)\]}*\u3002\uff0c\uff01\uff1f\u2026]")
#: how far before a closing tag its opening tag is looked for (a pair named in prose or in a
#: requested format, ``<think>reasoning</think>``, is markup, not a leaked half; within the
#: characters a stream keeps before a delta, so a stream reads what a whole text does)
PAIRED = 80

_TRIGGERS = Triggers(
    # every tag holds its name and ``>`` (a blank between them in a template's spaced tags);
    # Ollama's frame holds its closing words
    literals=(
        # (by the part after a ``_`` or ``-``: ``pad>`` is watched for its ``>``, where
        # ``scratch_pad>`` would be for its ``_``, which code is full of)
        *sorted({f"{_last_part(n)}{gap}>" for n in _SPELLINGS for gap in ("", " ")}),
        # Kimi-VL's and Kimi-Dev's triangle-bracketed tags (``◁/think▷``)
        *sorted({f"{_last_part(n)}{gap}\u25b7" for n in _SPELLINGS for gap in ("", " ")}),
    ),
    # the tag and the character after it (a closing tag alone on its line is decided by it)
    hold_patterns=(
        # (the angle-bracket form only: a held spelling's first character must be one literal;
        # a stream relays the triangle form's first characters and trips at its end)
        TAG.replace("(?P<close>/)?", "/?")
        .replace("(?P<name>", "(?:")
        .replace("[<\\u25c1]", "<")
        .replace("[>\\u25b7]", ">")
        + r"[ \t\r]{0,8}[\s\S]",
    ),
)


class ThinkTag:
    code = "W"
    name = "think tag in the answer"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT})
    max_span = 64
    reach = (1, 1)
    order = 14
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        if "<" not in norm and "\u25c1" not in norm:
            return
        reserved = frozenset(ctx.dialect.reserved)
        for m in _TAG.finditer(norm):
            start, end = m.span()
            if m.group() in reserved:
                continue  # the dialect's own tag: H's finding
            where = _placed(norm, m, ctx)
            if where is None:
                continue
            line = norm.rfind("\n", max(0, start - LINE), start) + 1
            if _QUOTE.match(norm, line, start) is not None:
                continue  # a Markdown quote line
            yield hit_from_norm(text, self.code, start, end, f"think tag {m.group()!r} {where}")


def _placed(norm: str, m: Any, ctx: ScanContext) -> str | None:
    """How a closing tag sits, when it sits as a leaked one does: glued to the text before it,
    alone on its line after text, or opening the answer on a line of its own (``None``
    otherwise, and for an opening tag or a closing one whose opening tag comes shortly before
    it). What follows the tag is read only once it has arrived (a stream holds the tag and the
    character after it)."""
    start, end = m.span()
    if m.group("close") is None:
        return None
    if m.group().startswith("\u25c1"):
        # Kimi's triangle form: no special token, and prose does not write it; any closer is
        # the leaked half, paired or alone, wherever it sits
        return "in the triangle form a parser did not split"
    if _paired(norm, m):
        return None
    before = norm[start - 1] if start else ""
    if before and _GLUE.match(before) is not None:
        return "glued to the text before it"
    line = norm.rfind("\n", max(0, start - LINE), start) + 1
    if norm[line:start].strip(" \t"):
        return None
    after = _AFTER.match(norm, end)
    if after is None or not (after.group().endswith("\n") or ctx.final):
        return None  # more of the line may still come
    if ctx.offset > 0 or _TEXT_BEFORE.search(norm, 0, line) is not None:
        return "on a line of its own"
    return "opening the answer on a line of its own"


#: the most characters back a tag's line start is looked for (a longer line's tag is read as
#: being on it)
LINE = 4096
#: a Markdown quote line's opening
_QUOTE = re.compile(r"\s*>")
#: any text before a line
_TEXT_BEFORE = re.compile(r"\S")
#: what may follow a closing tag alone on its line: blanks, then the line's end
_AFTER = re.compile(r"[ \t\r]*(?:\n|\Z)")


def _paired(norm: str, m: Any) -> bool:
    """Whether the closing tag ``m`` has its opening tag within :data:`PAIRED` characters
    before it (with no closing tag of the name in between)."""
    name = m.group("name").lower()
    window = norm[max(0, m.start() - PAIRED) : m.start()].lower()
    if "\u25c1" in window:
        window = window.replace("\u25c1", "<").replace("\u25b7", ">")  # Kimi's triangles
    if "< " in window or " >" in window:
        window = _SPACED.sub(r"<\1\2>", window)  # a template's spaced tags
    opened = window.rfind(f"<{name}>")
    return opened >= 0 and window.find(f"</{name}>", opened) < 0


#: a tag with blanks inside its brackets, to read as the plain one
_SPACED = re.compile(r"< ?(/?) ?([\w:.\-]+) ?>")
