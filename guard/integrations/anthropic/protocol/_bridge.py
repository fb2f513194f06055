"""The Messages event bridge: Anthropic Messages stream events in the chunk shape the stream
middleware reads, and what it delivers turned back into events.

Content block ``i`` is choice ``i``: ``text_delta`` is its ``content``, ``thinking_delta`` its
``reasoning_content``; a ``tool_use`` block is call 0 of its choice (the name from
``content_block_start``, the arguments from ``input_json_delta``), complete with its
``content_block_stop``. Every other event rides along as a chunk without choices, so it is
delivered in order (docs/streaming.md, "Provider event streams").
"""

from __future__ import annotations

import json
from typing import Any

from guard._fields import get_field
from guard.integrations._event_bridge import EventBridge, with_fields

__all__ = ["MessageEventBridge"]

_TOOL_BLOCKS = ("tool_use", "server_tool_use")
#: delta type -> (the delta's text field, the chunk field it becomes)
_TEXT_DELTAS = {
    "text_delta": ("text", "content"),
    "thinking_delta": ("thinking", "reasoning_content"),
}
#: block type -> (the block's text field, the chunk field it becomes)
_TEXT_BLOCKS = {"text": ("text", "content"), "thinking": ("thinking", "reasoning_content")}


def _sdk_event(event: dict[str, Any]) -> Any:
    """``event`` as the SDK's event type. Only called for a stream of SDK objects, so the SDK
    is installed; this package never imports it otherwise."""
    from anthropic.types import RawMessageStreamEvent
    from pydantic import TypeAdapter

    return TypeAdapter(RawMessageStreamEvent).validate_python(event)


class MessageEventBridge(EventBridge):
    """One stream's bridge (:class:`~guard.integrations._event_bridge.EventBridge`), and
    :meth:`terminal` for the events that end a stopped stream."""

    def __init__(self) -> None:
        super().__init__()
        #: block index -> type, as the upstream started them
        self.kinds: dict[int, str] = {}
        #: the ``message`` of the delivered ``message_start`` (None before it)
        self.message: Any = None
        #: blocks delivered started and not yet stopped
        self.open: set[int] = set()
        self.tool_delivered = False
        self.delta_delivered = False
        self.stop_delivered = False

    def _delta(self, event: Any, index: int) -> tuple[dict[str, Any] | None, str | None]:
        kind = get_field(event, "type")
        delta: dict[str, Any] | None = None
        finish = None
        if kind == "content_block_start":
            block = get_field(event, "content_block")
            block_kind = get_field(block, "type")
            self.kinds[index] = block_kind if isinstance(block_kind, str) else ""
            if block_kind in _TOOL_BLOCKS:
                function = {"name": get_field(block, "name")}
                start = get_field(block, "input")
                if start:  # a server that sends the whole input up front
                    function["arguments"] = (
                        start if isinstance(start, str) else json.dumps(start, ensure_ascii=False)
                    )
                delta = {"tool_calls": [{"index": 0, "function": function}]}
            elif block_kind in _TEXT_BLOCKS:
                source, target = _TEXT_BLOCKS[block_kind]
                text = get_field(block, source)
                if isinstance(text, str) and text:
                    delta = {target: text}
        elif kind == "content_block_delta":
            body = get_field(event, "delta")
            delta_kind = get_field(body, "type")
            if delta_kind in _TEXT_DELTAS:
                source, target = _TEXT_DELTAS[delta_kind]
                delta = {target: get_field(body, source)}
            elif delta_kind == "input_json_delta":
                arguments = get_field(body, "partial_json")
                delta = {"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}
        elif kind == "content_block_stop" and self.kinds.get(index) in _TOOL_BLOCKS:
            delta, finish = {}, "tool_calls"
        return delta, finish

    def _cut(self, event: Any, delta: Any) -> Any:
        """The text event ``event`` with the text the middleware kept (``None``: nothing to
        deliver; a tool call cut short is never delivered)."""
        kind = get_field(event, "type")
        if kind == "content_block_delta":
            body = get_field(event, "delta")
            fields = _TEXT_DELTAS.get(get_field(body, "type"))
            text = get_field(delta, fields[1]) if fields else None
            if not text or fields is None:
                return None
            return with_fields(event, delta=with_fields(body, **{fields[0]: text}))
        if kind == "content_block_start":
            block = get_field(event, "content_block")
            fields = _TEXT_BLOCKS.get(get_field(block, "type"))
            if fields is None:
                return None
            text = get_field(delta, fields[1]) or ""
            return with_fields(event, content_block=with_fields(block, **{fields[0]: text}))
        return None

    def _note(self, event: Any) -> None:
        kind = get_field(event, "type")
        index = get_field(event, "index")
        if kind == "message_start":
            self.message = get_field(event, "message")
        elif kind == "content_block_start" and isinstance(index, int):
            self.open.add(index)
        elif kind == "content_block_stop" and isinstance(index, int):
            self.open.discard(index)
            self.tool_delivered = self.tool_delivered or self.kinds.get(index) in _TOOL_BLOCKS
        elif kind == "message_delta":
            self.delta_delivered = True
        elif kind == "message_stop":
            self.stop_delivered = True

    def terminal(self, aborted: bool) -> list[Any]:
        """The events that end a stream guard stopped, so the message the SDK accumulates is
        well-formed: ``content_block_stop`` for each block left open, then ``message_delta``
        (stop reason ``end_turn``, ``tool_use`` when a complete tool call was delivered, or
        ``refusal`` for a filtered aborting leak) and ``message_stop``."""
        if self.message is None:
            return []  # nothing was started: nothing to end
        events: list[dict[str, Any]] = [
            {"type": "content_block_stop", "index": index} for index in sorted(self.open)
        ]
        self.open.clear()
        if not self.delta_delivered:
            reason = "refusal" if aborted else "tool_use" if self.tool_delivered else "end_turn"
            tokens = get_field(get_field(self.message, "usage"), "output_tokens")
            events.append(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": reason, "stop_sequence": None},
                    "usage": {"output_tokens": tokens if isinstance(tokens, int) else 0},
                }
            )
            self.delta_delivered = True
        if not self.stop_delivered:
            events.append({"type": "message_stop"})
            self.stop_delivered = True
        return [_sdk_event(e) for e in events] if self.sdk else list(events)
