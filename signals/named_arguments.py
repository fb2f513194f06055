"""F: with declared tools, the answer ends in a call of a declared tool written as text in
an ad-hoc shape: a JSON object its name introduces or that names it, or the call by its name.

J reads the call forms of the dialects and of their peers. Models also write calls in shapes no
template defines, and every one of them names the tool it calls:

* the name, then the arguments: ``get_weather\n{"location": "Paris"}`` (GLM-4-0414's own call
  form with its tokens stripped), ``bash {"command": "ls"}``, ``to=read_file {...}`` (a
  Harmony header whose namespace went missing), ``nc://search {...}``: the name stands alone
  at a line start (or after ``to=`` or ``://``), and only blanks (at most one line break) lie
  between it and the object;
* an object whose first key (``tool``, ``tool_name``, ``action`` or ``function``) names the
  tool and a later key (``args``, ``arguments``, ``params``, ``parameters`` or ``input``) holds
  its arguments as an object: ``{"action": "read_file", "params": {"path": "src/main.py"}}``;
* in the answer only (a reasoning part ends with the call it makes natively): an object whose
  only key is the tool's name, its arguments the value, closed by a wrapper's closing tag
  (``{"browser_open": {"url": ...}}\n</tool_code>``; bare, it is what a configuration or a
  table of tools looks like);
* in the answer only, the call written by the name at a line start, with arguments (an
  object, keywords or a quoted string; ``await``, ``functions.`` and a closing ``;`` allowed):
  ``channel_reply({"text": ...})``, ``get_order(order_id="A1")``, Gemini's code form
  ``print(default_api.get_order(...))``, Gemma's call body without its ``call:``
  (``mandatory_tool{key:value}``, for the Gemma and Gemini dialects only: elsewhere it reads as
  CSS), or a pythonic call list on the last line that was never closed
  (``[get_weather(city="Dublin"), get_date(``); not when the line before introduces it with a
  colon (``Call it like this:``), as an example;
* in the answer only, a call list that opens its line under a lone ``tool_calls`` key in any
  case (``{"toolCalls": [{"type": "bash", "command": "ls"}]}``), every call naming a declared
  tool (one object naming a tool beside other keys, ``{"name": "bash", "score": 3}``, may be
  data and is not read).

An object in one of J's forms (``{"name": ..., "arguments": {...}}``) is J's finding, not F's.
Without declared tools nothing tells such an object from a JSON answer, so F is silent (the
audit's prefilter leaves it out there). With them, the name is the evidence: an object after
a name inside a sentence or a path (``The final result\n{...}``, ``application/json {...}``),
or naming a tool that was not declared, does not fire. The object must end the text (trailing
blanks allowed) and fit in the last :data:`SPAN` characters. The hit is the object; it depends
on the end of the text, so a stream decides it at the end. A stream holds back a trailing
object of the keyed form, and a call list under a lone ``tool_calls`` key, until it closes; it
does not hold an object back for the name before it (that would hold every JSON answer, in
every stream: the stream's plan is per dialect, not per request), so for that form it relays
the object and reports the leak, cut at the ``{``, when the text ends.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_regex as regex

from ._common import declared as _declared
from ._common import hit_from_norm
from .tool_call_text import _TAIL as _J_CALLS

#: characters at the end of the text the object may span
SPAN = 2048
#: characters before the object in which its introducing name is looked for
BEFORE = 128

#: (group names of their own: a stream joins every signal's tail into one pattern)
_DEFINE = r"""(?(DEFINE)
  (?<fs>"(?:[^"\\]|\\.)*")
  (?<fv>(?&fs)|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|(?&fo)|(?&fa))
  (?<fo>\{\s*(?&fs)\s*:\s*(?&fv)(?:\s*,\s*(?&fs)\s*:\s*(?&fv))*\s*\})
  (?<fa>\[\s*(?:(?&fv)(?:\s*,\s*(?&fv))*)?\s*\])
)"""
#: a JSON object with at least one key, to the end of the text
_OBJECT = regex.compile(_DEFINE + r"(?&fo)\s*", regex.VERSION1)
#: the keyed form, to the end of the text: the first key names the tool, a later key holds
#: the arguments as an object; this is also what a stream holds back (an object that opens with
#: another key is released as it comes, so an ordinary JSON answer costs a stream nothing)
_KEYED_SOURCE = (
    _DEFINE + r"\{\s*\"(?:tool|tool_name|action|function)\"\s*:\s*(?<fname>(?&fs))"
    r"(?:\s*,\s*(?&fs)\s*:\s*(?&fv))*?"
    r"\s*,\s*\"(?:args|arguments|params|parameters|input)\"\s*:\s*(?&fo)"
    r"(?:\s*,\s*(?&fs)\s*:\s*(?&fv))*\s*\}\s*"
)
_KEYED = regex.compile(_KEYED_SOURCE, regex.VERSION1)
#: a call list under a lone ``tool_calls`` key (any case), to the end of the text: held back by
#: a stream too, so the calls it forges are not shown before the end decides them
_LISTED_SOURCE = (
    r"\{\s*\"(?i:tool_?calls|toolcalls|function_?calls|functioncalls)\"\s*:\s*(?&fa)\s*\}\s*"
)
#: what a stream holds back: either form, from its opening brace to the end
_TAIL_SOURCE = _DEFINE + "(?:" + _KEYED_SOURCE[len(_DEFINE) :] + "|" + _LISTED_SOURCE + ")"
#: where the object may start
_OPEN = regex.compile(r"\{")
#: the name right before the object: alone at a line start (or after ``to=`` or ``://``), with
#: only blanks (one line break at most) between it and the object
_NAME_BEFORE = regex.compile(
    r"(?:^|(?<=\n)|(?<=to=)|(?<=://))[ \t]*([A-Za-z_][\w.\-]*)[ \t]*(?:\n[ \t]*)?\Z"
)

#: the tool's name as the object's only key, its arguments the value: ``{"browser_open":
#: {"url": ...}}``, bare or in a wrapper whose closing tags may follow it
_SOLO = regex.compile(
    _DEFINE + r"\{\s*(?<sname>(?&fs))\s*:\s*(?&fo)\s*\}\s*"
    r"(?:</[A-Za-z_][\w.\-]*>\s*|<\|/[A-Za-z_][\w.\-]*\|>\s*)+",
    regex.VERSION1,
)
#: a line that may open a call written by the tool's name
_CALL_LINE = regex.compile(
    r"(?m)^[ \t]*(?=(?:await\s+)?(?:print\(\s*)?(?:default_api\.|functions\.)?[A-Za-z_][\w\-]*[({])"
)
#: the call by name, to the end of the text: ``channel_reply({...})``, ``get_order(id="A1")``,
#: Gemini's code form ``print(default_api.get_order(id="A1"))``, Gemma's call body without its
#: ``call:`` (``mandatory_tool{key:value}``)
_BY_NAME = regex.compile(
    r"(?(DEFINE)(?<fp>\((?:[^()\"']|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|(?&fp))*\))"
    r"(?<fb>\{(?:[^{}]|(?&fb))*\}))"
    r"(?:await\s+)?(?P<wrap>print\(\s*)?(?:default_api\.|functions\.)?(?P<cname>[A-Za-z_][\w\-]*)"
    r"(?:(?=\(\s*(?:\{|[A-Za-z_]\w*\s*=|[\"']))(?&fp)|(?P<brace>(?=\{\s*[A-Za-z_][\w\-]*\s*:)(?&fb)))"
    r"(?(wrap)\s*\))\s*;?\s*",
    regex.VERSION1,
)

#: a pythonic call list on the text's last line, never closed (``[get_weather(city="Dublin"),
#: get_date(`` as generation stopped)
_CUT_LIST = regex.compile(r"(?m)^[ \t]*\[\s*(?P<cname>[A-Za-z_][\w\-]*)\([^\n\]]*\Z")

_TRIGGERS = Triggers(
    literals=("{", "("),
    needs_tools=True,
    scope="ending",
    tail=_TAIL_SOURCE,
    tail_start=r"\{",
    last="",
)


#: the dialects whose call body a bare ``NAME{key:value}`` is (Gemma's, its ``call:`` stripped)
BRACE_BODY_DIALECTS = frozenset({"gemma", "gemini", "all"})


def _by_name(
    norm: str, lo: int, end: int, tools: frozenset[str], dialect: str
) -> tuple[int, str] | None:
    """Where a call of a declared tool written by its name starts, and the name, when one
    ends the text (or a pythonic call list of one, cut short on its last line). A call the
    line before introduces with a colon (``Call it like this:``) is an example shown."""
    for m in _CALL_LINE.finditer(norm, lo, end):
        call = _BY_NAME.fullmatch(norm, m.end())
        if call is None or not _declared(call.group("cname"), tools):
            continue
        if call.group("brace") is not None and dialect not in BRACE_BODY_DIALECTS:
            continue
        if norm[: m.start()].rstrip().endswith(":"):
            continue
        return m.end(), call.group("cname")
    cut = _CUT_LIST.search(norm, lo, end)
    if cut is not None and _declared(cut.group("cname"), tools):
        return cut.start(), cut.group("cname")
    return None


#: the keys a call list holds its calls under (its only key, in any case), and the keys each
#: call names its tool under
_CALL_LIST_KEYS = frozenset({"tool_calls", "toolcalls", "function_calls", "functioncalls"})
_CALL_NAME_KEYS = frozenset(
    {"name", "tool", "tool_name", "toolname", "function", "action", "operation", "type"}
)


def _listed_call(obj: object, tools: frozenset[str]) -> str | None:
    """The first declared tool of a call list written as text: an object whose only key is
    ``tool_calls`` (any case: ``{"toolCalls": [{"type": NAME, "command": ...}]}``) holding a
    non-empty list of calls, each naming a declared tool under one of
    :data:`_CALL_NAME_KEYS`. (One object naming a tool beside other keys, ``{"name": "bash",
    "score": 3}``, may be data; a list of calls under that key is not.)"""
    if not isinstance(obj, dict) or len(obj) != 1:
        return None
    key, calls = next(iter(obj.items()))
    if not isinstance(key, str) or key.lower() not in _CALL_LIST_KEYS:
        return None
    if not isinstance(calls, list) or not calls:
        return None
    names = [_named(call, tools) for call in calls]
    return names[0] if all(names) else None


def _named(call: object, tools: frozenset[str]) -> str | None:
    """The declared tool a call of a call list names under one of :data:`_CALL_NAME_KEYS`."""
    if not isinstance(call, dict):
        return None
    for key, value in call.items():
        named = isinstance(key, str) and key.lower() in _CALL_NAME_KEYS
        if named and isinstance(value, str) and _declared(value, tools):
            return value
    return None


def _decoded(text: str) -> object:
    """``text`` parsed as JSON, or ``None``."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


class NamedArguments:
    code = "F"
    name = "arguments named after a declared tool"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT, Surface.THINKING})
    max_span = SPAN
    reach = (0, 0)
    order = 31
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        tools = ctx.tools
        if not ctx.final or not tools:
            return
        norm = text.norm
        end = len(norm.rstrip())
        lo = max(0, end - SPAN)  # trailing blanks do not push a call out of the span
        for m in _OPEN.finditer(norm, lo, end):
            at = m.start()
            if _OBJECT.fullmatch(norm, at) is None:
                solo = _SOLO.fullmatch(norm, at) if ctx.surface is Surface.TEXT else None
                if solo is not None and _declared(solo.group("sname")[1:-1], tools):
                    if _J_CALLS.fullmatch(norm, at) is None:
                        name = solo.group("sname")[1:-1]
                        detail = f"call of declared {name!r} written as text (its name the key)"
                        yield hit_from_norm(text, self.code, at, end, detail)
                    return
                continue
            if _J_CALLS.fullmatch(norm, at) is not None:
                return  # a call in one of J's forms: J's finding
            before = _NAME_BEFORE.search(norm, max(0, at - BEFORE), at)
            if before is not None and _declared(before.group(1), tools):
                detail = f"arguments of declared {before.group(1)!r} written as text after its name"
                yield hit_from_norm(text, self.code, at, end, detail)
                return
            keyed = _KEYED.fullmatch(norm, at)
            if keyed is None:
                line = norm.rfind("\n", 0, at) + 1
                opens_line = not norm[line:at].strip()
                introduced = norm[:line].rstrip().endswith(":")
                listed = None
                if opens_line and not introduced and ctx.surface is Surface.TEXT:
                    listed = _listed_call(_decoded(norm[at:end]), tools)
                if listed is not None:
                    detail = f"call of declared {listed!r} written as text (a call list)"
                    yield hit_from_norm(text, self.code, at, end, detail)
                break
            name = keyed.group("fname")[1:-1]
            if _declared(name, tools):
                detail = f"call of declared {name!r} written as text (ad-hoc keys)"
                yield hit_from_norm(text, self.code, at, end, detail)
            return  # the first object that reaches the end is the one that counts
        if ctx.surface is not Surface.TEXT:
            return  # a reasoning part ends with the call it makes natively
        found = _by_name(norm, lo, end, tools, ctx.dialect.name)
        if found is not None and _J_CALLS.fullmatch(norm, found[0]) is None:
            at, name = found
            detail = f"call of declared {name!r} written as text by its name"
            yield hit_from_norm(text, self.code, at, end, detail)
