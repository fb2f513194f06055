"""The normalised view of a text that makes lookalike spellings match, with offsets that map
back to the original."""

from __future__ import annotations

import bisect
import re

from guard.models._fold_table import FOLD, IGNORABLE

__all__ = ["TextView"]


def _char_class(ranges: list[tuple[int, int]]) -> re.Pattern[str]:
    parts = [
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
        for a, b in ranges
    ]
    return re.compile("[" + "".join(parts) + "]")


def _ranges(points: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for cp in points:
        if out and out[-1][1] == cp - 1:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return out


#: one code point -> one printable ASCII character (generated from Unicode data)
_FOLD: dict[int, str] = FOLD
_FOLD_RE = _char_class(_ranges(sorted(_FOLD)))
#: Default_Ignorable_Code_Point characters: the view deletes them
_DELETE_RE = _char_class(list(IGNORABLE))


class TextView:
    """A text and its normalised twin, with offsets of the twin mapped back to the original.

    Normalisation deletes every Default_Ignorable_Code_Point (zero-width characters, joiners,
    direction marks, variation selectors, tag characters, fillers) and folds, one character to
    one character, every lookalike of a printable ASCII character that Unicode's confusables data
    or per-character NFKC names: bar lookalikes (fullwidth ``｜``, ``∣``, ``ǀ``, box-drawing bars)
    to ``|``, fullwidth and mathematical letters to ASCII, Cyrillic/Greek homoglyphs to the Latin
    letters they imitate. The table is generated (``corpora/unicode/generate_fold_table.py``).
    ASCII text is its own normalised view at no cost.
    """

    __slots__ = ("_deleted", "_npos", "norm", "original")

    def __init__(self, original: str) -> None:
        self.original = original
        self._deleted: list[int] = []
        self._npos: list[int] = []
        if original.isascii():
            self.norm = original
            return
        # 1:1 folding keeps offsets; most non-ASCII text (CJK, accents) has nothing to fold.
        folded = original.translate(_FOLD) if _FOLD_RE.search(original) else original
        if _DELETE_RE.search(folded) is None:
            self.norm = folded
            return
        self._deleted = [m.start() for m in _DELETE_RE.finditer(folded)]
        self.norm = _DELETE_RE.sub("", folded)
        # For the j-th deleted original index d_j, the normalised index of the next kept char.
        self._npos = [d - j for j, d in enumerate(self._deleted)]

    @property
    def identity(self) -> bool:
        """True when normalised offsets equal original offsets."""
        return not self._npos

    def to_original(self, n: int) -> int:
        """Original index of the character at normalised index ``n`` (a start offset)."""
        if not self._npos:
            return n
        return n + bisect.bisect_right(self._npos, n)

    def to_original_end(self, n: int) -> int:
        """Original end offset (exclusive) for a normalised end offset ``n``."""
        if not self._npos or n == 0:
            return n
        return self.to_original(n - 1) + 1

    def to_norm(self, o: int) -> int:
        """Normalised index for original index ``o`` (deleted characters map forward)."""
        if not self._deleted:
            return o
        return o - bisect.bisect_left(self._deleted, o)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Map a normalised ``[start, end)`` span to the original text."""
        o_start = self.to_original(start)
        return o_start, (self.to_original_end(end) if end > start else o_start)

    def __len__(self) -> int:
        return len(self.original)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"TextView(len={len(self.original)}, identity={self.identity})"
