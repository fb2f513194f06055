"""C: a channel or role word directly before *this* routing marker.

``analysis to=functions.edit``, ``assistant<|channel|>commentary to=functions.f``,
``analysisto=functions.edit``: the word sits right before the marker (only whitespace between),
within 64 characters and never past the previous marker, so one marker's channel word does not
lend itself to the next (the reference detector's window bleed). Homoglyphs are folded by the
normalised view, so a Cyrillic ``аnalysis`` counts.

The word is part of the leak, and so is the junk glued right before it: the closing brackets
and quotes of a call the model stripped (``Done.}]}analysis to=functions.edit`` is untrusted
from ``}``). The hit covers that junk and the word, and the verdict's cut starts there
(``extends``). A stream holds a channel word at the end of the text, and a run of closers, until
the next delta shows whether a marker follows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, TextView, Triggers
from guard.models import lazy_re as re

from ._common import MARKER_SPAN, MODEL_OUTPUT, hit_from_norm, neighbours
from .routing_marker import NAMESPACES

WINDOW = 64
#: characters of a stripped call's tail that a model glues before the channel word
GLUE = ")]}\"'`"
WORDS = ("analysis", "commentary", "final", "assistant", "user", "system", "developer", "tool")
_WORD = re.compile(r"(?<![A-Za-z])(?i:" + "|".join(WORDS) + r")[ \t\r\n]*\Z")
_GLUED = re.compile("[" + re.escape(GLUE) + "]{1,8}\\Z")
_SPACE = " \t\r\n"
_LONGEST = max(map(len, WORDS))
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def word_before(norm: str, lo: int, end: int) -> tuple[int, int] | None:
    """The span of the channel word that ends ``norm[lo:end]`` (only whitespace after it), or
    None: what ``_WORD.search(norm, lo, end)`` finds, without trying the pattern at each of the
    window's positions. No word is a suffix of another, so at most one can end there."""
    word_end = lo + len(norm[lo:end].rstrip(_SPACE))
    tail = norm[max(lo, word_end - _LONGEST) : word_end]
    if not tail.isascii():  # Unicode case folding (``ſ`` matches ``s``): the pattern decides
        m = _WORD.search(norm, lo, end)
        return (m.start(), word_end) if m else None
    lowered = tail.lower()
    for word in WORDS:
        if lowered.endswith(word):
            start = word_end - len(word)
            if start >= lo and (start == 0 or norm[start - 1] not in _LETTERS):
                return start, word_end
            return None
    return None


def _hold_words() -> tuple[str, ...]:
    words: list[str] = []
    for word in WORDS:
        for spelled in {word, word.capitalize(), word.upper()}:
            for sep in ("", " "):
                for eq in ("to=", "to= "):
                    words.extend(f"{spelled}{sep}{eq}{ns}" for ns in NAMESPACES)
    return tuple(words)


_TRIGGERS = Triggers(hold_words=_hold_words(), glue=GLUE, extends=True)


class ChannelAdjacency:
    code = "C"
    name = "channel adjacency"
    kind: Literal["anchor", "co"] = "co"
    surfaces = MODEL_OUTPUT
    max_span = WINDOW + MARKER_SPAN
    reach = (WINDOW, 0)
    order = 50
    weight = 0.5

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS  # never starts a hit; holds and extends the cut of the M hit it joins

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        for index, start, _end, prev_end, _next in neighbours(text, ctx):
            lo = max(start - WINDOW, prev_end)
            found = word_before(norm, lo, start)
            if found is not None:
                word_start, word_end = found
                glued = _GLUED.search(norm, max(lo, word_start - 8), word_start)
                begin = glued.start() if glued else word_start
                detail = "channel word before marker" + (", junk glued before it" if glued else "")
                yield hit_from_norm(text, self.code, begin, word_end, detail, index)
