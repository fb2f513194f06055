"""Y: with declared tools, a call of one of them written inside the answer, where the text may go
on after it.

J and F read a call that ends the text. A model whose native call failed also writes the call in
the middle of its reply and keeps talking (``Okay, cooler now. {"name": "HassClimateSetTemperature",
"arguments": {"temperature": 20}} Anything else?``), or writes it as a record an agent's
interface prints (``[Tool Call: calendar_update] Arguments: {...}``). With declared tools the
name is the evidence, wherever the call sits (the ``text`` surface only: a reasoning part drafts
the calls it then makes natively):

* a JSON object that names a declared tool under ``name``, ``tool``, ``tool_name`` or
  ``function`` and holds its arguments (an object, or a string holding one) under
  ``arguments``, ``parameters``, ``args``, ``params`` or ``input``, its keys in any order, alone
  or nested in a larger object (Gemini's planning ``{"thought": ..., "call": {"name": ...,
  "args": {...}}}``); besides those it may hold only ``id``, ``call_id``, ``index`` and a
  ``type`` of a call (``function``, ``tool_use``, ...): a record with keys of its own is data
  that names a tool;
* an element named after a declared tool whose name holds a ``_`` or ``-``, or after a tool of
  Cline's XML text protocol (:data:`TEXT_PROTOCOL_TOOLS`, declared or not) with its first
  parameter's element right after its opening tag, not in a text about the protocol (Cline or
  Roo Code named in the 400 characters before it, or a line right before it that introduces a
  sample: ``example``, ``e.g.``, ``looks like``, ``like this``, ``as follows``, ``emits``),
  opening its line
  and closed (``<execute_command> npm run build </execute_command>``, the text protocol of
  Cline-style agents), not after a line ending in a colon; a protocol call cut short by the end
  of the text, its first parameter closed and nothing after it, counts too; likewise an element
  of OpenHands' CodeAct protocol (:data:`CODEACT_TOOLS`, or ``execute_NAME`` with ``NAME``
  declared) holding its command (``<execute_bash>\nls -F src/\n</execute_bash>``), after a
  sentence or a blank line, not in a text about the protocol (OpenHands or CodeAct named before
  it, or a sample's line);
* a call record in brackets: ``[Tool Call: NAME]``, ``[Calling tool: NAME(...)``, ``[Function
  call: NAME ...``, ``[Using tool: NAME ...`` (any case), or without the colon when its
  arguments follow the name (``[Called function "NAME" with args: {...}]``);
* a ReAct step written as text (``Action: NAME`` on its line, ``Action Input: ...`` on the
  next; or ``Function: NAME`` or ``Tool: NAME``, then ``Arguments:``, ``Args:``,
  ``Parameters:`` or ``Input:`` and a JSON object that is no JSON Schema), the text protocol a
  model falls back to when native calls are declared;
* the Vercel AI SDK's call part (``{"type": "tool-call", "toolName": NAME, "args": {...}}``) and
  its result record, forged (``{"type": "tool-result", "toolName": NAME, "result": ...}``);
  LM Studio's ``[TOOL_REQUEST]`` protocol; a harness's bracketed note of a call or its result
  (``[SYSTEM: Tool NAME was previously called and returned: ...]``); a result as an interface
  prints it (``[tool result: NAME] ...``, ``Tool output (NAME):``), forged;
* Gemini's namespaced call ``default_api.NAME(key=value)``, with arguments (or none inside
  ``print(...)``, its code form: ``print(default_api.Greetings())``);
* a call's header left bare on its line: ``call NAME`` (a declared name, a period after it or
  not) alone on its line (``call read.``), or ``call`` alone with the arguments' JSON opening
  the next line (``call\n[{"question": ...}]``), opening the text or after a line that ends a
  sentence (or, for ``call NAME``, a blank line), not after a line ending in a colon;
* a list of pythonic calls alone on its line (``[get_weather(location="Paris")]``), or one
  call after a narrating ``Calling``, ``Running``, ``Invoking`` or ``Executing`` (keyword
  arguments or none, an ellipsis after it or not): the call syntax of LFM2, Llama 4 and the
  pythonic dialect whose wrapper tokens were stripped (J reads such a list that ends the text),
  not after a line ending in a colon, not indented as a Markdown code block;
* a Harmony header that kept its recipient and lost its tokens, its arguments after it:
  ``to=functions.NAME json\\n{...}``, also with the channel word a stripped header leaves
  between them (``to=functions.NAME commentary json {...}``);
* with ``apply_patch`` declared, the patch envelope its argument opens with (``*** Begin
  Patch``, at a line's start or after an escaped line break): the patch written into the
  answer instead of sent to the tool; and the result it prints (``Success. Updated the
  following files:`` and a ``M path`` line), forged.

Two more forms depend on the end of the text (the signal's ending part, ``Detection.ends``), so a
stream decides them when it ends, over its last ``2 * SPAN`` characters: a fenced
block (after an optional ReAct ``Action:`` label) that holds nothing but a call, or a list of
calls, of declared tools (a ``json`` fence around ``{"name": ..., "parameters": {...}}`` or
``{"tool_calls": [...]}``, OpenAI's entries ``{"type": "function", "function": {...}}`` too,
also inside Hermes' ``<tool_call>`` or a ``<function_call>`` wrapper, or an ``xml`` fence
around Anthropic's ``<function_calls>`` and its ``<invoke name="NAME">`` elements), as the
whole answer, or with a little narration of the model's own step around it: the fence's
opening line is its header, so the finding is not code; code the user asked for is introduced
or explained), and a call cut
short by the end of the text, its arguments begun and never closed (``<TOOLCALL>[{"name":
"get_weather", "arguments": {"loc``).

A declared name matches as spelled, without a ``functions.`` namespace, or with its hyphens
written as underscores (``resolve_library_id`` for ``resolve-library-id``). A call object is
at most :data:`SPAN` characters.

A call that ends the text in one of J's or F's forms is their finding (``{"name": ...,
"arguments": ...}`` with its keys in that order, ``{"tool": ..., "args": ...}``), not this
one's. A call in code (a fence or an inline span) is exempt as every finding is. Without declared
tools nothing here tells a call from data (``{"name": "Bob", "args": {...}}``), so the signal is
silent.

In a stream the hit is found once the call has arrived whole; what came before it has been
relayed, what follows it is cut. A window scan reads a call object that way while it is short
(about 150 characters); a longer one (up to :data:`SPAN`) is the ending part's too, which a
stream also runs every kilobyte while the text grows (its sweeps), so it is found at most about
1.7 KB after it ends. The calls inside a fenced block that is the whole answer are read as any
call is: code inside a fence, hits of their own where the fence opens no block (Cohere's
``Action: ```json`` on one line).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_regex as regex

from ._common import declared, hit_from_norm
from .named_arguments import _BY_NAME as _F_BY_NAME
from .named_arguments import _KEYED as _F_KEYED
from .tool_call_text import _TAIL as _J_CALLS

#: the longest call read (an object, a record, a header and its arguments)
SPAN = 2048
#: how many enclosing openings before a name key are tried as the call object's start
DEPTH = 4
#: how many braces back from a name key its openings are looked for (a call's own opening is
#: a few braces away; a data answer's earlier records are not worth reading past)
STEPS = 128

_NAME_KEYS = ("name", "tool", "tool_name", "toolname", "function", "action", "recipient_name")
_ARG_KEYS = ("arguments", "parameters", "args", "params", "input", "action_input", "tool_input")
#: a name key with a string value (a ``functions.`` or ``default_api.`` namespace on the name)
_NAME_KEY = regex.compile(
    r'"(?i:name|tool|tool_name|toolname|function|action|recipient_name)"\s*:\s*'
    r'"(?:functions\.|default_api\.)?'
    r'((?:[^"\\]|\\.){1,128})"'
)
#: a record an interface prints for a call, and the tool it names
_RECORD = regex.compile(
    r"\[(?i:(?:tool|function)(?:[ _]?call(?:ed)?)?|(?:call|us|execut|invok|runn)(?:ing|ed)"
    r"(?:[ _](?:tool|function))?|tool[ _]use)[ \t]*[:\-][ \t]*[`\"']?"
    r"(?P<name>[A-Za-z_][\w.\-]{0,127})[`\"']?(?=[\](,{ \t])(?!\]\()"
    # without the colon, the name and its arguments after it (``[Called function "web_search"
    # with args: {...}]``)
    r"|\[(?i:(?:call|us|execut|invok|runn)(?:ing|ed)[ _](?:tool|function))[ \t]+[`\"']?"
    r"(?P<name2>[A-Za-z_][\w.\-]{0,127})[`\"']?[ \t]+(?i:with[ \t]+arg(?:ument)?s?)"
    r"[ \t]*[:=]?[ \t]*[{(](?![^\]\n]*\]\()"
)
#: the same record unbracketed, opening its line: ``Calling tool "read" with arguments:
#: {...}``, the line an agent's log prints for a call, which the model writes instead of calling
#: (its first word one of :data:`_NARRATIONS`, literals of the triggers)
_LOGGED = regex.compile(
    r"(?m:^)[ \t]*(?:Calling|Running|Invoking|Executing) [ \t]*(?:the[ \t]+)?(?i:tool|function)"
    r"[ \t]+[`\"']?(?P<name>[A-Za-z_][\w.\-]{0,127})[`\"']?[ \t]+"
    r"(?i:with[ \t]+(?:arg(?:ument)?s?|param(?:eter)?s|input))[ \t]*[:=]?[ \t]*"
    # the arguments' object ends the line (``... {"command": "ls"} failed`` is a sentence)
    r"\{[^\n]*\}[ \t]*(?=\r?\n|\Z)"
)
#: a text about a log, a trace or steps to reproduce before a logged line: it quotes the line
_LOG_TALK = regex.compile(
    r"(?i)\b(?:logs?|logged|traces?|output|prints?|printed|reproduce|steps|transcript|example)\b"
)
#: LM Studio's text protocol for a call: ``[TOOL_REQUEST]`` then the call, a JSON object or the
#: tool's name and its arguments (``list_directory {"path": "src"}``), then ``[END_TOOL_REQUEST]``
_REQUEST = regex.compile(
    r"\[TOOL_REQUEST\][ \t]*\r?\n?[ \t]*(?:\{[^\n]{0,200}?\"(?i:name|tool|tool_name)\"\s*:\s*\""
    r"(?P<json>[A-Za-z_][\w.\-]{0,127})\"|(?P<name>[A-Za-z_][\w.\-]{0,127})[ \t]*[{(])"
)
#: a harness's bracketed note of a call or its result, which the model imitates
#: (``[SYSTEM: Tool readFile was previously called and returned: {...}]``, ``[Historical context:
#: a different model called tool "read" with arguments: {...}]``)
_NOTE = regex.compile(
    r"(?m)^[ \t]*\[(?:SYSTEM|System|Historical\s+context)[ \t]*:[^\]\n]{0,80}?"
    r"\b(?i:tool)[ \t]+[`\"']?(?P<name>[A-Za-z_][\w.\-]{0,127})[`\"']?[ \t]+[^\]\n]{0,60}?"
    r"\b(?:returned|with\s+arg(?:ument)?s)\b"
)
#: a tool's result as an interface prints it, which the host writes and the model forges:
#: ``[tool result: NAME] ...``, ``Tool output (NAME):``
_RESULT = regex.compile(
    r"(?m:^)[ \t]*\[(?i:tool[ _]?(?:result|output|response))[ \t]*[:\-][ \t]*[`\"']?"
    r"(?P<name>[A-Za-z_][\w.\-]{0,127})[`\"']?(?=[\]( \t])(?!\]\()"
    r"|(?m:^)[ \t]*(?i:tool[ _]?(?:result|output|response))[ \t]*"
    r"\((?P<paren>[A-Za-z_][\w.\-]{0,127})\)[ \t]*:"
)
#: an element named after a tool, opening its line and closed after its arguments (the
#: text-protocol call of Cline-style agents: ``<execute_command> npm run build
#: </execute_command>``); the name holds a ``_`` or a ``-``, which no HTML or prose tag does
_ELEMENT = regex.compile(
    r"(?m)^[ \t]{0,8}(?P<open><(?P<name>[A-Za-z][\w]*[_-][\w-]*)>)(?=[^<\n]|\n|<[A-Za-z])"
    r"[\s\S]{1,2000}?</(?P=name)>"
)
#: the tools of Cline's and Roo Code's XML text protocol: with native calls declared, a model
#: trained on that protocol writes them as elements instead of calling
TEXT_PROTOCOL_TOOLS = frozenset(
    {
        "read_file",
        "write_to_file",
        "replace_in_file",
        "apply_diff",
        "insert_content",
        "search_and_replace",
        "execute_command",
        "search_files",
        "list_files",
        "list_code_definition_names",
        "browser_action",
        "use_mcp_tool",
        "access_mcp_resource",
        "ask_followup_question",
        "attempt_completion",
        "new_task",
        "plan_mode_respond",
    }
)
#: the actions of OpenHands' CodeAct protocol, whose element holds the command itself: with
#: native calls declared, a model trained on it writes them instead of calling
CODEACT_TOOLS = frozenset({"execute_bash", "execute_ipython", "execute_browse"})
#: the first parameter element of a text-protocol call, right after its opening tag
_CHILD = regex.compile(r"[ \t]*\n?[ \t]*<[a-z_]{1,32}>")
#: a text about the protocol rather than in it: the agents that speak it named before the call
#: ("In Roo Code, finishing a task looks like this", a sample ``.clinerules``), or the line
#: right before it introducing a sample ("For example, to read a file it emits", "e.g."); a
#: coding agent's own words ("the date format", "the docs", "such as utils.py") are neither
_PROTOCOL_NAMED = regex.compile(
    r"(?i)\b(?:cline|roo(?:\s*code)?|clinerules|kilo\s*code|open\s*hands|open\s*devin|code\s*act)\b"
)
_SAMPLE_LINE = regex.compile(
    r"(?i)(?:\b(?:example|for\s+instance|like\s+this|looks\s+like|as\s+follows|emits?)"
    r"|(?<![\w.])e\.g\.)[^\n]{0,40}\n\s*\Z"
)
#: a text-protocol call cut short by the end of the text: its opening tag on its line and one
#: closed parameter element after it, nothing more (``<read_file>\n  <path>a.json</path>``)
_CUT_ELEMENT = regex.compile(
    r"(?m)^[ \t]{0,8}(?P<open><(?P<name>[a-z]+(?:_[a-z]+)+)>)[ \t]*\n?[ \t]*"
    r"<(?P<p>[a-z_]{1,32})>[^<\n]{0,200}</(?P=p)>\s*\Z"
)
#: GLM's call with its tags stripped: ``NAME/KEY>VALUE`` at a line start
_SLASHED = regex.compile(
    r"(?m)^[ \t]*(?P<name>[A-Za-z_][\w.\-]{0,127})/[A-Za-z_]\w{0,63}>(?=[^\s\d])"
)
#: a ReAct step written as text: ``Action: NAME`` on its line, then ``Action Input:`` and the
#: input (the text protocol a model falls back to when native calls are declared), or its
#: variant ``Function: NAME`` (or ``Tool: NAME``) then ``Arguments:`` (``Args:``,
#: ``Parameters:``, ``Input:``) and a JSON object (a tool list describes its parameters there)
_REACT = regex.compile(
    r"(?m)^[ \t]*(?:\*\*)?(?:Action|(?P<fn>Function|Tool))(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*"
    r"(?:\*\*|[`\"'])?(?P<name>[^\s`\"'*][^\n`\"'*]{0,127}?)(?:\*\*|[`\"'])?[ \t]*\r?\n"
    r"[ \t]*(?:\*\*)?(?(fn)(?:Arguments|Args|Parameters|Input)(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*"
    # the variant's arguments a JSON object, not a JSON Schema (a tool's description lists its
    # parameters so: "Parameters: city (string)", "Parameters: {"type": "object", ...}")
    r"\{(?![^\n]{0,80}\"(?:type\"\s*:\s*\"object|properties)\")"
    r"|Action[ _]Input(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*\S)"
)
#: what introduces an object quoted inline as a sample, right before it on its line (``The
#: result part looks like this: {...}``, ``e.g. {...}``)
_SAMPLED = regex.compile(
    r"(?i)(?:looks?\s+like(?:\s+this)?|like\s+this|e\.g\.|for\s+example|for\s+instance"
    r"|such\s+as)[ \t]*:?[ \t]*\Z"
)


def _sampled(norm: str, at: int) -> bool:
    """Whether the object at ``at`` is introduced on its line as a sample."""
    line = norm.rfind("\n", max(0, at - 256), at) + 1
    return _SAMPLED.search(norm, max(line, at - 256), at) is not None


#: the ReAct lines that may stand between a step and what introduces it (``Thought:``,
#: ``Question:``), skipped when the step's introduction is read
_THOUGHT_LINE = regex.compile(
    r"(?m)(?:^[ \t]*(?:\*\*)?(?:Thought|Question)(?:\*\*)?[ \t]*:[^\n]*\n)+\Z"
)


def _react_quoted(norm: str, start: int) -> bool:
    """Whether the ReAct step at ``start`` is shown as a sample: introduced by a line that
    ends with a colon (past its ``Thought:`` and ``Question:`` lines). Only what comes before
    the step is read, so a stream decides as the whole text does; words near a step decide
    nothing (``for example`` stands before real steps too)."""
    at = start
    lines = _THOUGHT_LINE.search(norm, max(0, at - 1024), at)
    if lines is not None:
        at = lines.start()
    return _introduced(norm, at)


#: a list of pythonic calls alone on its line (``[get_weather(location="Paris")]``), the call
#: syntax of LFM2, Llama 4 and the pythonic dialect with its wrapper tokens stripped, or one
#: call after a narrating ``Calling`` (``Calling get_forecast(lat=40.7, lon=-74.0)…``: a bare
#: call on its line is as often an example of code written without a fence); keyword arguments
#: or none, the line's end after it, an ellipsis allowed; not indented four blanks (Markdown's
#: code block)
_LISTED = regex.compile(
    r"(?m)^[ \t]{0,3}(?:(?P<told>(?:Calling|Running|Invoking|Executing)[ \t]+))?"
    r"(?P<at>(?P<list>\[)?)"
    r"(?P<name>[A-Za-z_][\w.\-]{0,127})\((?:\)|[ \t]*[A-Za-z_]\w*[ \t]*=)"
    r"[^\n]{0,2000}?\)(?(list)\])[ \t]*(?:\.{1,3}|…)?[ \t]*(?=\r?\n|\Z)"
)


#: the envelope of the patch grammar an ``apply_patch`` tool takes as its argument (Codex's)
_PATCH = regex.compile(r"\*\*\* Begin Patch(?=\s|\\n)")
#: the declared tools whose argument that grammar is
_PATCH_TOOLS = frozenset({"apply_patch"})
#: the result such a tool prints, which the host writes after the call: forged in the answer
_PATCHED = regex.compile(
    r"(?m)^[ \t]*Success\. Updated the following files:[ \t]*\r?\n[ \t]*[AMD] \S"
)
#: Gemini's namespaced call with arguments, or with none inside its code form's ``print(``
#: opening its line (``tool_codeprint(default_api.Greetings())``, its fence's backticks
#: stripped; not after a line that introduces it, and a bare empty call or one inside a
#: sentence is named in prose: ``default_api.search_web() takes no arguments``, ``run
#: print(default_api.read()) and look``), and a Harmony header's recipient with arguments
_NAMED = regex.compile(
    r"(?<![\w.])(?P<pr>(?<=(?m:^)[ \t]*(?:tool_code)?print\([ \t]{0,4}))?"
    r"default_api\.(?P<api>[A-Za-z_][\w\-]{0,127})"
    r"(?=\(\s*(?:[A-Za-z_]\w*\s*=|[\"'{]|(?(pr)\)\s*\)|(?!))))"
    r"|(?<![\w.])to=functions\.(?P<to>[A-Za-z_][\w\-]{0,127})"
    r"(?=[ \t]*(?:(?:commentary|analysis|final)[ \t]+)?(?:(?:json|code)[ \t]*)?"
    r"(?:\r?\n[ \t]*){0,2}\{)"
)

#: a call's header left bare on its line, its name stripped or kept: ``call read.`` (a declared
#: name), or ``call`` alone with the arguments' JSON opening the next line (Claude's call
#: written as text when its block was lost)
_CALL_LINE = regex.compile(
    r"(?m)^[ \t]{0,3}call(?:[ \t]+(?P<name>[A-Za-z_][\w\-]{0,63}(?:\.[A-Za-z_][\w\-]{0,63})?)\.?"
    r"[ \t]*(?=\r?\n|\Z)"
    r"|[ \t]*\r?\n[ \t]{0,3}(?P<args>\[\s*\{|\{\s*\"))"
)
#: the literals every such line holds
_CALL_LINE_LITERALS = ("\ncall ", "call\n", "call\r\n")

#: the words that narrate a pythonic call on its line (its list form holds a ``[``, a literal
#: already): literals, ``in`` tests, where a pattern for the call's shape would arm every
#: stream of code with keyword arguments
_NARRATIONS = ("Calling ", "Running ", "Invoking ", "Executing ")

_TRIGGERS = Triggers(
    literals=(
        # few and short, so that a stream's quiet test stays cheap: a JSON key's end holds every
        # call object's name key, ``):`` the line form of a result record
        '":',
        '" :',
        "):",
        ">",  # GLM's stripped call, ``shell/command>ls``
        "default_api.",
        "to=functions.",
        "Begin Patch",
        "following files:",
        "[",  # a call or result record in brackets
        "Action",  # a ReAct step
        "Function",  # its variants: ``Function: NAME`` / ``Arguments: {...}``
        "Tool",
        *_NARRATIONS,  # a pythonic call narrated on its line
        *_CALL_LINE_LITERALS,  # a call's header left bare on its line
    ),
    # the same header opening the text
    opening=("call",),
    needs_tools=True,
    # the fenced call that is the whole answer, a call cut short by the end of the text, and
    # the long call objects of the last SPAN characters, with up to SPAN characters before them
    ends=2 * SPAN,
)


def _arguments(value: object) -> bool:
    """Whether a call's arguments value is an object (or a string holding one), and not a
    JSON Schema (a tool's definition names its parameters so: ``{"type": "object",
    "properties": ...}``)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return False
    if not isinstance(value, dict):
        return False
    return not (value.get("type") == "object" and ("properties" in value or "required" in value))


#: keys a call object may hold besides its name and arguments (an id, a call's type, the
#: reasoning some agents put beside the call)
_OTHER_KEYS = frozenset(
    {"id", "call_id", "tool_call_id", "toolcallid", "index", "type"}
    | {"thought", "reasoning", "reason"}
)
#: the values of ``type`` a call object carries (the Vercel AI SDK's part: ``tool-call``)
_CALL_TYPES = frozenset({"function", "function_call", "tool_call", "tool-call", "tool_use"})
#: the values of ``type`` a tool's result record carries (what the host writes after a call)
_RESULT_TYPES = frozenset({"tool-result", "tool_result", "function_call_output"})
#: a word each of those types holds, in any case: a text without one holds no such record
_RESULT_WORD = regex.compile(r"(?i)result|output")
#: the keys such a record holds (a record with keys of its own is data that names a tool)
_RESULT_KEYS = (
    frozenset(_NAME_KEYS)
    | {"type", "id", "call_id", "tool_call_id", "toolcallid"}
    | {
        "result",
        "output",
        "content",
        "is_error",
        "iserror",
    }
)
_CALL_KEYS = frozenset(_NAME_KEYS) | frozenset(_ARG_KEYS) | _OTHER_KEYS


def _kind(value: object) -> object:
    """A record's ``type`` read in any case (``"Tool_Call"``, ``"TOOL-RESULT"``)."""
    return value.lower() if isinstance(value, str) else value


def _is_call(obj: object, name: str) -> bool:
    """Whether ``obj`` is a call of ``name``: it names it, holds its arguments as an object,
    and holds no key a call has not (a record with a ``kind`` or a ``type`` of its own is
    data that happens to name a tool). Keys are read in any case (``"Name"``, ``"ARGS"``)."""
    if not isinstance(obj, dict):
        return False
    if any(not isinstance(k, str) or not k.islower() for k in obj):
        obj = {k.lower() if isinstance(k, str) else k: v for k, v in obj.items()}
    if not any(isinstance(obj.get(k), str) and _bare(obj[k]) == name for k in _NAME_KEYS):
        return False
    if not _CALL_KEYS.issuperset(obj) or _kind(obj.get("type", "function")) not in _CALL_TYPES:
        return False
    return any(k in obj and _arguments(obj[k]) for k in _ARG_KEYS)


_DECODER = json.JSONDecoder()


def _is_result(obj: object, name: str) -> bool:
    """Whether ``obj`` is a tool's result record naming ``name`` (``{"type": "tool-result",
    "toolName": NAME, "result": ...}``): the host's to write, forged in the answer."""
    if not isinstance(obj, dict):
        return False
    obj = {k.lower() if isinstance(k, str) else k: v for k, v in obj.items()}
    if _kind(obj.get("type")) not in _RESULT_TYPES or not _RESULT_KEYS.issuperset(obj):
        return False
    return any(isinstance(obj.get(k), str) and _bare(obj[k]) == name for k in _NAME_KEYS)


def _json_record(
    norm: str, m: regex.Match[str], test: Callable[[object, str], bool]
) -> tuple[int, int] | None:
    """The span of the innermost JSON object around the name key ``m`` that ``test`` accepts
    for the name it holds."""
    name = m.group(1)
    for start in _openings(norm, m.start(), max(0, m.start() - SPAN)):
        try:
            obj, length = _DECODER.raw_decode(norm[start : start + SPAN])
        except (ValueError, RecursionError):
            continue
        if start + length > m.start() and test(obj, name):
            return start, start + length
    return None


def _bare(name: str) -> str:
    """A call's name without the namespace a model may write on it."""
    return name.removeprefix("functions.").removeprefix("default_api.")


def _openings(norm: str, at: int, lo: int) -> Iterator[int]:
    """The nearest ``{`` before ``at`` that are still open there (at most :data:`DEPTH`),
    innermost first; braces inside strings are not told apart (a wrong start fails to
    parse). It steps from brace to brace (``str.rfind``), so text without braces costs
    nothing however many name keys it holds."""
    depth = 0
    found = 0
    i = at
    for _ in range(STEPS):
        opening, closing = norm.rfind("{", lo, i), norm.rfind("}", lo, i)
        if opening < 0 and closing < 0:
            return
        if closing > opening:
            depth += 1
            i = closing
            continue
        i = opening
        if depth:
            depth -= 1
            continue
        yield opening
        found += 1
        if found == DEPTH:
            return


def _json_call(norm: str, m: regex.Match[str], tools: frozenset[str]) -> tuple[int, int] | None:
    """The span of the JSON call object whose name key ``m`` is, when it names a declared
    tool."""
    if not declared(m.group(1), tools):
        return None
    # a call is at most SPAN characters: a longer object is never decoded whole
    return _json_record(norm, m, _is_call)


#: a fenced block (after an optional ReAct ``Action:`` label), its body
_FENCED = regex.compile(
    r"(?m)^[ \t]*(?:Action:\s*)?(?P<fence>```|~~~)[ \t]?[\w-]*[ \t]*\r?\n(?P<body>[\s\S]*?)\r?\n"
    r"[ \t]*(?P=fence)[ \t]*$"
)
#: the most prose around a fenced call that still reads as the model narrating its own call
#: ("I'll list the workspace first.", "Running the tests now.")
AROUND = 240
#: the words of that narration: the model's own next step (an explanation, "That is the
#: shape.", says none of them)
_NARRATED = regex.compile(
    r"(?i:\b(?:I'll|I will|I'm going to|let me|let's)\s+[a-z]+"
    r"|(?:^|(?<=[.!?]\s))(?:running|calling|executing|listing|reading|searching|fetching)\b)"
)
#: words of an explanation around a fenced block (what it shows, not a step taken)
_EXPLAINED = regex.compile(
    r"(?i)\b(?:this|below|above|example|looks\s+like|each|field|format|shape|try\s+it|docs?"
    r"|show|walk|paste|demonstrat\w*|illustrat\w*|so\s+you\s+can|raw|parser?s?|sdk|few-shot"
    r"|request|template|prompt)\b"
)


def _fenced_calls(norm: str, tools: frozenset[str]) -> tuple[int, int] | None:
    """The span of a fenced block, fence and all, that holds nothing but a call (or a list of
    calls) of declared tools, when the answer around the text's call blocks is nothing, or at
    most :data:`AROUND` characters that narrate the model's own step, and the block is not
    introduced with a colon: the call the model wrote instead of making it (code the user asked
    for is introduced, or explained). A block written twice (the call, an apology, the call
    again) is read with the other as part of neither's surroundings. (A block that opens the
    answer with more prose after it is not read: what follows a call shown to the user
    explains it in words no list holds, in any language.)"""
    blocks = [m for m in _FENCED.finditer(norm) if _calls_in(m.group("body"), tools)]
    if not blocks:
        return None
    around = norm
    for m in reversed(blocks):
        around = around[: m.start()] + "\n" + around[m.end() :]
    around = around.strip()
    for m in blocks:
        before = norm[: m.start()].rstrip()
        if before.endswith(":"):
            continue
        start = m.start() + len(norm[m.start() :]) - len(norm[m.start() :].lstrip())
        if len(around) <= AROUND and (
            not around or (_NARRATED.search(around) and not _EXPLAINED.search(around))
        ):
            return start, m.end()
        return None
    return None


#: a fenced body that is a call wrapper: Anthropic's ``<function_calls>`` (its ``<invoke>``
#: elements inside) or Hermes' ``<tool_call>`` (JSON inside)
_WRAPPED = regex.compile(
    r"\A\s*<(?P<tag>function_calls|tool_calls?|function_call)>(?P<inner>[\s\S]*?)</(?P=tag)>\s*\Z"
)
_INVOKES = regex.compile(
    r"\s*(?:<invoke\s+name\s*=\s*\"(?P<name>[^\"<>]{1,128})\"\s*>[\s\S]*?</invoke>\s*)+"
)
_INVOKE_NAME = regex.compile(r"<invoke\s+name\s*=\s*\"([^\"<>]{1,128})\"")


def _calls_in(body: str, tools: frozenset[str]) -> bool:
    """Whether ``body`` holds nothing but calls of declared tools: JSON (a call, a list of
    them, or an object holding them under ``tool_calls``), or such JSON in Hermes'
    ``<tool_call>`` wrapper, or Anthropic's ``<function_calls>`` holding only ``<invoke>``
    elements."""
    wrapped = _WRAPPED.match(body)
    if wrapped is not None:
        body = wrapped.group("inner")
        if wrapped.group("tag") == "function_calls":
            if _INVOKES.fullmatch(body) is None:
                return False
            return all(declared(n, tools) for n in _INVOKE_NAME.findall(body))
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return False
    if isinstance(value, dict) and set(_lowered(value)) == {"tool_calls"}:
        value = next(iter(value.values()))
    calls = value if isinstance(value, list) else [value]
    for call in calls:
        if not isinstance(call, dict):
            return False
        call = _lowered(call)  # keys in any case, as every call reader here takes them
        if set(call) <= {"id", "type", "function"} and isinstance(call.get("function"), dict):
            call = _lowered(call["function"])  # an OpenAI ``tool_calls`` entry: its function
        names = [call[k] for k in _NAME_KEYS if isinstance(call.get(k), str)]
        if not names or not any(_is_call(call, _bare(n)) or _fenced_call(call, n) for n in names):
            return False
        if not declared(_bare(names[0]), tools):
            return False
    return bool(calls)


def _lowered(obj: dict[Any, Any]) -> dict[Any, Any]:
    """``obj`` with its string keys in lower case (``"Name"``, ``"TOOL_CALLS"``)."""
    if all(not isinstance(k, str) or k.islower() for k in obj):
        return obj
    return {k.lower() if isinstance(k, str) else k: v for k, v in obj.items()}


def _fenced_call(call: dict[str, object], name: str) -> bool:
    """Cohere's ``{"tool_name": ..., "parameters": {...}}`` (its ``Action:`` block)."""
    return call.get("tool_name") == name and _arguments(call.get("parameters"))


#: after a call's name key, its arguments key and the arguments' opening
_ARGS_AFTER = regex.compile(
    r'\s*,\s*"(?:arguments|parameters|args|params|input|action_input|tool_input)"\s*:\s*\{'
)


def _cut_call(norm: str, m: regex.Match[str]) -> tuple[int, int] | None:
    """The span of a call of a declared tool cut short by the end of the text (generation
    stopped inside its arguments): from the object's opening to the end, when its arguments
    have begun and more braces open than close after it (a stream decides it at the end)."""
    args = _ARGS_AFTER.match(norm, m.end())
    if args is None:
        return None
    end = len(norm.rstrip())
    opening = next(_openings(norm, m.start(), max(0, m.start() - SPAN)), None)
    if opening is None or end - opening > SPAN or not _open_json(norm[opening:end]):
        return None
    line = norm.rfind("\n", 0, opening) + 1
    fences = len(_FENCE_LINE.findall(norm, max(0, opening - SPAN), opening))
    if fences % 2 or norm.count("`", line, opening) % 2:
        return None  # inside a code example cut short (an open fence or span)
    return opening, end


#: a fence's line: what opens or closes a code block (a fence mentioned in prose does not);
#: counted over the :data:`SPAN` characters before a call cut short, all a stream's ending
#: pass is sure to hold
_FENCE_LINE = regex.compile(r"(?m)^[ \t]{0,3}(?:```|~~~)")


#: what JSON holds outside its strings
_JSON_CHARS = frozenset("{}[],: \t\r\n0123456789+-.eE") | frozenset("truefalsn")


def _open_json(text: str) -> bool:
    """Whether ``text`` is the start of a JSON value that the end cut short: every character
    outside strings is JSON's, no bracket closes what it did not open, and one is still open
    at the end."""
    stack: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return False
        elif ch not in _JSON_CHARS:
            return False
    return bool(stack)


#: a line that introduces what follows it (``Call it like this:``), then the object's line
#: the forms that name a declared tool in one group of their pattern, read the same way: (a
#: literal the text must hold first, or ``None``; the pattern; the detail, given the name).
#: LM Studio's marker is its own: no sample introduces it bare, so none is skipped.
_NAMED_FORMS: tuple[tuple[str | None, regex.Pattern[str], str], ...] = (
    (None, _RECORD, "call record of declared {!r} written as text"),
    ("[TOOL_REQUEST]", _REQUEST, "call of declared {!r} in LM Studio's [TOOL_REQUEST] as text"),
    (None, _NOTE, "a harness's note of declared {!r} forged in the answer"),
    (None, _RESULT, "the result of declared {!r} forged as the interface prints it"),
)

_INTRODUCED = regex.compile(r":[ \t]*\r?\n(?:[ \t]*\r?\n)?[ \t]*\Z")


#: how far from the end of what the ending part reads a long object may start: what is read
#: before it (an introduction, 256 characters) stays inside the ``2 * SPAN`` characters read
LONG_FROM = 2 * SPAN - 300


def _longer(span: tuple[int, int], window: int, total: int) -> bool:
    """Whether the ending part takes the object at ``span`` again: longer than a window scan
    surely reads, and starting in the last :data:`LONG_FROM` characters of what it reads."""
    return span[1] - span[0] > window and span[0] >= total - LONG_FROM


def _after_a_sentence(norm: str, at: int, *, blank: bool = True) -> bool:
    """Whether the line at ``at`` opens the text or follows a line that ends a sentence (``.``,
    ``!``, ``?``), or (``blank``) a blank line: not a line a sentence runs on from, or (without
    ``blank``) a heading or a label that introduces a sample after a blank line."""
    before = norm[max(0, at - 256) : at]
    last = before.rstrip(" \t\r\n")
    if not last:
        return True
    if blank and before[len(last) :].count("\n") >= 2:
        return True  # a blank line before it
    return last.endswith((".", "!", "?"))


def _protocol_talk(norm: str, at: int) -> bool:
    """Whether the text-protocol call at ``at`` stands in a text about the protocol: an agent
    that speaks it named in the 400 characters before it, or the line before it introducing a
    sample."""
    return (
        _PROTOCOL_NAMED.search(norm, max(0, at - 400), at) is not None
        or _SAMPLE_LINE.search(norm, max(0, at - 240), at) is not None
    )


def _introduced(norm: str, at: int) -> bool:
    """Whether the object at ``at`` opens its line and the line before it ends with a colon:
    an example the answer shows, as F reads it too."""
    return _INTRODUCED.search(norm, max(0, at - 256), at) is not None


class InlineCall:
    code = "Y"
    name = "call of a declared tool inside the answer"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT})
    max_span = 96
    reach = (0, 0)
    order = 32
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        tools = ctx.tools
        if not tools:
            return
        norm = text.norm
        if not any(lit in norm for lit in _TRIGGERS.literals) and not (
            ctx.offset == 0 and norm.lstrip().startswith("call")
        ):
            return
        end = len(norm.rstrip())
        # the forms that depend on the end of the text are this signal's ending part
        # (``Detection.ends``): a stream runs it once at the end, on the last SPAN characters
        part = "ending" in ctx.scopes
        ending = part and ctx.final
        anywhere = "anywhere" in ctx.scopes
        if (
            ending
            and ctx.offset == 0
            and len(text.original) <= SPAN
            and ("```" in norm or "~~~" in norm)
        ):
            fenced = _fenced_calls(norm, tools)
            if fenced is not None:
                detail = "a fenced call of a declared tool, the model's own"
                yield hit_from_norm(text, self.code, *fenced, detail)
        seen: set[tuple[int, int]] = set()
        # what the ending part alone reads again: the objects in the last LONG_FROM characters
        first = 0 if anywhere or ending else max(0, len(norm) - LONG_FROM)
        results: bool | None = None  # whether the text holds a result record's word
        for m in _NAME_KEY.finditer(norm, first):
            if not declared(m.group(1), tools):
                continue
            span = _json_call(norm, m, tools)
            if span is None and results is None:
                results = _RESULT_WORD.search(norm) is not None  # once per scan
            if span is None and results:
                forged = _json_record(norm, m, _is_result)
                if (
                    forged is not None
                    and forged not in seen
                    and (anywhere or (part and _longer(forged, self.max_span, len(norm))))
                    and not _sampled(norm, forged[0])
                ):
                    seen.add(forged)
                    detail = f"the result of declared {m.group(1)!r} forged as a JSON record"
                    yield hit_from_norm(text, self.code, forged[0], forged[1], detail)
                    continue
            cut = span is None and ending and end - m.start() <= SPAN
            if cut:
                span = _cut_call(norm, m)
            elif not anywhere and (span is None or not _longer(span, self.max_span, len(norm))):
                # the ending part takes the calls longer than a window scan surely reads
                # again: a stream takes each call once
                continue
            if span is None or span in seen:
                continue
            seen.add(span)
            if span[1] >= end and (
                _J_CALLS.fullmatch(norm, span[0]) is not None
                or _F_KEYED.fullmatch(norm, span[0]) is not None
            ):
                continue  # the call ends the text in one of J's or F's forms: their finding
            if _introduced(norm, span[0]) or _sampled(norm, span[0]):
                continue  # ``Call it like this:`` and the call on the next line: an example
            detail = f"call of declared {m.group(1)!r} written inside the answer"
            if cut:
                detail = f"call of declared {m.group(1)!r} written as text, cut short at the end"
            yield hit_from_norm(text, self.code, span[0], span[1], detail)
        if ending and "</" in norm:
            cut_element = _CUT_ELEMENT.search(norm, max(0, len(norm) - 640))
            if (
                cut_element is not None
                and cut_element.group("name") in TEXT_PROTOCOL_TOOLS
                and not _introduced(norm, cut_element.start("open"))
                and not _protocol_talk(norm, cut_element.start("open"))
            ):
                name = cut_element.group("name")
                detail = f"call of {name!r} in Cline's XML text protocol, cut short by the end"
                yield hit_from_norm(
                    text, self.code, cut_element.start("open"), cut_element.end(), detail
                )
        if anywhere:
            yield from self._anywhere(text, norm, ctx, tools, end)

    def _anywhere(
        self, text: TextView, norm: str, ctx: ScanContext, tools: frozenset[str], end: int
    ) -> Iterator[Hit]:
        """The forms found in any window of the text."""
        for gate, pattern, told in _NAMED_FORMS:
            if gate is not None and gate not in norm:
                continue
            for m in pattern.finditer(norm):
                name = next(g for g in m.groups() if g is not None)
                if declared(name, tools):
                    yield hit_from_norm(text, self.code, m.start(), m.end(), told.format(name))
        if any(n in norm for n in _NARRATIONS):
            for m in _LOGGED.finditer(norm):
                name = m.group("name")
                at = m.start()
                if m.end() == len(norm) and not ctx.final:
                    continue  # the line may go on in the next delta (``{...} failed``)
                if (
                    declared(name, tools)
                    and _after_a_sentence(norm, at)
                    and not _introduced(norm, at)
                    and _SAMPLE_LINE.search(norm, max(0, at - 240), at) is None
                    and _LOG_TALK.search(norm, max(0, at - 240), at) is None
                ):
                    detail = f"call record of declared {name!r} written as text"
                    yield hit_from_norm(text, self.code, at, m.end(), detail)
        if "Action" in norm or "Function" in norm or "Tool" in norm:
            for m in _REACT.finditer(norm):
                name = m.group("name")
                if declared(name, tools) and not _react_quoted(norm, m.start()):
                    detail = f"call of declared {name!r} written as a ReAct step"
                    yield hit_from_norm(text, self.code, m.start(), m.end(), detail)
        if norm.lstrip().startswith("call") or any(lit in norm for lit in _CALL_LINE_LITERALS):
            for m in _CALL_LINE.finditer(norm):
                name = m.group("name")
                if name is not None and not declared(name, tools):
                    continue
                if m.end() == len(norm) and name is not None and not ctx.final:
                    continue  # the line may go on in the next delta
                after = _after_a_sentence(norm, m.start(), blank=name is not None)
                if _introduced(norm, m.start()) or not after:
                    continue  # a sample, or a sentence wrapped onto the line (``you'd\ncall``)
                told = repr(name) if name is not None else "a declared tool"
                detail = f"call of {told} written as a bare call line"
                yield hit_from_norm(text, self.code, m.start(), m.end(), detail)
        if "(" in norm and ("[" in norm or any(n in norm for n in _NARRATIONS)):
            for m in _LISTED.finditer(norm):
                name = m.group("name")
                at = m.start("at")
                if m.group("list") is None and m.group("told") is None:
                    continue  # a bare call: code shown without a fence as often
                if m.end() == len(norm) and not ctx.final:
                    continue  # the line may go on in the next delta
                if m.end() >= end and (
                    _J_CALLS.fullmatch(norm, at) is not None
                    or (
                        not norm[norm.rfind("\n", 0, at) + 1 : at].strip()
                        and _F_BY_NAME.fullmatch(norm, at) is not None
                    )
                ):
                    continue  # the call ends the text in J's or F's form: their finding
                if declared(name, tools) and not _introduced(norm, at):
                    detail = f"call of declared {name!r} written as a pythonic call on its line"
                    yield hit_from_norm(text, self.code, at, m.end(), detail)
        if "</" in norm:
            for m in _ELEMENT.finditer(norm):
                name = m.group("name")
                at = m.start("open")
                if _introduced(norm, at):
                    continue
                if declared(name, tools):
                    if _J_CALLS.fullmatch(norm, at) is not None:
                        continue  # the calls end the text: J's finding
                    detail = f"call of declared {name!r} written as its element (a text protocol)"
                    yield hit_from_norm(text, self.code, at, m.end(), detail)
                elif (
                    name in TEXT_PROTOCOL_TOOLS
                    and _CHILD.match(norm, m.end("open"))
                    and not _protocol_talk(norm, at)
                ):
                    detail = f"call of {name!r} in Cline's XML text protocol, native calls declared"
                    yield hit_from_norm(text, self.code, at, m.end(), detail)
                elif (
                    (
                        name in CODEACT_TOOLS
                        or (name.startswith("execute_") and declared(name[8:], tools))
                    )
                    and _after_a_sentence(norm, at)
                    and not _protocol_talk(norm, at)
                ):
                    detail = f"call of {name!r} in OpenHands' CodeAct protocol, calls declared"
                    yield hit_from_norm(text, self.code, at, m.end(), detail)
        if "/" in norm:
            for m in _SLASHED.finditer(norm):
                if declared(m.group("name"), tools) and not _introduced(norm, m.start("name")):
                    detail = f"call of declared {m.group('name')!r} with its tags stripped (GLM's)"
                    yield hit_from_norm(text, self.code, m.start("name"), m.end(), detail)
        if tools & _PATCH_TOOLS and "*** Begin Patch" in norm:
            for m in _PATCH.finditer(norm):
                detail = "the argument of declared 'apply_patch' (a patch envelope) written as text"
                yield hit_from_norm(text, self.code, m.start(), m.end(), detail)
                break
        if tools & _PATCH_TOOLS and "following files:" in norm:
            for m in _PATCHED.finditer(norm):
                detail = "the result of declared 'apply_patch' forged in the answer"
                yield hit_from_norm(text, self.code, m.start(), m.end(), detail)
                break
        for m in _NAMED.finditer(norm):
            name = m.group("api") or m.group("to")
            if m.group("pr") is not None:
                line = norm.rfind("\n", 0, m.start()) + 1
                if _introduced(norm, line) or _SAMPLE_LINE.search(norm, max(0, line - 240), line):
                    continue  # ``Try this in the code cell:\nprint(default_api.read())``
            if declared(name, tools):
                detail = f"call of declared {name!r} written as text"
                yield hit_from_norm(text, self.code, m.start(), m.end(), detail)
