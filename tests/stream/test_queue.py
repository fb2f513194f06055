"""The delivery queue: readiness, delivery order, cutting, and the characters in and out."""

from __future__ import annotations

from typing import Any

from guard.stream._queue import DROPPED, DeliveryQueue, Entry, Key, key_name

TEXT: Key = (0, "text", -1)
ARG: Key = (0, "tool_arg", 0)


def releases(points: dict[Key, int]) -> Any:
    return points.__getitem__


def no_cut(entry: Entry, limits: dict[Key, int]) -> Any:
    raise AssertionError(f"unexpected cut of {entry.item!r} at {limits}")


def test_key_names() -> None:
    assert key_name(TEXT) == "text"
    assert key_name((0, "tool_arg", 1)) == "tool_arg[1]"
    assert key_name((2, "thinking", -1)) == "choices[2].thinking"


def test_entry_is_ready_when_its_text_is_released_and_its_calls_are_closed() -> None:
    queue = DeliveryQueue(withhold=True)
    entry = Entry("c", marks=[(TEXT, 0, 5)], calls=[(0, 0)])
    assert not queue.ready(entry, releases({TEXT: 5}))  # call still open
    queue.calls.closed.add((0, 0))
    assert not queue.ready(entry, releases({TEXT: 4}))  # last character withheld
    assert queue.ready(entry, releases({TEXT: 5}))
    assert DeliveryQueue(withhold=False).ready(entry, releases({TEXT: 0}))  # report mode


def test_take_stops_at_the_first_entry_not_ready_and_keeps_order() -> None:
    queue = DeliveryQueue(withhold=True)
    queue.entries.extend(
        [Entry("a", [(TEXT, 0, 2)]), Entry("b", [(TEXT, 2, 4)]), Entry("c", [(TEXT, 4, 6)])]
    )
    queue.chars_in = 6
    assert queue.take(releases({TEXT: 5}), no_cut, final=False) == ["a", "b"]
    assert [e.item for e in queue.entries] == ["c"]
    assert queue.chars_out == 4 and queue.chars_dropped == 2


def test_final_take_cuts_the_first_withheld_entry_and_drops_the_rest() -> None:
    queue = DeliveryQueue(withhold=True)
    queue.entries.extend(
        [Entry("ab", [(TEXT, 0, 2)]), Entry("cdef", [(TEXT, 2, 6)]), Entry("g", [(TEXT, 6, 7)])]
    )
    queue.chars_in = 7
    cuts: list[dict[Key, int]] = []

    def cut(entry: Entry, limits: dict[Key, int]) -> Any:
        cuts.append(limits)
        return entry.item[: limits[TEXT]]

    assert queue.take(releases({TEXT: 3}), cut, final=True) == ["ab", "c"]
    assert cuts == [{TEXT: 1}] and not queue.entries
    assert queue.chars_out == 3 and queue.chars_dropped == 4


def test_final_take_skips_unfinished_and_dropped_calls_whole() -> None:
    queue = DeliveryQueue(withhold=True)
    queue.calls.closed.update({(0, 0), (0, 1)})
    queue.calls.dropped.add((0, 1))
    queue.entries.extend(
        [
            Entry("call 0", [(ARG, 0, 3)], calls=[(0, 0)]),
            Entry("call 1", [((0, "tool_arg", 1), 0, 3)], calls=[(0, 1)]),
            Entry("call 2", [((0, "tool_arg", 2), 0, 3)], calls=[(0, 2)]),  # never closed
            Entry("text", [(TEXT, 0, 4)]),
        ]
    )
    release = releases({ARG: 3, (0, "tool_arg", 1): 1, (0, "tool_arg", 2): 3, TEXT: 4})
    assert queue.take(release, no_cut, final=True) == ["call 0", "text"]
    delivered = queue.calls.delivered
    assert (0, 0) in delivered and (0, 1) not in delivered and (0, 2) not in delivered


def test_raw_pieces_count_their_wire_characters_and_a_dropped_cut_counts_none() -> None:
    queue = DeliveryQueue(withhold=True)
    queue.entries.extend(
        [Entry("<|message|>hi", [(TEXT, 0, 2)], raw=True), Entry("<x>", [(TEXT, 2, 5)], raw=True)]
    )
    out = queue.take(releases({TEXT: 3}), lambda entry, limits: DROPPED, final=True)
    assert out == ["<|message|>hi"] and queue.chars_out == len("<|message|>hi")


def test_report_mode_delivers_everything_uncut() -> None:
    queue = DeliveryQueue(withhold=False)
    queue.entries.extend([Entry("a", [(TEXT, 0, 1)], calls=[(0, 0)]), Entry("b", [(TEXT, 1, 2)])])
    assert queue.take(releases({TEXT: 0}), no_cut, final=False) == ["a", "b"]
