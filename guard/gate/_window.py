"""The window of a :class:`~guard.gate.SurfaceMonitor`: the bounded text it keeps of one
surface, fed delta by delta (docs/streaming.md, "The surface monitor").

It holds the text from ``base`` to the end (older text is trimmed once nothing can need it),
and its last ``span`` characters as ``tail`` for the hold-back rules. Deltas taken on the
monitor's quiet path are only queued (``lazy``) and joined when the text is next read.
"""

from __future__ import annotations

__all__ = ["Window"]

#: how much text may be trimmed at once, at least (trimming copies what is kept)
TRIM_STEP = 4096


class Window:
    """A bounded, lazily joined text; see the module docstring."""

    __slots__ = ("base", "lazy", "parts", "span", "tail")

    def __init__(self, span: int) -> None:
        #: the length of :attr:`tail`
        self.span = span
        self.parts: list[str] = []  # the text from `base` on, joined lazily
        self.base = 0
        self.tail = ""  # the last `span` characters (of the text caught up)
        #: deltas taken but not yet in :attr:`parts` (the quiet path's queue; cleared in place)
        self.lazy: list[str] = []

    def append(self, delta: str) -> None:
        """Take ``delta`` (after any queued deltas: see :meth:`catch_up`)."""
        self.parts.append(delta)
        self.tail = (self.tail + delta)[-self.span :]

    def catch_up(self) -> str:
        """Move the queued deltas into the text; return them, joined ("" for none)."""
        if not self.lazy:
            return ""
        lazy = "".join(self.lazy)
        self.lazy.clear()
        self.append(lazy)
        return lazy

    @property
    def text(self) -> str:
        """The text kept, from :attr:`base` on (queued deltas must be caught up first)."""
        parts = self.parts
        if len(parts) > 1:
            self.parts = parts = ["".join(parts)]
        return parts[0] if parts else ""

    def read(self, lo: int, hi: int | None = None) -> str:
        """The text from ``lo`` to ``hi`` (absolute offsets; ``None``: the end)."""
        return self.text[lo - self.base : None if hi is None else hi - self.base]

    def trim(self, keep_from: int) -> None:
        """Forget the text before ``keep_from`` when that is worth a copy."""
        if keep_from - self.base > TRIM_STEP:
            self.parts = [self.text[keep_from - self.base :]]
            self.base = keep_from
