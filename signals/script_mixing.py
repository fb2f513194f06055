"""S: a run of a foreign script next to the routing marker, inside mostly-ASCII text.

Leaks arrive wrapped in spam: CJK gambling SEO, Thai casino text, Georgian or Armenian junk. A run
of two or more characters of such a script within 32 characters of the marker fires, but only when
the 200 characters around the marker are at least 85% ASCII (by code point), so an answer written
in that language, or an English sentence quoting one word, does not. Scripts are read from the
original text (the normalised view folds Cyrillic and Greek lookalikes into Latin).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, TextView, Triggers
from guard.models import lazy_regex as regex

from ._common import MARKER_SPAN, MODEL_OUTPUT, neighbours

NEAR = 32
AROUND = 200
MIN_ASCII = 0.85
SCRIPTS = (
    "Han", "Hiragana", "Katakana", "Hangul", "Cyrillic", "Greek", "Hebrew", "Arabic", "Thai",
    "Lao", "Khmer", "Myanmar", "Tibetan", "Georgian", "Armenian", "Devanagari", "Bengali",
    "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada", "Malayalam", "Sinhala",
    "Ethiopic", "Syriac",
)  # fmt: skip
_RUN = regex.compile("[" + "".join(rf"\p{{{s}}}" for s in SCRIPTS) + "]{2,}")
_NON_ASCII = regex.compile(r"[^\x00-\x7f]")


def ascii_ratio(text: str) -> float:
    if not text:
        return 1.0
    return len(text.encode("ascii", "ignore")) / len(text)


class ScriptMixing:
    code = "S"
    name = "script mixing"
    kind: Literal["anchor", "co"] = "co"
    surfaces = MODEL_OUTPUT
    max_span = 2 * AROUND + MARKER_SPAN
    reach = (AROUND, AROUND)
    order = 70
    weight = 0.5

    def triggers(self, dialect: Dialect) -> Triggers:
        return Triggers()  # a co-signal never starts a hit on its own

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        original = text.original
        if original.isascii():
            return
        for index, n_start, n_end, n_prev, n_next in neighbours(text, ctx):
            start, end = text.span(n_start, n_end)
            lo = max(start - NEAR, text.to_original(n_prev) if n_prev else 0)
            hi = min(
                end + NEAR, text.to_original(n_next) if n_next < len(text.norm) else len(original)
            )
            # Every script a run may be in lies outside ASCII, and the run's search tries each
            # script's table at each character: it starts at the window's first non-ASCII
            # character, and an ASCII window (most of them) skips it.
            first = _NON_ASCII.search(original, lo, hi)
            if first is None:
                continue
            m = _RUN.search(original, first.start(), hi)
            if not m:
                continue
            around = original[max(0, start - AROUND) : end + AROUND]
            ratio = ascii_ratio(around)
            if ratio < MIN_ASCII:
                continue
            yield Hit(
                signals=(self.code,),
                start=m.start(),
                end=m.end(),
                evidence=m.group(),
                detail=f"foreign-script run in {ratio:.0%} ASCII surroundings",
                anchor=index,
            )
