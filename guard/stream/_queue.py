"""The delivery queue: upstream items waiting until what they carry may be shown.

An :class:`Entry` is one upstream item (a chunk, or a piece of raw wire text) and the spans of
surface text it added (its *marks*) and the tool calls it belongs to. It is *ready* once every
mark lies below its surface's release point and every call it touches is complete. When an entry
must be cut (a leak or forgery inside it), the reader that made it rewrites it, and nothing after
it is delivered. The queue also counts the characters that came in and went out.
"""

from __future__ import annotations

import bisect
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DROPPED",
    "Call",
    "CallSet",
    "Calls",
    "DeliveryQueue",
    "Entry",
    "Key",
    "ToolNames",
    "key_name",
]

#: a surface part of the stream: (choice index, surface, tool call index or -1)
Key = tuple[int, str, int]
#: a tool call: (choice index, tool call index)
Call = tuple[int, int]
#: what a cut returns for an entry that keeps nothing
DROPPED: Any = object()


def key_name(key: Key) -> str:
    """The part name a verdict and ``cut`` use: ``text``, ``tool_arg[1]``, ``choices[2].text``."""
    choice, surface, call = key
    name = surface if call < 0 else f"{surface}[{call}]"
    return name if choice == 0 else f"choices[{choice}].{name}"


class ToolNames:
    """Tool names per call, as they stream in pieces: joined when read, so a name sent in many
    small deltas costs its length, not its length squared."""

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: dict[Call, list[str]] = {}

    def add(self, call: Call, piece: str) -> None:
        parts = self._parts.get(call)
        if parts is None:
            self._parts[call] = [piece]
        else:
            parts.append(piece)

    def get(self, call: Call, default: str | None = None) -> str | None:
        parts = self._parts.get(call)
        if parts is None:
            return default
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0]

    def __setitem__(self, call: Call, name: str) -> None:
        self._parts[call] = [name]

    def __getitem__(self, call: Call) -> str:
        name = self.get(call)
        if name is None:
            raise KeyError(call)
        return name

    def __contains__(self, call: object) -> bool:
        return call in self._parts

    def as_dict(self) -> dict[Call, str]:
        return {call: self[call] for call in self._parts}

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ToolNames):
            other = other.as_dict()
        return self.as_dict() == other

    __hash__ = None  # type: ignore[assignment]

    def pop(self, call: Call, default: str | None = None) -> str | None:
        name = self.get(call, default)
        self._parts.pop(call, None)
        return name


@dataclass(slots=True)
class Entry:
    """One upstream item waiting to be delivered, and what it must wait for."""

    item: Any
    marks: list[tuple[Key, int, int]] = field(default_factory=list)  # key, start, end (surface)
    calls: list[Call] = field(default_factory=list)
    #: ``item`` is raw wire text: whole, it counts its own length (not its surface text)
    raw: bool = False
    #: raw wire text that is exactly its one mark's surface text (so it can be cut by slicing)
    plain: bool = False


class CallSet:
    """A set of tool calls whose memory follows the gaps, not the count: per choice, the call
    indexes in it as sorted runs ``[start, stop)``. Calls complete and go out in index order, so
    a stream of a hundred thousand calls keeps one run per choice (a set kept a tuple and a
    hash slot per call: about 260 bytes)."""

    __slots__ = ("_runs",)

    def __init__(self) -> None:
        #: choice -> the run starts, and the run stops, in order
        self._runs: dict[int, tuple[list[int], list[int]]] = {}

    def add(self, call: Call) -> None:
        choice, k = call
        runs = self._runs.get(choice)
        if runs is None:
            self._runs[choice] = ([k], [k + 1])
            return
        starts, stops = runs
        i = bisect.bisect_right(starts, k) - 1  # the run starting at or before k
        if i >= 0 and k < stops[i]:
            return  # in already
        joins_left = i >= 0 and stops[i] == k
        joins_right = i + 1 < len(starts) and starts[i + 1] == k + 1
        if joins_left and joins_right:
            stops[i] = stops[i + 1]
            del starts[i + 1], stops[i + 1]
        elif joins_left:
            stops[i] = k + 1
        elif joins_right:
            starts[i + 1] = k
        else:
            starts.insert(i + 1, k)
            stops.insert(i + 1, k + 1)

    @classmethod
    def of(cls, calls: Iterable[Call]) -> CallSet:
        """A set holding ``calls``."""
        out = cls()
        out.update(calls)
        return out

    def update(self, calls: Iterable[Call]) -> None:
        for call in calls:
            self.add(call)

    def __contains__(self, call: object) -> bool:
        choice: int
        k: int
        choice, k = call  # type: ignore[misc]
        runs = self._runs.get(choice)
        if runs is None:
            return False
        starts, stops = runs
        i = bisect.bisect_right(starts, k) - 1
        return i >= 0 and k < stops[i]

    def choices(self) -> frozenset[int]:
        """The choices that have a call in the set."""
        return frozenset(self._runs)


@dataclass(slots=True)
class Calls:
    """Tool call bookkeeping that decides delivery."""

    closed: CallSet = field(default_factory=CallSet)  # complete: name and arguments are final
    delivered: CallSet = field(default_factory=CallSet)  # some entry of it went out
    dropped: set[Call] = field(default_factory=set)  # leaking: none of it goes out


Release = Callable[[Key], int]
Cut = Callable[[Entry, dict[Key, int]], Any]


class DeliveryQueue:
    """Entries in arrival order; see the module docstring.

    ``withhold`` is False when nothing may be withheld (``on_leak="report"``): then every entry is
    ready and none is cut.
    """

    __slots__ = ("calls", "chars_in", "chars_out", "entries", "withhold")

    def __init__(self, *, withhold: bool) -> None:
        self.entries: deque[Entry] = deque()
        self.calls = Calls()
        self.withhold = withhold
        self.chars_in = 0
        self.chars_out = 0

    @property
    def chars_dropped(self) -> int:
        """Characters received but not delivered."""
        return max(0, self.chars_in - self.chars_out)

    def ready(self, entry: Entry, release: Release) -> bool:
        """Whether ``entry`` may go out now: its calls are complete and its text is released."""
        if not self.withhold:
            return True
        closed = self.calls.closed
        for call in entry.calls:
            if call not in closed:
                return False
        return all(release(key) >= end for key, _start, end in entry.marks)

    def take(self, release: Release, cut: Cut, *, final: bool) -> list[Any]:
        """The items to deliver now, in order.

        Not ``final``: the ready entries at the head of the queue. ``final`` (the stream ends
        here): every entry, each cut at its surfaces' release points, except those of calls that
        are unfinished or dropped; the first entry that is cut ends the delivery.
        """
        out: list[Any] = []
        entries = self.entries
        calls = self.calls
        while entries:
            entry = entries[0]
            if not final and not self.ready(entry, release):
                break
            entries.popleft()
            if entry.calls:
                if final and any(c not in calls.closed for c in entry.calls):
                    continue  # an unfinished call is never delivered
                if any(c in calls.dropped for c in entry.calls):
                    continue  # a leaking call is dropped whole, never cut short
                calls.delivered.update(entry.calls)
            limits = self._limits(entry, release) if self.withhold else None
            if not limits:
                if entry.raw:
                    self.chars_out += len(entry.item)
                else:
                    self.chars_out += sum(end - start for _key, start, end in entry.marks)
                out.append(entry.item)
                continue
            piece = cut(entry, limits)
            if piece is not DROPPED:
                for key, start, end in entry.marks:
                    self.chars_out += min(end - start, limits.get(key, end - start))
                out.append(piece)
            entries.clear()  # this entry was cut: nothing after it
            break
        return out

    @staticmethod
    def _limits(entry: Entry, release: Release) -> dict[Key, int]:
        """Per surface of the entry that is not wholly released: how much of its text may go."""
        limits: dict[Key, int] = {}
        for key, start, end in entry.marks:
            point = release(key)
            if point < end:
                limits[key] = max(0, point - start)
        return limits
