"""Chat chunks shaped like an earlier one: read without the SSE decoder or a JSON parse.

Nearly every chunk of a chat stream is the chunk before it with another piece of content: the
same bytes before the content string (``data: {"id": ..., "delta": {"content": "``) and the
same bytes after it. A :class:`ChunkShape` keeps those two byte strings, taken from a chunk of
one unfinished choice whose delta is one string (``content``, ``reasoning_content``...) and
every other value a scalar. A read that is exactly *head*, a plain string body (no ``"``, no
backslash, no control character) and *tail* then gives, without decoding the event or parsing
its JSON, the item that :meth:`guard.wire.StreamedAnswer.parse` would give for it.

Why that is the same item: a JSON reader's state after *head* depends on *head* alone. When it
is inside a string there, a plain body is read as that string's characters, the first byte of
*tail* (``"``) closes it, and the rest reads as it did. :meth:`ChunkShape.of` proves the
string open after *head* is that delta's string by parsing *head*, a marker found nowhere
else, and *tail*: the marker must come back as that string and everything else as scalars.
The item is then a copy of that parsed one with the string replaced. The guard still gets
every item, parsed or built: the shape only saves the reading.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

__all__ = ["ChunkShape"]

#: a JSON string's body without escapes: no quote, no backslash, no control character
_PLAIN = re.compile(rb'[^\x00-\x1f"\\]*')
_MARK = "guardShapeMark"
_MARK_BYTES = _MARK.encode()
_decode = msgspec.json.Decoder().decode
_SCALARS = (str, int, float, bool, type(None))


def _scalars(mapping: dict[str, Any], but: str) -> bool:
    """Whether every value of ``mapping`` but the one at ``but`` is a JSON scalar."""
    return all(type(v) in _SCALARS for k, v in mapping.items() if k != but)


class ChunkShape:
    """The bytes around the content string of a quiet chunk, and the item around it."""

    __slots__ = ("choice", "field", "head", "item", "least", "start", "tail", "tail_len")

    def __init__(self, head: bytes, tail: bytes, item: dict[str, Any], field: str) -> None:
        self.head = head
        #: the delta's one field (``content``, ``reasoning_content``...)
        self.field = field
        self.tail = tail
        self.start = len(head)
        self.tail_len = len(tail)
        self.least = self.start + self.tail_len  # head and tail must not overlap
        self.item = item
        self.choice: dict[str, Any] = item["choices"][0]

    @classmethod
    def of(cls, raw: bytes, item: Any) -> ChunkShape | None:
        """The shape of the chunk ``item`` that came as the event ``raw`` (one line
        ``data: <json>`` and a blank line), or None when it has none: not one unfinished
        choice whose delta is one string, a value that is not a scalar, the string not written
        plainly, a line end or an escape around it."""
        choice = _one_choice(item)
        delta = None if choice is None else choice.get("delta")
        if type(delta) is not dict or len(delta) != 1:
            return None
        ((field, text),) = delta.items()
        if type(text) is not str:
            return None
        parts = _around(raw, text)
        if parts is None:
            return None
        head, tail = parts
        try:
            marked = _decode(head + _MARK_BYTES + tail)
        except (msgspec.DecodeError, ValueError):
            return None
        if type(marked) is not dict or not _scalars(marked, "choices"):
            return None
        choice = _one_choice(marked)
        if choice is None or choice.get("delta") != {field: _MARK}:
            return None
        if choice.get("finish_reason") is not None or not _scalars(choice, "delta"):
            return None
        return cls(b"data: " + head, tail + b"\n\n", marked, field)

    def read(self, piece: bytes) -> dict[str, Any] | None:
        """The item of ``piece`` when it is one event of this shape, else None."""
        if (
            len(piece) < self.least
            or not piece.startswith(self.head)
            or not piece.endswith(self.tail)
        ):
            return None
        try:
            text = piece[self.start : len(piece) - self.tail_len].decode("utf-8")
        except UnicodeDecodeError:
            return None
        # a plain string: no quote, no backslash, no control character (printable text has
        # none; text that is not printable is parsed instead)
        if '"' in text or "\\" in text or not text.isprintable():
            return None
        choice = self.choice.copy()
        choice["delta"] = {self.field: text}
        item = self.item.copy()
        item["choices"] = [choice]
        return item


def _one_choice(item: Any) -> dict[str, Any] | None:
    """The only choice of a chunk, when it has exactly one and it is an object."""
    if type(item) is not dict:
        return None
    choices = item.get("choices")
    if type(choices) is not list or len(choices) != 1 or type(choices[0]) is not dict:
        return None
    choice: dict[str, Any] = choices[0]
    return choice


def _around(raw: bytes, text: str) -> tuple[bytes, bytes] | None:
    """The JSON before and after ``text``'s string in the event ``raw``, when the event is one
    ``data:`` line and the string is written plainly, once, with no escape around it."""
    if not raw.startswith(b"data: ") or not raw.endswith(b"\n\n"):
        return None
    data = raw[6:-2]
    if b"\n" in data or b"\r" in data:
        return None
    body = text.encode("utf-8")
    if _PLAIN.fullmatch(body) is None:
        return None
    at = data.find(b'"' + body + b'"')
    if at < 0:
        return None
    head, tail = data[: at + 1], data[at + 1 + len(body) :]
    # without escapes around it, the marker's text is found nowhere else in the item
    if b"\\" in head or b"\\" in tail or _MARK_BYTES in head or _MARK_BYTES in tail:
        return None
    return head, tail
