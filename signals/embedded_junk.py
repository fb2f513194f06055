"""E: a collapsed call inside a JSON string of the tool arguments.

Sometimes the model's junk lands *inside* a string value and the arguments still parse
(``{"patch": "...\\n}]}analysis to=functions.apply_patch code 大发彩票 ..."}``), so the parse
boundary (T) never sees it. A legitimate edit of a file that contains these spellings (a test
fixture, documentation of the format, this project's own corpus) looks alike, so one spelling
is not enough. E supports a routing marker before the parse boundary only when the collapse
shows its structure:

1. the closing brackets of the stripped call are glued on both sides: to the content before
   them and to the words before the marker (``x = 1\n}]}analysis``, ``Notes."}commentary``,
   ``1;}]}changedFiles analysis``): a run of ``}``/``]`` (with quotes, escaped or not), not
   after a blank, directly followed by letters, within :data:`BEFORE` characters before the
   marker (code that quotes the shape after a comment marker and a blank, ``// }]}analysis``,
   does not count); and
2. the collapse goes on after the marker: another marker within :data:`CASCADE` characters
   (a header cascade), or a run of a foreign script (CJK, Thai, ... spam) or a glitch word
   within :data:`NEAR` characters.

The default policy trips ``M+C+E`` on ``tool_arg`` (the channel word directly before the
marker, C, is required too). Measured on the corpus (``docs/detection.md``): every collapsed
call of the field corpus is caught, and so is an edit of a file that quotes a whole collapse
verbatim (closers, channel word, marker and spam), the price of this rule; an edit quoting only
a marker, a header, or the channel word and marker is not flagged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_re as re
from guard.models import lazy_regex as regex

from ._common import MARKER_SPAN, hit_from_norm, neighbours
from .glitch_token import GLITCH_WORDS
from .script_mixing import SCRIPTS

BEFORE = 48
CASCADE = 200
NEAR = 48
_CLOSERS = re.compile(r'(?<![ \t}\]"\\])(?:\\?"|[}\]])*[}\]](?:\\?")?[A-Za-z]')
_SCRIPT = regex.compile("[" + "".join(rf"\p{{{s}}}" for s in SCRIPTS) + "]{2,}")
_GLITCH = re.compile("|".join(re.escape(w) for w in GLITCH_WORDS))


class EmbeddedJunk:
    code = "E"
    name = "junk inside a JSON string"
    kind: Literal["anchor", "co"] = "co"
    surfaces = frozenset({Surface.TOOL_ARG})
    max_span = BEFORE + CASCADE + MARKER_SPAN
    reach = (BEFORE, CASCADE)
    order = 105
    weight = 0.5

    def triggers(self, dialect: Dialect) -> Triggers:
        return Triggers()  # a co-signal never starts a hit on its own

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        boundary = ctx.parsed_end
        if boundary is None:
            return
        norm = text.norm
        original = text.original
        spans = neighbours(text, ctx)
        for index, start, end, prev_end, next_start in spans:
            if text.to_original(start) >= boundary:
                continue  # past the boundary: T's case
            lo = max(start - BEFORE, prev_end)
            closers = _CLOSERS.search(norm, lo, start)
            if closers is None:
                continue
            cascade = next_start < len(norm) and next_start - end <= CASCADE
            o_end = text.to_original_end(end)
            after = original[o_end : o_end + NEAR]
            spam = _SCRIPT.search(after) is not None
            glitch = _GLITCH.search(norm, lo, min(len(norm), end + NEAR)) is not None
            if cascade or spam or glitch:
                why = "cascade" if cascade else "foreign-script spam" if spam else "glitch word"
                yield hit_from_norm(
                    text,
                    self.code,
                    closers.start(),
                    closers.end() - 1,
                    f"closers glued before the marker inside a string, then {why}",
                    index,
                )
