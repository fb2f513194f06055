"""text-tool-call: a tool call the model wrote as text becomes a structured call (opt-in).

When a server's tool parser misses the model's call, the answer is, or ends in, the call as text
(signal J). This strategy takes the span of the verdict's J hit and reads the calls in it, in
each text form J knows: a JSON object ``{"name": ..., "arguments": {...}}`` (or
``"parameters"``; arguments as an object or a string holding one), a list of them, an OpenAI
``{"type": "function", "function": {...}}`` item, Hermes ``<tool_call>...</tool_call>``, the XML
form ``<function=NAME><parameter=KEY>VALUE</parameter></function>`` and Harmony's
``functions.NAME:{...}``. The outcome is a :class:`~guard.models.CallSplit`: the text before the
call (trailing blanks removed) and each call's name and arguments (a JSON object, re-encoded).

It is opt-in: no policy chooses it by default, and executing a call the model only wrote is a
decision for the host. Give it the request's declared tools (``TextToolCall(tools=[...])``,
names or OpenAI definitions) and it recovers only calls of declared tools; a call of any other
tool is an ``Abort``. A call whose text does not parse (a lookalike character the detector
folded, arguments that are not an object) is an ``Abort`` too, never a guess.
"""

from __future__ import annotations

import json
import re
from typing import Any

from guard.models import Abort, CallSplit, Outcome, Recovered, RecoveredCall, Verdict

__all__ = ["TextToolCall"]

_DECODER = json.JSONDecoder()
_HERMES = re.compile(r"\s*<tool_call>\s*(.*?)\s*</tool_call>", re.S)
_XML = re.compile(r"\s*<function=([^>\s]*)>(.*?)</function>", re.S)
_PARAM = re.compile(r"<parameter=([^>\s]*)>(.*?)</parameter>", re.S)
_FUNCS = re.compile(r"\s*functions\.([^\W\d][\w-]*)\s*:?\s*(?=\{)")


def _field(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def _declared(tools: Any) -> frozenset[str] | None:
    """Names of ``tools``: names, or definitions with ``function.name`` or ``name`` (dicts or
    objects with those attributes)."""
    if tools is None:
        return None
    if isinstance(tools, str | bytes):
        raise TypeError(
            f"tools must be a list of tool names or definitions, got {type(tools).__name__}"
        )
    names: set[str] = set()
    for i, tool in enumerate(tools):
        function = None if isinstance(tool, str) else _field(tool, "function")
        name = tool if isinstance(tool, str) else _field(function or tool, "name")
        if not isinstance(name, str):
            raise TypeError(
                f"tools[{i}]: expected a tool name or a definition with function.name or name,"
                f" got {type(tool).__name__}"
            )
        names.add(name)
    return frozenset(names)


class _Unreadable(ValueError):
    """The call text does not parse as the form it looks like."""


def _arguments(value: object) -> str:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise _Unreadable("arguments are a string that holds no JSON object") from None
    if not isinstance(value, dict):
        raise _Unreadable(f"arguments must be a JSON object, got {type(value).__name__}")
    return json.dumps(value, ensure_ascii=False)


def _from_object(obj: object) -> RecoveredCall:
    if isinstance(obj, dict) and obj.get("type") == "function" and "function" in obj:
        obj = obj["function"]
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        raise _Unreadable("expected an object with a string name")
    key = "arguments" if "arguments" in obj else "parameters"
    if key not in obj:
        raise _Unreadable("expected arguments or parameters")
    return RecoveredCall(name=obj["name"], arguments=_arguments(obj[key]))


def _xml_arguments(body: str) -> str:
    args: dict[str, Any] = {}
    for m in _PARAM.finditer(body):
        raw = m.group(2).strip("\n")
        try:
            args[m.group(1)] = json.loads(raw)
        except ValueError:
            args[m.group(1)] = raw
    return json.dumps(args, ensure_ascii=False)


def _decode(text: str, pos: int) -> tuple[Any, int]:
    try:
        return _DECODER.raw_decode(text, pos)
    except ValueError:
        raise _Unreadable("the call's JSON does not parse") from None


def parse_calls(text: str) -> list[RecoveredCall]:
    """The calls written in ``text`` (the span of a J hit), in order; raises ``ValueError``
    when some part of it is not a call in a known form."""
    calls: list[RecoveredCall] = []
    pos = 0
    n = len(text)
    while True:
        while pos < n and text[pos].isspace():
            pos += 1
        if pos >= n:
            break
        if text[pos] in "[{":
            value, pos = _decode(text, pos)
            items = value if isinstance(value, list) else [value]
            if not items:
                raise _Unreadable("an empty list of calls")
            calls += [_from_object(item) for item in items]
        elif m := _HERMES.match(text, pos):
            inner = m.group(1)
            xml = _XML.fullmatch(inner)
            if xml is not None:
                calls.append(RecoveredCall(name=xml.group(1), arguments=_xml_arguments(xml[2])))
            else:
                value, end = _decode(inner, 0)
                if inner[end:].strip():
                    raise _Unreadable("text after the call inside <tool_call>")
                calls.append(_from_object(value))
            pos = m.end()
        elif m := _XML.match(text, pos):
            calls.append(RecoveredCall(name=m.group(1), arguments=_xml_arguments(m.group(2))))
            pos = m.end()
        elif m := _FUNCS.match(text, pos):
            value, pos = _decode(text, m.end())
            calls.append(RecoveredCall(name=m.group(1), arguments=_arguments(value)))
        else:
            raise _Unreadable("text that is not a tool call")
    if not calls:
        raise _Unreadable("no tool call")
    return calls


class TextToolCall:
    """Turns a J verdict's tool call written as text into structured calls (module docstring).

    Args:
        tools: the request's declared tools (names or OpenAI tool definitions); ``None`` when
            unknown. With them only calls of declared tools are recovered.
    """

    name = "text_tool_call"

    def __init__(self, tools: Any = None) -> None:
        self.tools = _declared(tools)

    def apply(self, value: str, verdict: Verdict, *, attempt: int = 0) -> Outcome:
        hit = next((h for h in verdict.hits if "J" in h.signals and not h.in_code), None)
        if hit is None:
            if verdict.leak:
                return Abort(reason="no tool call written as text to recover", strategy=self.name)
            return Recovered(
                value=CallSplit(text=value, calls=()), strategy=self.name, detail="nothing to do"
            )
        try:
            calls = parse_calls(value[hit.start : hit.end])
        except ValueError as exc:
            return Abort(reason=f"tool call text not recovered: {exc}", strategy=self.name)
        if self.tools is not None:
            undeclared = [
                c.name
                for c in calls
                if c.name not in self.tools and c.name.removeprefix("functions.") not in self.tools
            ]
            if undeclared:
                return Abort(
                    reason=f"tool call text names an undeclared tool: {undeclared[0]!r}",
                    strategy=self.name,
                )
        calls = [
            c.model_copy(update={"name": c.name.removeprefix("functions.")})
            if self.tools is not None and c.name not in self.tools
            else c
            for c in calls
        ]
        names = ", ".join(c.name for c in calls)
        return Recovered(
            value=CallSplit(text=value[: hit.start].rstrip(), calls=tuple(calls)),
            strategy=self.name,
            detail=f"recovered {len(calls)} tool call(s) from text: {names}",
        )
