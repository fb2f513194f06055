"""The walk of structured values that escaping rewrites: the string tokens of JSON text, and
the text fields of chat messages (Chat Completions, Responses and Anthropic Messages shapes) and
tool definitions."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import regex

from guard._depth import nesting_error
from guard._escaper import Escaper

__all__ = ["Walker", "rewrite_json_strings", "role_of"]

# A JSON string token. In a valid document, scanning left to right with this pattern finds exactly
# the string tokens, because outside strings JSON has no quote characters.
_JSON_STRING = regex.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"', regex.DOTALL)


def rewrite_json_strings(
    doc: str, transform: Callable[[str], tuple[str, int]], quick: tuple[str, ...]
) -> tuple[str, int]:
    """``doc`` with each string token that ``transform`` changes rewritten (the rest kept byte
    for byte), and the sum of ``transform``'s counts."""
    total = 0
    pieces: list[str] = []
    last = 0
    for m in _JSON_STRING.finditer(doc):
        token = m.group()
        # A token whose raw text has neither a JSON escape nor any character every reserved
        # spelling needs cannot decode to one: skip the json.loads.
        if "\\" not in token and not any(ch in token for ch in quick):
            continue
        value = json.loads(token)
        new_value, count = transform(value)
        if not count:
            continue
        total += count
        pieces.append(doc[last : m.start()])
        pieces.append(json.dumps(new_value, ensure_ascii=False))
        last = m.end()
    if not total:
        return doc, 0
    pieces.append(doc[last:])
    return "".join(pieces), total


class Walker:
    """Escapes the text fields of chat messages and Responses items, counting what it did."""

    def __init__(self, escaper: Escaper) -> None:
        self.escaper = escaper
        self.changed = 0
        self.unknown = 0

    def text(self, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        out, count = self.escaper.escape(value)
        if count:
            self.changed += 1
        return out

    def json_text(self, value: Any) -> Any:
        """Arguments are JSON text; escape string leaves so the JSON stays valid."""
        if not isinstance(value, str):
            return self.value(value)
        try:
            json.loads(value)
        except ValueError:
            # Models do produce invalid arguments; plain escaping is still reversible.
            return self.text(value)
        except RecursionError:
            raise nesting_error("JSON arguments") from None
        out, count = rewrite_json_strings(value, self.escaper.escape, self.escaper.quick)
        if count:
            self.changed += 1
        return out

    def value(self, value: Any) -> Any:
        """Any JSON-like value: escape every string leaf and key (tool schemas, structured
        outputs)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(k): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value

    def content(self, content: Any) -> Any:
        if isinstance(content, str):
            return self.text(content)
        if isinstance(content, list):
            return [self.part(p) for p in content]
        if content is None:
            return None
        self.unknown += 1
        return content

    def part(self, part: Any) -> Any:
        if isinstance(part, str):
            return self.text(part)
        if not isinstance(part, dict):
            self.unknown += 1
            return part
        kind = part.get("type")
        if kind in _ANTHROPIC_BLOCKS or (isinstance(kind, str) and kind.endswith("_tool_result")):
            self.anthropic_block(part, kind)
        elif "text" in part and isinstance(part["text"], str):
            part["text"] = self.text(part["text"])
        elif kind in ("refusal",) and isinstance(part.get("refusal"), str):
            part["refusal"] = self.text(part["refusal"])
        elif kind in ("input_image", "image_url", "input_audio", "input_file", "file"):
            pass  # binary or URL parts carry no text a tokenizer reads as structure
        else:
            self.unknown += 1
        return part

    def anthropic_block(self, block: dict[str, Any], kind: str) -> None:
        """An Anthropic Messages content block (``docs/escaping.md``, "Anthropic Messages")."""
        if kind in ("tool_use", "server_tool_use"):
            block["name"] = self.text(block.get("name"))
            if "input" in block:
                block["input"] = self.value(block["input"])
        elif kind == "thinking":
            block["thinking"] = self.text(block.get("thinking"))
        elif kind in ("tool_result", "search_result") or kind.endswith("_tool_result"):
            if "content" in block:
                block["content"] = self.content(block["content"])
            if isinstance(block.get("title"), str):
                block["title"] = self.text(block["title"])
        elif kind == "document":
            source = block.get("source")
            if isinstance(source, dict) and source.get("type") in ("text", "content"):
                if isinstance(source.get("data"), str):
                    source["data"] = self.text(source["data"])
                if isinstance(source.get("content"), str | list):
                    source["content"] = self.content(source["content"])
            for key in ("title", "context"):
                if isinstance(block.get(key), str):
                    block[key] = self.text(block[key])
        # redacted_thinking carries encrypted data and image blocks binary or a URL: nothing a
        # tokenizer reads as text

    def message(self, msg: Any) -> Any:
        """One Chat Completions message or Responses input item (already a private copy)."""
        if not isinstance(msg, dict):
            self.unknown += 1
            return msg
        kind = msg.get("type")
        if kind in (None, "message"):
            if "content" in msg:
                msg["content"] = self.content(msg["content"])
            for key in ("name", "reasoning_content", "reasoning", "refusal"):
                if isinstance(msg.get(key), str):
                    msg[key] = self.text(msg[key])
            for call in msg.get("tool_calls") or ():
                if isinstance(call, dict):
                    self.tool_call(call)
            if isinstance(msg.get("function_call"), dict):  # legacy Chat Completions
                self.function(msg["function_call"])
            if "role" not in msg and "content" not in msg:
                self.unknown += 1
        elif kind == "function_call":
            msg["name"] = self.text(msg.get("name"))
            if "arguments" in msg:
                msg["arguments"] = self.json_text(msg["arguments"])
        elif kind == "function_call_output":
            msg["output"] = self.content(msg.get("output"))
        elif kind == "custom_tool_call":
            msg["name"] = self.text(msg.get("name"))
            msg["input"] = self.text(msg.get("input"))
        elif kind == "custom_tool_call_output":
            msg["output"] = self.content(msg.get("output"))
        elif kind == "reasoning":
            for key in ("summary", "content"):
                if isinstance(msg.get(key), list):
                    msg[key] = [self.part(p) for p in msg[key]]
        else:
            self.unknown += 1
        return msg

    def tool_call(self, call: dict[str, Any]) -> None:
        if isinstance(call.get("function"), dict):
            self.function(call["function"])
        elif isinstance(call.get("custom"), dict):
            custom = call["custom"]
            custom["name"] = self.text(custom.get("name"))
            custom["input"] = self.text(custom.get("input"))
        else:
            self.unknown += 1

    def function(self, function: dict[str, Any]) -> None:
        if "name" in function:
            function["name"] = self.text(function["name"])
        if "arguments" in function:
            function["arguments"] = self.json_text(function["arguments"])


#: Anthropic Messages content block types the walk knows besides ``text``.
_ANTHROPIC_BLOCKS = frozenset(
    {
        "tool_use",
        "server_tool_use",
        "tool_result",
        "search_result",
        "thinking",
        "redacted_thinking",
        "image",
        "document",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
    }
)

_ROLE_OF_ITEM = {
    "function_call": "assistant",
    "custom_tool_call": "assistant",
    "reasoning": "assistant",
    "function_call_output": "tool",
    "custom_tool_call_output": "tool",
}


def role_of(msg: Any) -> str | None:
    """The role a message or Responses item speaks in (an item type maps to one), if any."""
    if not isinstance(msg, Mapping):
        return None
    role = msg.get("role")
    if isinstance(role, str):
        return role
    kind = msg.get("type")
    return _ROLE_OF_ITEM.get(kind) if isinstance(kind, str) else None
