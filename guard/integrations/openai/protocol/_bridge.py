"""The Responses event bridge: Responses API stream events in the chunk shape the stream
middleware reads, and what it delivers turned back into events.

Output item ``i`` is choice ``i``: text and refusal deltas are its ``content``, reasoning text
and summary deltas its ``reasoning_content``, and a ``function_call`` / ``custom_tool_call``
item is call 0 of its choice, complete with its ``output_item.done``. Every other event rides
along as a chunk without choices, so it is delivered in order. How the middleware judges the
chunks is in ``docs/streaming.md``, "guard_stream".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from guard._fields import get_field
from guard.integrations._event_bridge import EventBridge, with_fields

__all__ = ["ResponseEventBridge"]

_TEXT_EVENTS = {
    "response.output_text.delta": "content",
    "response.refusal.delta": "content",
    "response.reasoning_text.delta": "reasoning_content",
    "response.reasoning_summary_text.delta": "reasoning_content",
}
_CALL_ITEMS = ("function_call", "custom_tool_call")
_CALL_DELTAS = ("response.function_call_arguments.delta", "response.custom_tool_call_input.delta")


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return cast(dict[str, Any], dump(mode="json", by_alias=True, exclude_unset=True))
    return {}


def _sdk_event(event: dict[str, Any]) -> Any:
    """``event`` as the SDK's event type. Only called for a stream of SDK objects, so the SDK
    is installed; this package never imports it otherwise."""
    from openai.types.responses import ResponseStreamEvent

    try:
        from openai._models import construct_type
    except ImportError:  # pragma: no cover - every supported SDK has it
        from pydantic import TypeAdapter

        return TypeAdapter(ResponseStreamEvent).validate_python(event)
    return construct_type(type_=ResponseStreamEvent, value=event)


@dataclass
class _ItemState:
    added: Any
    done: Any = None
    text: dict[int, str] = field(default_factory=dict)


class ResponseEventBridge(EventBridge):
    """One stream's bridge (:class:`~guard.integrations._event_bridge.EventBridge`), and
    :meth:`terminal` for the events that end a stopped stream."""

    index_field = "output_index"

    def __init__(self) -> None:
        super().__init__()
        self.snapshot: Any = None
        #: the highest ``sequence_number`` delivered so far (-1 before any)
        self.sequence = -1
        self.items: dict[int, _ItemState] = {}

    def _delta(self, event: Any, index: int) -> tuple[dict[str, Any] | None, str | None]:
        kind = get_field(event, "type")
        delta: dict[str, Any] | None = None
        finish = None
        if kind in _TEXT_EVENTS:
            delta = {_TEXT_EVENTS[kind]: get_field(event, "delta")}
        elif kind in _CALL_DELTAS:
            arguments = get_field(event, "delta")
            delta = {"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}
        elif kind in ("response.output_item.added", "response.output_item.done"):
            item = get_field(event, "item")
            if get_field(item, "type") in _CALL_ITEMS:
                if kind.endswith(".added"):
                    function = {"name": get_field(item, "name")}
                    delta = {"tool_calls": [{"index": 0, "function": function}]}
                else:
                    delta, finish = {}, "tool_calls"
        return delta, finish

    def _cut(self, event: Any, delta: Any) -> Any:
        kind = get_field(event, "type")
        if kind not in _TEXT_EVENTS or delta is None:
            return None  # a tool call cut short is never delivered
        text = get_field(delta, _TEXT_EVENTS[kind])
        if not text:
            return None
        return with_fields(event, delta=text)

    def _note(self, event: Any) -> None:
        kind = get_field(event, "type")
        sequence = get_field(event, "sequence_number")
        if isinstance(sequence, int):
            self.sequence = max(self.sequence, sequence)
        index = get_field(event, "output_index")
        if kind in ("response.created", "response.in_progress"):
            self.snapshot = get_field(event, "response")
        elif kind == "response.output_item.added" and isinstance(index, int):
            self.items[index] = _ItemState(added=get_field(event, "item"))
        elif kind == "response.output_item.done" and isinstance(index, int):
            item = get_field(event, "item")
            self.items.setdefault(index, _ItemState(added=item)).done = item
        elif kind == "response.output_text.delta" and isinstance(index, int):
            state = self.items.get(index)
            part = get_field(event, "content_index") or 0
            if state is not None:
                state.text[part] = state.text.get(part, "") + (get_field(event, "delta") or "")

    def terminal(self, aborted: bool) -> list[Any]:
        """The events that end a stream guard stopped: each message item left open, done with
        the text delivered, then ``response.completed`` (or ``response.incomplete``, reason
        ``content_filter``, for an aborting leak) listing what was delivered."""
        events: list[dict[str, Any]] = []
        output: list[dict[str, Any]] = []
        for index in sorted(self.items):
            state = self.items[index]
            if state.done is not None:
                output.append(_as_dict(state.done))
                continue
            item = _as_dict(state.added)
            if item.get("type") != "message" or not state.text:
                continue  # an unfinished call or reasoning item is not delivered
            item["content"] = [
                {"type": "output_text", "text": state.text[k], "annotations": []}
                for k in sorted(state.text)
            ]
            item["status"] = "incomplete" if aborted else "completed"
            events.append(
                self._numbered(
                    {"type": "response.output_item.done", "output_index": index, "item": item}
                )
            )
            output.append(item)
        if self.snapshot is not None:
            response = _as_dict(self.snapshot)
            response["status"] = "incomplete" if aborted else "completed"
            response["incomplete_details"] = {"reason": "content_filter"} if aborted else None
            response["output"] = output
            kind = "response.incomplete" if aborted else "response.completed"
            events.append(self._numbered({"type": kind, "response": response}))
        return [_sdk_event(e) for e in events] if self.sdk else list(events)

    def _numbered(self, event: dict[str, Any]) -> dict[str, Any]:
        self.sequence += 1
        event["sequence_number"] = self.sequence
        return event
