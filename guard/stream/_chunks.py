"""Chat completion chunks: how they are read into surface deltas and how a cut one is rewritten.

OpenAI-style chunks, as dicts or SDK objects: ``delta.content`` is ``text``,
``delta.reasoning_content`` / ``delta.reasoning`` is ``thinking``,
``delta.tool_calls[k].function.name`` / ``.arguments`` are ``tool_name`` / ``tool_arg`` of call
``k``; a call is complete when the next call of its choice starts or the choice has a
``finish_reason`` (docs/streaming.md, "Inputs"). Two shapes are common enough to get their own
paths: the *quiet* chunk (one unfinished choice whose delta is only non-empty ``content``, read
in line by :meth:`guard.stream._engine.Engine.push`) and the *plain* chunk (one choice whose
delta holds only ``content`` and ``role``). A cut stream ends with a
final chunk shaped like the last chunk with choices (docs/streaming.md, "The final chunk").
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from guard._fields import get_field, set_field
from guard.stream._queue import CallSet, Entry, Key, ToolNames

if TYPE_CHECKING:
    from guard.stream._sink import Sink

__all__ = ["ChunkReader", "cut_chunk", "final_chunk", "plain_text", "quiet_choice"]

_TEXT: Key = (0, "text", -1)  # the key of nearly every chunk, built once
#: delta fields that carry surface text, and their surfaces
_TEXT_FIELDS = (("content", "text"), ("reasoning_content", "thinking"), ("reasoning", "thinking"))
_DELTA_FIELDS = ("content", "reasoning_content", "reasoning", "tool_calls", "role")


def _text_key(index: Any) -> Key:
    return _TEXT if index == 0 else (index, "text", -1)


def plain_text(item: dict[str, Any]) -> tuple[Key, Any] | None:
    """``(key, content)`` of a plain dict chunk (one unfinished choice whose delta holds only
    ``content`` and ``role``; ``content`` may be absent), else None: read it field by field."""
    choices = item["choices"]
    if type(choices) is not list or len(choices) != 1:
        return None
    choice = choices[0]
    if type(choice) is not dict or choice.get("finish_reason") is not None:
        return None
    delta = choice.get("delta")
    if type(delta) is not dict or not delta.keys() <= {"content", "role"}:
        return None
    return _text_key(choice.get("index") or 0), delta.get("content")


class ChunkReader:
    """Reads chunks for the engine; remembers the open call per choice, the tool names, and the
    last chunk with choices (the shape of a final chunk)."""

    __slots__ = ("names", "open_calls", "template")

    def __init__(self) -> None:
        self.template: Any = None
        self.open_calls: dict[int, int] = {}  # choice -> index of its call still being written
        self.names = ToolNames()

    @staticmethod
    def accepts(item: object) -> bool:
        return item is not None and get_field(item, "choices") is not None

    def read(self, item: Any, sink: Sink) -> None:
        choices = get_field(item, "choices")
        if choices:
            self.template = item  # a usage chunk (no choices) cannot shape a final chunk
        entry = Entry(item)
        if type(item) is dict:
            plain = plain_text(item)
            if plain is not None:
                sink.feed(entry, plain[0], plain[1])
                sink.put(entry)
                return
        for choice in choices or ():
            index = get_field(choice, "index") or 0
            delta = get_field(choice, "delta")
            if delta is not None:
                sink.feed(entry, _text_key(index), get_field(delta, "content"))
                reasoning = get_field(delta, "reasoning_content")
                if reasoning is None:
                    reasoning = get_field(delta, "reasoning")
                sink.feed(entry, (index, "thinking", -1), reasoning)
                for position, call in enumerate(get_field(delta, "tool_calls") or ()):
                    self._read_call(entry, index, position, call, sink)
            if get_field(choice, "finish_reason") is not None:
                open_call = self.open_calls.pop(index, None)
                if open_call is not None:
                    sink.close_call(index, open_call)
        sink.put(entry)

    def _read_call(self, entry: Entry, index: int, position: int, call: Any, sink: Sink) -> None:
        k = get_field(call, "index")
        k = position if k is None else int(k)
        previous = self.open_calls.get(index)
        if previous is not None and previous != k:
            sink.close_call(index, previous)  # the next call started: the previous one is done
        self.open_calls[index] = k
        entry.calls.append((index, k))
        function = get_field(call, "function")
        if function is None:
            return
        name = get_field(function, "name")
        if isinstance(name, str) and name:
            self.names.add((index, k), name)
        sink.feed(entry, (index, "tool_name", k), name)
        sink.feed(entry, (index, "tool_arg", k), get_field(function, "arguments"))

    def flush(self, sink: Sink) -> None:
        """Nothing is buffered between chunks."""

    @staticmethod
    def cut(entry: Entry, limits: dict[Key, int]) -> Any:
        return cut_chunk(entry.item, limits)

    def final_chunks(self, delivered: CallSet) -> list[Any]:
        chunk = final_chunk(self.template, delivered) if self.template is not None else None
        return [] if chunk is None else [chunk]


def cut_chunk(item: Any, limits: dict[Key, int]) -> Any:
    """A copy of ``item`` with each limited text field cut to its limit, its tool calls removed
    (a call cut short is never delivered) and no ``finish_reason``; ``item`` is left intact."""
    item = copy.deepcopy(item)
    for choice in get_field(item, "choices") or ():
        index = get_field(choice, "index") or 0
        delta = get_field(choice, "delta")
        if delta is None:
            continue
        for field_name, surface in _TEXT_FIELDS:
            key = (index, surface, -1)
            value = get_field(delta, field_name)
            if key in limits and isinstance(value, str):
                set_field(delta, field_name, value[: limits[key]] or None)
        if get_field(delta, "tool_calls"):
            set_field(delta, "tool_calls", None)
        set_field(choice, "finish_reason", None)
    return item


def final_chunk(template: Any, delivered: CallSet) -> Any:
    """A chunk shaped like ``template`` that ends each of its choices: no delta content, and
    ``finish_reason`` ``tool_calls`` where a call of that choice was delivered, else ``stop``.
    None when ``template`` has no choices."""
    chunk = copy.deepcopy(template)
    choices = get_field(chunk, "choices") or []
    if not choices:
        return None
    finals = []
    seen = set()
    for choice in choices:
        index = get_field(choice, "index") or 0
        if index in seen:
            continue
        seen.add(index)
        delta = get_field(choice, "delta")
        if delta is not None:
            for name in _DELTA_FIELDS:
                if get_field(delta, name) is not None:
                    set_field(delta, name, None)
        complete = index in delivered.choices()
        set_field(choice, "finish_reason", "tool_calls" if complete else "stop")
        finals.append(choice)
    set_field(chunk, "choices", finals)
    return chunk


def quiet_choice(item: dict[str, Any]) -> dict[str, Any] | None:
    """The choice of a chunk with one unfinished choice whose delta is only non-empty content,
    else None (read by subscripts in line: this runs once per streamed chunk)."""
    try:
        choices = item["choices"]
        if type(choices) is not list or len(choices) != 1:
            return None
        choice = choices[0]
        if type(choice) is not dict:
            return None
        delta = choice["delta"]
        if type(delta) is not dict or len(delta) != 1:
            return None
        content = delta["content"]
    except KeyError:
        return None
    if type(content) is not str or not content or choice.get("finish_reason") is not None:
        return None
    return choice
