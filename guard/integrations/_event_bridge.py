"""What the provider event bridges share (the Responses bridge in
:mod:`guard.integrations.openai.protocol`, the Messages bridge in
:mod:`guard.integrations.anthropic.protocol`): each upstream event becomes a chunk-shaped dict
the stream middleware reads (one choice per output item or content block, or no choice for an
event that only rides along), and each chunk the middleware delivers becomes the event to send:
the event itself when the middleware delivered its chunk whole, the event with the text kept
when it cut it, nothing for its own closing chunk (a provider stream ends with events)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from guard._fields import get_field

__all__ = ["EventBridge", "with_fields"]

_SERIAL = "_guard_serial"  # the synthetic chunk's key back to its event


def with_fields(obj: Any, **update: Any) -> Any:
    """A copy of an event (a dict or an SDK model) with ``update``'s fields."""
    if isinstance(obj, Mapping):
        return {**obj, **update}
    return obj.model_copy(update=update)


class EventBridge:
    """One stream's bridge: :meth:`chunk` for each upstream event, :meth:`event` for each chunk
    the middleware delivers; a protocol says what an event's choice reads (:meth:`_delta`),
    how a cut choice shows in its event (:meth:`_cut`) and what a delivered event tells it
    (:meth:`_note`)."""

    #: the event field naming the choice an event belongs to
    index_field = "index"

    def __init__(self) -> None:
        self.serial = 0
        self.pending: dict[int, tuple[Any, dict[str, Any]]] = {}
        #: the upstream's events are SDK objects (None before the first)
        self.sdk: bool | None = None

    def chunk(self, event: Any) -> dict[str, Any]:
        """The chunk-shaped dict standing for ``event``."""
        if self.sdk is None:
            self.sdk = not isinstance(event, Mapping)
        self.serial += 1
        index = get_field(event, self.index_field)
        index = index if isinstance(index, int) else 0
        delta, finish = self._delta(event, index)
        choices = (
            [] if delta is None else [{"index": index, "delta": delta, "finish_reason": finish}]
        )
        synthetic = {_SERIAL: self.serial, "choices": choices}
        self.pending[self.serial] = (event, synthetic)
        return synthetic

    def event(self, chunk: Any) -> Any:
        """The event to deliver for what the middleware yielded (``None``: nothing)."""
        serial = get_field(chunk, _SERIAL)
        entry = self.pending.get(serial) if isinstance(serial, int) else None
        if entry is None:
            return None
        event, synthetic = entry
        choices = get_field(chunk, "choices") or []
        if chunk is synthetic:
            del self.pending[serial]
            self._note(event)
            return event
        if any(get_field(c, "finish_reason") is not None for c in choices):
            return None  # the middleware's closing chunk: a provider stream ends with events
        del self.pending[serial]
        cut = self._cut(event, get_field(choices[0], "delta") if choices else None)
        if cut is not None:
            self._note(cut)
        return cut

    def _delta(self, event: Any, index: int) -> tuple[dict[str, Any] | None, str | None]:
        """The delta and finish reason of the choice ``event`` stands for (``None``: it has no
        choice)."""
        raise NotImplementedError

    def _cut(self, event: Any, delta: Any) -> Any:
        """``event`` with the text the middleware kept of its choice (``delta``; ``None``: the
        choice was dropped), or ``None`` when nothing of it is delivered."""
        raise NotImplementedError

    def _note(self, event: Any) -> None:
        """Learn from a delivered event (what a stopped stream's ending needs)."""
        raise NotImplementedError
