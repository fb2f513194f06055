"""The normalised view of a text that makes lookalike spellings match, with offsets that map
back to the original."""

from __future__ import annotations

import bisect
import re

import regex

from guard.models._fold_table import FOLD, IGNORABLE

__all__ = ["TextView"]


#: one code point -> one printable ASCII character (generated from Unicode data)
_FOLD: dict[int, str] = FOLD
_FOLD_CHARS = frozenset(chr(cp) for cp in FOLD)
#: Default_Ignorable_Code_Point characters: the view deletes them
_DELETE_CHARS = frozenset(chr(cp) for first, last in IGNORABLE for cp in range(first, last + 1))
#: runs of non-ASCII characters; every character folded or deleted is one (the regex module
#: scans a class like this one much faster than ``re`` or a ``set`` over the whole text)
_NON_ASCII = regex.compile(r"[^\x00-\x7f]+")
#: texts shorter than this, and texts whose first ``_PROBE`` characters hold more than one run
#: of non-ASCII characters per ``_SPARSE`` characters, hash every character instead
_SHORT = 256
_PROBE = 4096
_SPARSE = 64
#: the most characters one C-level call of the view reads (a translate, a search, a deletion):
#: a call holds the GIL throughout, and a proxy judges answers on worker threads beside its event
#: loop, so one call over a whole large answer would stall the loop (about 45 ms per MB for the
#: deletion); slices of this size keep each call to a few milliseconds
_SLICE = 1 << 16


def _slices(n: int) -> range:
    return range(0, n, _SLICE)


def _non_ascii_chars(text: str) -> set[str]:
    """The distinct characters of ``text`` that may be folded or deleted (a superset of them).

    Mostly-ASCII text (English with a few curly quotes, a leak's CJK spam) has few runs of
    other characters: one scan gathers them, far cheaper than hashing every character. Text
    dense with them (French accents, Chinese) is hashed whole, which is cheaper there.
    """
    if len(text) < _SHORT:
        return set(text)
    runs = _NON_ASCII.findall(text, 0, _PROBE)
    chars: set[str] = set()
    if len(runs) * _SPARSE > min(len(text), _PROBE):
        for i in _slices(len(text)):
            chars.update(text[i : i + _SLICE])
        return chars
    for i in _slices(len(text)) if len(text) > _PROBE else ():
        chars.update("".join(_NON_ASCII.findall(text, i, i + _SLICE)))
    return chars or set("".join(runs))


def _present_class(chars: frozenset[str] | set[str]) -> re.Pattern[str]:
    """A character class of exactly ``chars`` (few: the deletable ones a text holds)."""
    return re.compile("[" + "".join(re.escape(ch) for ch in sorted(chars)) + "]")


def _folded(original: str) -> str:
    """``original`` with every lookalike folded, one slice per call."""
    if len(original) <= _SLICE:
        return original.translate(_FOLD)
    return "".join(original[i : i + _SLICE].translate(_FOLD) for i in _slices(len(original)))


def _deleted(folded: str, deletable: re.Pattern[str]) -> tuple[list[int], str]:
    """Where ``folded`` holds a deletable character, and ``folded`` without them, one slice per
    call (the class holds single characters, so no match spans two slices)."""
    at: list[int] = []
    kept: list[str] = []
    for i in _slices(len(folded)):
        at += [m.start() for m in deletable.finditer(folded, i, i + _SLICE)]
        kept.append(deletable.sub("", folded[i : i + _SLICE]))
    return at, "".join(kept)


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
        # The distinct characters decide what to do, at hashing speed (a character class of
        # thousands of code points would be tried range by range, character by character).
        chars = _non_ascii_chars(original)
        # 1:1 folding keeps offsets; most non-ASCII text (CJK, accents) has nothing to fold.
        folded = original if _FOLD_CHARS.isdisjoint(chars) else _folded(original)
        present = _DELETE_CHARS.intersection(chars)
        if not present:
            self.norm = folded
            return
        self._deleted, self.norm = _deleted(folded, _present_class(present))
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
