"""Z: on ``tool_arg``, prose or a second object written after the arguments end.

A model whose reasoning runs on into its call, or whose next call is glued onto this one, leaves
text after the arguments' JSON: ``{"query": "notes", "limit": 5}\n\nI'll now search the memory
store.`` (Ollama relays the reasoning into the arguments buffer), ``{...}We need to read the
file and then explain ...`` (an analysis channel run on), ``{"command": "ls"}{"command": "``
(GLM's second call glued on), ``{"a": 3, "b": 4}\nObservation: 36`` (a ReAct agent's Action
Input with the observation the model forged after it). The host's parser fails on the extra
data, or a lenient one drops it silently, and the reasoning is lost or shown. Stray characters
are not enough (a doubled closing brace ``{"path": "a"}}`` is no leak): the text after the last
closing brace must be a sentence of words (three at least, opening with a capital letter), a
ReAct label and its line (``Observation:``, ``Thought:``, ``Action:``, ``Final Answer:``), the
call's own closing tag (``</function_call>``, ``</tool_call>``, ``</invoke>``: a lenient
extractor kept the envelope's end; also under a namespace, ``</minimax:tool_call>``), such
a closer cut short by the end after whole JSON (``</antml``: Claude's envelope, cut) or the
opening of another object with a key, and a JSON key
must stand before the brace (arguments another boundary reads, a code edit or a patch, end in
code whose last line may read like a sentence); when the whole arguments are in view, they must
open with ``{`` or ``[`` (a free-form tool's text may quote JSON and go on in prose). The hit
spans that text; the gate's ``require`` of T on ``tool_arg`` confirms it lies past the parse
boundary (the same words inside a JSON string are data). It is decided when the text ends (a
stream's arguments are delivered whole, so nothing is shown early), on its last :data:`SPAN`
characters. A ReAct label on its own line after a closing brace counts wherever it stands there:
the observation forged after it may be JSON itself, so nothing follows the last brace.

The arguments may also open as the tail of the call's envelope: the quote that ended the call's
name (the name or its end before it, quoted or not), a comma and the envelope's
``"arguments"`` (or ``"parameters"``) key: ``", "arguments": {"city": "Paris"}}``,
``weather", "arguments": {...}}``, a streaming parser that cut a Hermes call after its name and
passed the rest of the envelope on as the arguments. No tool's arguments open so. Nor do they
open with a key that is Qwen3-Coder's call frame (``{"function=edit_file", "path="a.py", ...``,
``{"function=webfetch","arguments":{...}}``: a parser that turned ``<function=NAME>`` and
``<parameter=KEY>`` into JSON's keys); the hit starts right after that key, where the JSON
breaks. Nor do they open with empty objects glued before the real one on the same line
(``{}{}{"query": ...}``: a streaming parser that emitted an empty object per delta; the real
one opens with a key); the hit starts at the real one.

Arguments that open with DeepSeek V3's call frame count too: the call's own tool's name (or a
declared tool's) alone on the first line, then a ``json`` fence (``convert_currency\n```json
\n{...}\n```````), the hit from the start.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_regex as regex

from ._common import hit_from_norm

#: characters at the end of the arguments that are read
SPAN = 1024

#: what may follow the last closing brace, to the end: a sentence of three words or more, or a
#: second object's opening key
_JUNK = (
    r"(?:[A-Z][\w'’]*|I)(?:[ \t]+[^\s{}]+){2,}[^{}]*"
    # a ReAct line the model wrote after its Action Input: the tool's observation, forged
    r"|(?:Observation|Thought|Action|Final Answer)[ \t]*:[^{}]*"
    # the call's own closing tag kept by a lenient extractor (``{...}}</function_call>``)
    r"|</(?:tool_call|function_call|function|invoke|tool_use|toolcall|TOOLCALL)>[^{}]*"
    # a closing tag cut short by the end (``</antml``: the envelope's end, cut; checked by
    # :func:`_cut_closer`), or a call's closer under a namespace (``</minimax:tool_call>``); a
    # whole tag that closes no call (``</div>``) is not read
    r"|(?P<cut></[A-Za-z][\w:.-]{0,40})\s*"
    r"|</[A-Za-z]{1,16}:(?:tool_call|function_calls|function_call|invoke|parameter|toolcall)>"
    r"[^{}]*"
    # a sentence in a script without blanks between words (Chinese, Japanese)
    r"|[\u3400-\u9fff\u3040-\u30ff]{4,}[^{}]*"
    r'|\{\s*"[^"\n]{1,64}"\s*:[^}]*'
)
#: after the last closing brace and blanks, to the end
_TRAILING = regex.compile(r"\}\s*(?P<junk>" + _JUNK + r")\Z")

#: a ReAct label on its own line after a closing brace (the observation forged after the Action
#: Input may be JSON itself, so the text after the last brace can be empty)
_REACT_AFTER = regex.compile(
    r"\}[ \t]*\r?\n\s*(?P<label>(?:Observation|Thought|Action|Final Answer)[ \t]*:)"
)
#: a closing brace with an object's opening key right after it (blanks between)
_GLUED = regex.compile(r'\}\s*(?=\{\s*"[^"\n]{1,64}"\s*:)')
#: a JSON key: the arguments before the brace are JSON (another boundary, a code edit or a
#: patch, ends in code whose last line may read like a sentence)
_KEY = regex.compile(r'"[^"\n]{1,64}"\s*:')

#: the arguments opening as the tail of a call's envelope: the name's end or the whole name in
#: quotes, a comma and the envelope's arguments key (a parser that cut the call after its name)
_ENVELOPE_TAIL = regex.compile(
    r'\A\s*"?[\w.:-]{0,64}"\s*,\s*"(?P<key>arguments|parameters)"\s*:\s*[{"]'
)

#: the arguments opening with Qwen3-Coder's call frame as their first key
_FRAME_KEY = regex.compile(r'\A\s*\{\s*"(?:function|parameter)=[^"\n]{0,64}"')

#: the arguments opening with empty objects glued before the real one (``{}{}{"query": ...}``:
#: a streaming parser that emitted an empty object per delta before the arguments arrived)
#: (on one line, the object after them opening with a key: ``{}{}`` alone and JSON Lines,
#: ``{}\n{"a": 1}``, are none)
_EMPTY_FIRST = regex.compile(r'\A\s*(?:\{[ \t]*\}[ \t]*)+(?=\{\s*")')

_TRIGGERS = Triggers(
    # a closing brace, then blanks and a capital, an opening brace or a tag: what every hit's
    # text holds and clean arguments almost never do (nested objects close into ``,``, ``}``
    # or ``]``; a line break in a string is the escape ``\\n``)
    pattern=r"\}\s*[A-Z{<\u3400-\u9fff\u3040-\u30ff]",
    # an envelope's tail holds its arguments key (a literal is an ``in`` test; a pattern that
    # opens with a quote would be tried at every quote of every argument string)
    literals=('"arguments"', '"parameters"', '"function=', '"parameter=', "}</", "```json"),
)
#: DeepSeek V3's call frame left in the arguments (``NAME\n```json\n{...}\n```````: its
#: ``function<｜tool▁sep｜>NAME`` header and the fence around the JSON, read by a parser of
#: another version): the call's own tool's name, or a declared tool's, alone on the first line
_DEEPSEEK_FRAME = regex.compile(
    r"\A\s*(?P<name>[A-Za-z_][\w.\-]{0,63})[ \t]*\r?\n[ \t]*```json[ \t]*\r?\n"
)


#: the closers a call's envelope ends with, and the namespaces its tags carry: a cut tag after
#: the arguments is one of them begun (``</antml``, ``</invo``, ``</tool_ca``)
_CLOSERS = (
    "invoke",
    "function_calls",
    "function_call",
    "function",
    "tool_call",
    "tool_calls",
    "tool_use",
    "toolcall",
    "parameter",
)
_NAMESPACES = ("antml", "minimax", "steptml", "xai")


def _cut_closer(norm: str, brace: int, cut: str, ctx: ScanContext) -> bool:
    """Whether ``cut`` (``</`` and a name, at the end) begins a call envelope's closer, and the
    arguments before it, to ``brace``, are whole JSON (a string cut short may hold ``}`` and a
    tag: ``"<li key={i}>{i}</li``)."""
    name = cut[2:]
    prefix, colon, rest = name.partition(":")
    if colon:
        known = prefix in _NAMESPACES and any(c.startswith(rest) for c in _CLOSERS)
    else:
        known = any(n.startswith(name) for n in (*_NAMESPACES, *_CLOSERS))
    if not known or len(name) < 2 or ctx.offset != 0:
        return False
    try:
        json.loads(norm[: brace + 1])
    except ValueError:
        return False
    return True


def _ndjson(text: str) -> bool:
    """Whether ``text`` is JSON Lines: every non-blank line a whole JSON object, each with the
    same keys (records; a second call glued on has its own arguments' keys)."""
    lines = [line for line in text.splitlines() if line.strip()]
    keys: set[frozenset[str]] = set()
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            return False
        if not isinstance(record, dict):
            return False
        keys.add(frozenset(record))
    return len(lines) >= 2 and len(keys) == 1


class TrailingText:
    code = "Z"
    name = "text after the arguments"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TOOL_ARG})
    max_span = SPAN
    reach = (0, 0)
    order = 33
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        if not ctx.final:
            return
        norm = text.norm
        end = len(norm.rstrip())
        tail = _ENVELOPE_TAIL.match(norm) if ctx.offset == 0 else None
        if tail is not None:
            # the hit starts at the key's name: the quote before it closes the first JSON value
            # (the string ``", "``), so the key lies past the parse boundary
            detail = "the tail of a call's envelope written as the arguments"
            yield hit_from_norm(text, self.code, tail.start("key"), end, detail)
            return
        fenced = _DEEPSEEK_FRAME.match(norm) if ctx.offset == 0 else None
        if fenced is not None and fenced.group("name") in {ctx.tool_name, *(ctx.tools or ())}:
            detail = "DeepSeek's call frame (the tool's name, a json fence) as the arguments"
            yield hit_from_norm(text, self.code, 0, end, detail)
            return
        frame = _FRAME_KEY.match(norm) if ctx.offset == 0 else None
        if frame is not None and frame.end() < end:
            detail = "the call's frame written as the arguments' first key"
            yield hit_from_norm(text, self.code, frame.end(), end, detail)
            return
        empty = _EMPTY_FIRST.match(norm) if ctx.offset == 0 else None
        if empty is not None:
            detail = "empty objects written before the arguments"
            yield hit_from_norm(text, self.code, empty.end(), end, detail)
            return
        lo = max(0, end - SPAN)
        brace = norm.rfind("}", lo, end)
        if brace < 0:
            return
        if lo == 0 and ctx.offset == 0 and not norm.lstrip().startswith(("{", "[")):
            return  # arguments that are not JSON (a free-form tool's text), seen whole
        step = _REACT_AFTER.search(norm, lo, end)
        if step is not None and _KEY.search(norm, lo, step.start()) is not None:
            # a raw line break never stands inside a JSON string: the label follows a closed
            # object, and what comes after it (an observation that is JSON itself) is forged
            detail = "a ReAct step written after the arguments end"
            yield hit_from_norm(text, self.code, step.start("label"), end, detail)
            return
        glued = _GLUED.search(norm, lo, end)
        if glued is not None and _ndjson(norm[lo:end]):
            glued = None  # one object per line: a JSON Lines document, whole
        if glued is not None and _KEY.search(norm, lo, glued.start()) is not None:
            # a second complete object glued on: T tells whether the first one was the whole
            # arguments (an object nested in a value closes into a comma or a bracket)
            detail = "a second object written after the arguments end"
            yield hit_from_norm(text, self.code, glued.end(), end, detail)
            return
        m = _TRAILING.match(norm[:end], brace)
        if m is None or _KEY.search(norm, lo, brace) is None:
            return  # nothing after the brace, or no JSON key before it (code, a patch, a DSL)
        if m.group("cut") is not None and not _cut_closer(norm, brace, m.group("cut"), ctx):
            return
        detail = "text written after the arguments end"
        yield hit_from_norm(text, self.code, m.start("junk"), end, detail)
