"""K: channel and role words glued the way only a stripped decode produces.

When a server decodes with special tokens skipped, ``<|start|>assistant<|channel|>final<|message|>``
collapses to ``assistantfinal``; a message at the start of the output becomes ``analysisThe
user asks ...``, ``assistantSure, ...`` or ``finalHello!``; a constrained header becomes
``commentary json{``; and a message whose body was dropped leaves its channel word alone as the
whole text (``commentary``). Ordinary prose and code do not glue these words, and do not answer
with a lone channel word.

* anywhere: ``assistantfinal`` / ``assistantanalysis`` / ``assistantcommentary``, and a channel
  word before ``json{``;
* at the start of the text (after blanks): ``analysis``, ``assistant``, ``commentary`` or
  ``final`` glued to an upper-case letter;
* the whole text (within 32 blanks either side): ``analysis``, ``commentary`` or ``final``
  alone. This one depends on the end of the text, so a stream decides it at the end;
* at the start of the answer (after blanks, the ``text`` surface only): ``thought`` alone on
  its first line and a sentence or a Markdown emphasis (``**Plan**``, ``*Analyze:*``) after
  it, or ``thought`` glued to an upper-case letter (``thoughtThe user said hello.``): what
  Gemma 4's and Gemini's reasoning header (``<|channel>thought`` and a newline) leaves when its
  tokens are stripped, the reasoning then shown as the answer;
* at the start of the answer (the ``text`` surface only): ``assistant`` alone on its first
  line with the answer after it, a role header whose tokens were stripped
  (``<|start_header_id|>assistant<|end_header_id|>`` in Llama 3, ``<|im_start|>assistant`` in
  ChatML): a model that writes its own header when the prompt lacks it. In the reasoning
  part a provider may leave such headers, so neither shape counts there;
* anywhere in the answer (the ``text`` surface only): ``assistant`` glued to the end of a
  sentence and followed by a blank line, then more text (``Glad to help!assistant\n\nGlad to
  help!``): Llama 3's header (``<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n``)
  with its tokens stripped, the model writing the next turn itself, often in a loop. Glued to a
  letter it is also a name (``pip install homeassistant``), so only a sentence's end before it
  counts: a ``!`` or ``?`` (or its CJK twin, or a CJK full stop); after a ``.`` or a
  bracket it is as often a dotted name (``self.assistant``) or code;
* at the start of the answer (the ``text`` surface only): a list of content parts written as
  Python prints it (``[{'type': 'text', 'text': 'I found three files ...'}]``): the host or a
  framework turned the message's content list into a string with ``str()`` and relayed that
  instead of its text;
* at the start of the answer (the ``text`` surface only; ``mistral`` and ``all``): a content
  list whose first chunk is the reasoning, holding text chunks, as JSON or Python's repr
  (``[{"type": "thinking", "thinking": [{"type": "text", "text": "The user said hello ...``):
  Mistral's reasoning models answer with such a list, and a client that relays it as a string
  shows the reasoning first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard._windows import finditer as windowed
from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_re as re
from guard.models import lazy_regex as regex

from ._common import MODEL_OUTPUT, hit_from_norm

GLUED_WORDS = ("assistantfinal", "assistantanalysis", "assistantcommentary")
_GLUED = re.compile(r"assistant(?:final|analysis|commentary)")
_GLUED_ANY = regex.compile(_GLUED.pattern)
OPENING_WORDS = ("analysis", "assistant", "commentary", "final", "thought")
LONE_WORDS = ("analysis", "commentary", "final")
_OPENING = re.compile(r"\A\s*(?:" + "|".join(OPENING_WORDS[:4]) + r")(?=[A-Z])")
#: the reasoning channel's name alone on the first line (a stripped Gemma 4 / Gemini header),
#: the reasoning after it opening as a sentence or a bold heading does
_THOUGHT_LINE = re.compile(r"\A\s*thought(?:\n(?=[ \t]*(?:[A-Z]|\*))|(?=[A-Z]))")
#: a role header's word alone on the first line, the answer after it (a stripped header)
_ROLE_LINE = re.compile(r"\A\s*(?P<w>assistant)[ \t]*\n(?=\s*\S)")
#: a stripped Llama 3 header glued to a sentence's end, a blank line and the next turn after it
_TURN_HEADER = re.compile(r"(?<=[!?\u3002\uff01\uff1f])assistant\n\n(?=[ \t]*\S)")
_TURN_LITERAL = "assistant\n\n"
#: the opening of a content-parts list in Python's repr (its text quoted either way)
_PARTS_OPENING = "[{'type': 'text', 'text': "
_PARTS = re.compile(r"\A\s*(?P<w>\[\{'type': 'text', 'text': ['\"])")
#: the opening of a message's content list that starts with a thinking chunk holding text
#: chunks (Mistral's reasoning models), as JSON (either spacing) or in Python's repr
_THINKING_CHUNK_OPENINGS = tuple(
    f"[{{{q}type{q}:{sp}{q}thinking{q},{sp}{q}thinking{q}:{sp}[{{{q}type{q}:{sp}{q}text{q},"
    f"{sp}{q}text{q}:{sp}"
    for q in ('"', "'")
    for sp in (" ", "")
)
_THINKING_CHUNK = re.compile(
    r"\A\s*(?P<w>(?:" + "|".join(map(re.escape, _THINKING_CHUNK_OPENINGS)) + r")['\"])"
)
#: the answer's openings (the ``text`` surface only), each with its hit's detail and the
#: dialects it is read in (``None``: every one); group ``w`` is the hit
_ANSWER_OPENINGS: tuple[tuple[re.Pattern[str], str, frozenset[str] | None], ...] = (
    (_ROLE_LINE, "text opens with a role header's word on a line of its own", None),
    (_PARTS, "text opens with a list of content parts in Python's repr", None),
    (
        _THINKING_CHUNK,
        "text opens with a content list whose first chunk is the reasoning",
        frozenset({"mistral", "all"}),  # Mistral's own content chunks
    ),
)
_LONE = re.compile(r"\A\s{0,32}(?:" + "|".join(LONE_WORDS) + r")\s{0,32}\Z")
_HEADER = re.compile(r"(?<![A-Za-z])(?:final|commentary|analysis)[ \t]*json\{")

_TRIGGERS = Triggers(
    # anywhere: the glued spellings and a constrained header; at the start: the opening words
    literals=(*sorted(GLUED_WORDS), "json{", _TURN_LITERAL),
    hold_words=(
        *GLUED_WORDS,
        _TURN_LITERAL,
        *(f"{w}{sep}json{{" for w in ("final", "commentary", "analysis") for sep in " \t"),
        *(f"{w}json{{" for w in ("final", "commentary", "analysis")),
    ),
    opening=(*OPENING_WORDS, _PARTS_OPENING, *_THINKING_CHUNK_OPENINGS),
)


class StrippedEnvelope:
    code = "K"
    name = "stripped envelope"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = MODEL_OUTPUT
    max_span = 32
    reach = (0, 0)
    order = 20
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        # "assistant" is one substring scan where it is absent (most text); where docs quote a
        # header it is common but never glued, and the `regex` engine's literal search decides
        # in a fraction of the standard engine's scan (or of three substring scans)
        if "assistant" in norm and _GLUED_ANY.search(norm) is not None:
            for m in windowed(_GLUED, norm):
                yield hit_from_norm(text, self.code, m.start(), m.end(), "glued role and channel")
        if ctx.surface is Surface.TEXT and _TURN_LITERAL in norm:
            for m in windowed(_TURN_HEADER, norm):
                yield hit_from_norm(
                    text,
                    self.code,
                    m.start(),
                    m.start() + len("assistant"),
                    "a role header's word glued to a sentence's end, the next turn after it",
                )
        if ctx.offset == 0:
            opening = _OPENING.match(norm, 0, 64 + 16)
            if opening:
                word_start = len(norm) - len(norm.lstrip())
                if not _GLUED.match(norm, word_start):
                    yield hit_from_norm(
                        text,
                        self.code,
                        word_start,
                        opening.end(),
                        "text opens with a role or channel word glued to the answer",
                    )
            # only the answer: a provider that strips the channel token may leave the header
            # in the reasoning part, where it is no leak
            thought = _THOUGHT_LINE.match(norm, 0, 64 + 16) if ctx.surface is Surface.TEXT else None
            if thought:
                word_start = len(norm) - len(norm.lstrip())
                glued = norm[thought.end() - 1] != "\n"
                yield hit_from_norm(
                    text,
                    self.code,
                    word_start,
                    word_start + len("thought"),
                    "text opens with the reasoning channel's name "
                    + ("glued to the answer" if glued else "on a line of its own"),
                )
            for pattern, detail, dialects in (
                _ANSWER_OPENINGS if ctx.surface is Surface.TEXT else ()
            ):
                if dialects is not None and ctx.dialect.name not in dialects:
                    continue
                m = pattern.match(norm, 0, 64 + 16)
                if m:
                    yield hit_from_norm(text, self.code, m.start("w"), m.end("w"), detail)
            if ctx.final and len(norm) <= 80:
                lone = _LONE.match(norm)
                if lone:
                    word_start = len(norm) - len(norm.lstrip())
                    word_end = len(norm.rstrip())
                    yield hit_from_norm(
                        text, self.code, word_start, word_end, "a lone channel word is the text"
                    )
        if "{" in norm and "json{" in norm:  # a one-character test is a memchr
            for m in windowed(_HEADER, norm):
                yield hit_from_norm(
                    text, self.code, m.start(), m.end() - 1, "stripped constrained header"
                )
