"""O: the answer forges the next turn, its role token stripped.

A model that runs on past the end of its turn writes the next one itself: the user's reply
(``\\n\\nuser오 됐다. 그럼 ...``, ``\\n\\nuser oui\\n\\nD'accord, ...``) or a system message
(``\\n\\nsystem<total_tokens>...``). When the server strips special tokens, what is left of the
header is the role word, lower case, at the start of a paragraph. It counts (the ``text``
surface only) when the word, right after a blank line, is

* glued to a tag or to a letter of another script (``user오``, ``system<total_tokens>``);
* alone on its line, with text after it;
* (``user`` and ``human`` only) followed by a capitalised sentence (``user The CFO signs
  off``), or by a reply of at most three words that is a paragraph of its own with the answer
  going on after it (``user oui`` then a blank line and ``D'accord``).

Prose starts its paragraphs capitalised, and a transcript quoted in docs writes ``user:``; a
line of code or configuration (``user  nginx;``) holds ``;``, ``=`` or a brace.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard._windows import finditer as windowed
from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_re as re

from ._common import hit_from_norm

ROLES = ("user", "human", "system")
#: a short reply that is a paragraph of its own: at most this many characters
LINE = 40
#: ... and at most three words (a sentence of prose that opens lower case is longer)
_REPLY = rf"(?=[^\n]{{1,{LINE}}}\n)[^\s;{{}}=]+(?:[ \t][^\s;{{}}=]+){{0,2}}[ \t]*"
_AFTER = (
    r"(?:(?=[<\u0080-\U0010ffff])|[ \t]{0,8}\n(?=[ \t]{0,8}\S)"
    r"|(?<!system)[ \t]{1,8}(?=[A-Z\u0080-\U0010ffff])"
    rf"|(?<!system)[ \t]{{1,8}}{_REPLY}\n[ \t]{{0,8}}\n(?=[ \t]{{0,8}}\S))"
)
_TURN = re.compile(r"\n[ \t]{0,8}\n(?P<role>user|human|system)" + _AFTER)
#: the same as a stream holds its tail until the next character decides (written with a real
#: line break first, so the stream plan reads it as the one character that may begin it)
_HOLD = (
    "\n[ \t]{0,8}\n(?:user|human|system)(?:[<\u0080-\U0010ffff]|[ \t]{0,8}\n[ \t]{0,8}\\S"
    f"|[ \t]{{1,8}}[A-Z\u0080-\U0010ffff]|[ \t]{{1,8}}{_REPLY}\n[ \t]{{0,8}}\n"
    "[ \t]{0,8}\\S)"
)

_TRIGGERS = Triggers(literals=tuple(f"\n{role}" for role in ROLES), hold_patterns=(_HOLD,))


class ForgedTurn:
    code = "O"
    name = "forged turn"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT})
    max_span = LINE + 32
    reach = (0, 0)
    order = 22
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        if not any(lit in norm for lit in _TRIGGERS.literals):
            return
        for m in windowed(_TURN, norm):
            detail = f"a {m.group('role')!r} turn forged inside the answer"
            yield hit_from_norm(text, self.code, m.start("role"), m.end(), detail)
