"""The parts of finished tool calls after their monitors are dropped: a bounded record.

A stream of many calls keeps, per finished part, its order, its release point and its verdict
for the latest :data:`RETAIN_CALLS` parts; older leaking verdicts are kept (up to the policy's
``max_hits``) and the rest only counted. A clean verdict is kept as its tool name alone and made
when the verdicts are read (most never are): a flood of calls builds no model per call.
"""

from __future__ import annotations

import sys

from guard.gate import SurfaceMonitor
from guard.models import Surface, Verdict
from guard.stream._queue import Key, key_name

__all__ = ["RETAIN_CALLS", "RetiredParts"]

#: finished calls whose monitors' verdicts are kept after they retire (the latest ones); beyond
#: them only leaking verdicts are kept (up to the policy's ``max_hits``) and the rest counted
RETAIN_CALLS = 64
#: the release point of a part retired and forgotten: everything (it had released all)
_ALL = sys.maxsize


class RetiredParts:
    """See the module docstring. ``dialect``: the stream's dialect name (of clean verdicts)."""

    __slots__ = ("_dialect", "_max_hits", "kept", "omitted", "records")

    def __init__(self, dialect: str, max_hits: int) -> None:
        self._dialect = dialect
        self._max_hits = max_hits
        #: key -> (order made, release point, verdict or, for a clean one, its tool name)
        self.records: dict[Key, tuple[int, int, Verdict | str | None]] = {}
        #: older leaking verdicts, with their order
        self.kept: list[tuple[int, Verdict]] = []
        #: verdicts neither in ``records`` nor in ``kept``
        self.omitted = 0

    def add(self, key: Key, order: int, monitor: SurfaceMonitor) -> None:
        """Keep what a finished monitor of ``key`` leaves behind."""
        verdict: Verdict | str | None = (
            monitor.tool_name
            if monitor.clean
            else monitor.verdict().model_copy(update={"part": key_name(key)})
        )
        self._keep(key, order, monitor.release, verdict)

    def add_clean(self, key: Key, order: int, release: int, tool_name: str | None) -> None:
        """Keep a part judged clean without a monitor (its whole text came at once)."""
        self._keep(key, order, release, tool_name)

    def _keep(self, key: Key, order: int, release: int, verdict: Verdict | str | None) -> None:
        self.records[key] = (order, release, verdict)
        while len(self.records) > RETAIN_CALLS:
            seq, _release, old = self.records.pop(next(iter(self.records)))
            if isinstance(old, Verdict) and old.leak and len(self.kept) < self._max_hits:
                self.kept.append((seq, old))
            else:
                self.omitted += 1

    def release(self, key: Key) -> int:
        """The release point of a retired part (everything for one forgotten)."""
        record = self.records.get(key)
        return _ALL if record is None else record[1]

    def verdicts(self) -> list[tuple[int, Verdict]]:
        """``(order, verdict)`` of every part kept, the clean ones made now."""
        made = [(seq, self._verdict(key, v)) for key, (seq, _r, v) in self.records.items()]
        return [*self.kept, *made]

    def _verdict(self, key: Key, kept: Verdict | str | None) -> Verdict:
        if isinstance(kept, Verdict):
            return kept
        return Verdict(
            leak=False,
            surface=Surface(key[1]),
            dialect=self._dialect,
            tool_name=kept,
            part=key_name(key),
        )
