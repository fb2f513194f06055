"""The normalised view of a text that makes lookalike spellings match, with offsets that map
back to the original."""

from __future__ import annotations

import bisect
import re

__all__ = ["TextView"]

_DELETE = frozenset(
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u200b\u200c\u200d\u200e"
    "\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069"
    "\u3164\ufe00\ufe01\ufe0e\ufe0f\ufeff\uffa0"
)

_DELETE_RE = re.compile("[" + "".join(sorted(_DELETE)) + "]")

_BAR_LOOKALIKES = "\uff5c\u2223\u01c0\u2502\ufe31\u23d0\uffe8\u2758\u05c0\u2503\u239c\u20d2"

_FOLD: dict[int, str] = {
    **{ord(ch): "|" for ch in _BAR_LOOKALIKES},
    # fullwidth and small punctuation that spells markers
    0xFF1C: "<",
    0xFF1E: ">",
    0xFE64: "<",
    0xFE65: ">",
    0xFF1D: "=",
    0xFE66: "=",
    0xFF0E: ".",
    0xFF3F: "_",
    # fullwidth ASCII letters and digits
    **{cp: chr(cp - 0xFEE0) for cp in range(0xFF10, 0xFF1A)},
    **{cp: chr(cp - 0xFEE0) for cp in range(0xFF21, 0xFF3B)},
    **{cp: chr(cp - 0xFEE0) for cp in range(0xFF41, 0xFF5B)},
    # Cyrillic homoglyphs
    **{ord(k): v for k, v in zip("аеорсухіјѕԁԛԝһӏ", "aeopcyxijsdqwhl", strict=True)},
    **{ord(k): v for k, v in zip("АВЕКМНОРСТХІЈЅ", "ABEKMHOPCTXIJS", strict=True)},
    # Greek homoglyphs
    **{ord(k): v for k, v in zip("οαινρυκτ", "oaivpukt", strict=True)},
    **{ord(k): v for k, v in zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True)},
}


_FOLD_RE = re.compile("[" + re.escape("".join(chr(cp) for cp in _FOLD)) + "]")


class TextView:
    """A text and its normalised twin, with offsets of the twin mapped back to the original.

    Normalisation deletes zero-width and other invisible characters (soft hyphen, joiners,
    direction marks, variation selectors), maps bar lookalikes (fullwidth ``｜``, ``∣``, ``ǀ``,
    box-drawing bars) to ``|``, fullwidth ASCII to ASCII, and Cyrillic/Greek homoglyphs to the
    Latin letters they imitate. ASCII text is its own normalised view at no cost.
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
