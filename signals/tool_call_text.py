"""J: the answer (or the reasoning) is, or ends in, a tool call written as text.

When a server's tool parser misses the model's call (wrong parser, a stripped special token, a
call in another dialect's form), the call arrives as ``content``: the agent shows JSON instead
of calling the tool. A call the model writes at the end of its reasoning part is lost the same
way (parsers read calls from ``content`` only), so J reads the ``thinking`` surface too. Forms,
each as the whole rest of the text (trailing blanks allowed):

* a JSON object ``{"name": ..., "arguments": {...}}`` (or ``"parameters"``, or ``"input"`` as
  in an Anthropic ``tool_use`` block; arguments as an object or as a string holding one; a
  ``"type"`` and an ``"id"`` may come first or last), a list of them, an OpenAI ``tool_calls``
  item ``{"type": "function", "function": {...}}``, or an object holding a list of such calls
  under ``"tool_calls"``; an Anthropic ``tool_use`` block printed as JSON or as a Python dict
  as the SDK prints it, its ``toolu_`` id first (``{'id': 'toolu_...', 'input': {...}, 'name':
  'read_file', 'type': 'tool_use'}``; a stream holds back only an object that opens so);
* Hermes ``<tool_call>{...}</tool_call>`` (one or more), and the XML form
  ``<function=NAME><parameter=KEY>VALUE</parameter></function>`` with or without that wrapper;
* Harmony's text form ``functions.NAME:{...}`` (or ``functions.NAME {...}``), and Kimi's call id
  before its arguments, ``functions.NAME:1 {...}`` (not after a word, a path or a dot, and not
  with a file extension for a name: ``src/functions.js:12 {...}`` is a log line; without
  declared tools only for the Kimi dialects and ``all``);
* with declared tools, OLMo 3's ``<function_calls>`` holding pythonic calls, one per line
  (``<function_calls>find_trains(origin="Utrecht")</function_calls>``), keyword arguments only
  (without them, docs about the format end with such a sample, ``print(x="hi")`` too);
* Claude-style XML: ``<function_calls>`` holding ``<invoke name="NAME">`` elements with
  ``<parameter name="KEY">VALUE</parameter>`` children, or such an ``<invoke>`` alone, each tag
  with or without a namespace prefix, Claude's, StepFun's or MiniMax's (``<steptml:toolcall>``
  holding ``<steptml:invoke name="NAME">``; models of other families write this shape as text
  too, so it counts whatever the dialect); an ``<invoke>``'s
  parameters may also be written as one element per parameter (``<command>ls</command>``);
* ``<function name="NAME">`` holding ``<param name="KEY">VALUE</param>`` (or ``<parameter>``)
  elements: the same shape under another tag name (MiniCPM and others write it), also as
  ``<function_call name="NAME">`` and Grok's ``<xai:function_call name="NAME">``;
* with declared tools, an invented pair of elements, the name and then the arguments' JSON:
  ``<function-name>Bash</function-name>\n<arguments>{"command": "ls"}</arguments>`` (also
  ``function_name``, ``tool-name``, ``tool_name``; ``parameters``, ``args``, ``input``);
  without them, it is what a format's docs end with;
* Mistral's call token decoded without its brackets, glued to the call:
  ``TOOL_CALLSbash{"command": "ls"}`` (a name that opens with a letter, ``[ARGS]`` after it or
  not, then, after one blank at most, an object opening with a quoted key or empty; braces
  balanced, as a model's broken JSON is still its call: ``TOOL_CALLS_KIND {`` is code), or
  ``TOOL_CALLS[{...}]``;
* any element that names its tool in a ``tool`` or ``tool_name`` attribute (among any
  others) and holds at least one such parameter element (``<call_record
  tool="read"><parameter name="path">...</parameter></call_record>``: the ad-hoc wrappers
  models invent when their native calls fail); a parameter element may carry more attributes
  (DSML's ``<parameter name="path" string="true">``);
* Gemma 4's and FunctionGemma's call body ``call:NAME{key:value,...}`` (or, as some Gemma 4
  builds write it, ``call:NAME(key: value, ...)``), as it reads when the call and
  string-delimiter tokens around it are stripped;
* Gemini's tool namespace written as its internal call form, ``default_api:NAME{key:value}``
  (with or without a leading ``declaration:``, or inside a ``<call:...>`` or ``<function:...>``
  pseudo-tag; not the Python ``default_api.NAME(...)``, which
  generated API clients name their calls too), and a ``<function_calls>`` wrapper holding
  ``<tool_code>NAME(...)</tool_code>`` elements;
* a wrapper holding a JSON call or a list of them: a tag named ``tool``, ``call`` or
  ``function`` (plural, upper case, a prefix before ``_`` or a part after it: ``<tool_calls>``,
  the plural tag some Llama and Mistral fine-tunes write, ``<TOOLCALL>`` of Llama Nemotron,
  ``<function_call>``, ``<tool_use>``, ``<tool_call>`` with ad-hoc keys; not ``<toolbar>`` or
  ``<callback>``), or the same as bar tokens (``<|tool_calls|>...<|/tool_calls|>``, Phi-4-mini,
  closed by its closer, another bar token or the end), a ``<tool_call>`` holding a call object
  with no name key (``{"cmd": [...]}``), ``<name>``/``<arguments>`` elements in such a wrapper
  (its opening possibly lost), invoke elements under such a wrapper,
  ``[TOOL_CALL] ... [/TOOL_CALL]`` (MiniMax M2 in some clients), or such a list closed by a
  wrapper tag whose opening was lost (``[...]</TOOLCALL>``); inside a wrapper the call may also
  spell its keys ``tool``/``tool_name``/``function`` and ``args``/``params``;
* with declared tools only, an element named after one of them, ``<read_file><path>a.py
  </path></read_file>`` or ``<exec>npm test</exec>`` (the text-protocol calls of Cline-style
  agents, which models fall back to when native tool calls fail), also inside a call wrapper
  (MiMo's ``<toolcall><shell>{"command": "ls"}</shell></toolcall>``); without declared tools
  such an element is any XML or HTML;
* with declared tools, a bare JSON call of one of them whose arguments object is no valid
  JSON (``{"name": "lookup", "parameters": {invoice_id: 4471}}``: unquoted keys, single
  quotes, a trailing comma), which its parser rejected, its first key holding a literal value
  (``{...}`` and ``{"id": invoice_id}`` are a sample's placeholders or code);
* a pythonic call list ``[NAME(key=value, ...), ...]`` (Llama 3.2 / Llama 4's and LFM2's call
  body, as it reads when the tokens around it are stripped): keyword arguments only, the
  list closed right after its last call's ``)``.

With declared tools (``tools=``) a call counts only when it names one of them, which is what
makes the evidence strong (``{"name": "Bob", "arguments": ...}`` in a data answer is not a
call of any tool). Without them the call markup above is the evidence, but a bare JSON call
(an object, a list of them, an OpenAI ``tool_calls`` item) is not: it is also what an answer
looks like when the user asked for an example call or for JSON with those keys, and nothing in
the text tells the two apart. It counts without declared tools only for the dialects whose own
call is bare JSON (:data:`JSON_CALL_DIALECTS`: Llama 3), where it is the call the parser
missed. A pythonic call list is the same (``[f(x=1)]`` also ends Python answers): without
declared tools it counts only for the dialects whose own call it is
(:data:`PYTHONIC_CALL_DIALECTS`). Only the last
:data:`SPAN` characters are read, so a longer call is not flagged. The hit depends on the end of
the text: a stream decides it at the end and holds back a tail that may still become one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_regex as regex

from ._common import glued, hit_from_norm

#: characters at the end of the text a call may span
SPAN = 2048
#: dialects whose own tool call is a bare JSON object: there, without declared tools, a JSON
#: call as text is the call the server's parser missed
JSON_CALL_DIALECTS = frozenset({"llama3"})
#: dialects whose own tool call is a pythonic list: there, without declared tools, such a list
#: as text is the call the server's parser missed
PYTHONIC_CALL_DIALECTS = frozenset({"pythonic", "lfm2"})

#: dialects whose own call id is ``functions.NAME:IDX``: there, without declared tools, such an
#: id before a JSON object is the call the parser missed (elsewhere it reads as a file and a
#: line number, ``functions.js:12 {...}`` in a log)
INDEXED_CALL_DIALECTS = frozenset({"kimi", "kimi_k3", "all"})
#: a call written with Kimi's call id
_INDEXED = regex.compile(r"functions\.[\w-]+:\d")

#: an XML namespace prefix on the call's tags: Claude's, StepFun's ``steptml``, MiniMax's (a
#: namespace of any XML vocabulary would read BPEL's ``<bpel:invoke name=...>`` as a call)
_NS = "(?:(?:" + "antml" + "|steptml|minimax):)?"
_DEFINE = r"""(?(DEFINE)
  (?<s>"(?:[^"\\]|\\.)*")
  (?<v>(?&s)|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|(?&o)|(?&a))
  (?<o>\{\s*(?:(?&s)\s*:\s*(?&v)(?:\s*,\s*(?&s)\s*:\s*(?&v))*)?\s*\})
  (?<a>\[\s*(?:(?&v)(?:\s*,\s*(?&v))*)?\s*\])
  (?<args>(?&o)|"\{(?:[^"\\]|\\.)*\}")
  (?<call>\{\s*(?:"(?:type|id)"\s*:\s*(?&s)\s*,\s*){0,2}"name"\s*:\s*(?<name>"(?:[^"\\]|\\.)*")\s*,\s*"(?:arguments|parameters|input)"\s*:\s*(?&args)(?:\s*,\s*"(?:type|id)"\s*:\s*(?&s)){0,2}\s*\})
  (?<oai>\{\s*(?:"id"\s*:\s*(?&s)\s*,\s*)?"type"\s*:\s*"function"\s*,\s*"function"\s*:\s*(?&call)\s*\})
  (?<xml><function=(?<xname>[^>\s]*)>(?:(?!</function>)[\s\S])*</function>)
  (?<xcut>(?<![^\n])(?<!:[\x20\t]*\n(?:[\x20\t]*\n)*)<function=[A-Za-z_][\w.\-]*>\s*(?:<parameter=[^>\s]+>(?:(?!</parameter>)[\s\S])*</parameter>\s*)*\Z)
  (?<hermes><tool_call>\s*(?:(?&call)|(?&xml)|(?&wcall))\s*</tool_call>)
  (?<funcs>functions\.(?<fname>[^\W\d][\w-]*)\s*:?\s*(?&o)|(?<![\w/.\\-])functions\.(?!(?:js|ts|py|php|rb|go|rs|java|cs|mjs|cjs|jsx|tsx|sh|c|h|cpp)\b)[^\W\d][\w-]*:\d{1,4}\s*(?&o))
  (?<param><NS:parameter\s+name=(?:"[^"<>]*"|'[^'<>]*')(?:\s+[\w:-]+=(?:"[^"<>]*"|'[^'<>]*'))*\s*>(?:(?!</NS:parameter>)[\s\S])*</NS:parameter>)
  (?<elem><(?<etag>[A-Za-z_][\w.\-]*)>[^<]*</(?P=etag)>)
  (?<invoke><NS:invoke\s+name="(?<iname>[^"<>]+)">\s*(?:(?:(?&param)|(?&fparam)|(?&elem))\s*)*</NS:invoke>)
  (?<fparam><param(?:eter)?\s+name=(?:"[^"<>]*"|'[^'<>]*')(?:\s+[\w:-]+=(?:"[^"<>]*"|'[^'<>]*'))*\s*>(?:(?!</param(?:eter)?>)[\s\S])*</param(?:eter)?>)
  (?<fnamed><(?<fntag>(?:xai:)?function(?:_call)?)\s+name="(?<fnname>[^"<>]+)">\s*(?:(?:(?&fparam)|(?&elem))\s*)*</(?P=fntag)>)
  (?<attr>\s+[\w:-]+=(?:"[^"<>]*"|'[^'<>]*'))
  (?<anamed><(?<atag>[A-Za-z_][\w.\-]*)(?&attr)*?\s+(?:tool|tool_name)=(?:"[^"<>]+"|'[^'<>]+')(?&attr)*\s*>\s*(?:(?&elem)\s*)*(?&fparam)\s*(?:(?:(?&fparam)|(?&elem))\s*)*</(?P=atag)>)
  (?<tcode><tool_code>\s*(?<tname>[A-Za-z_][\w.\-]*)\s*(?&gargs)\s*</tool_code>)
  (?<claude><NS:function_calls>\s*(?:(?:(?&invoke)|(?&tcode)|(?&pycall))\s*)+</NS:function_calls>|<(?<cw>NS:(?&wname))>\s*(?:(?&invoke)\s*)+</(?P=cw)>)
  (?<gbody>\{(?:[^{}]|(?&gbody))*\})
  (?<gargs>\((?:[^()]|(?&gargs))*\))
  (?<gopen>\{\s*(?:\}|[A-Za-z_][\w\-]*\s*:))
  (?<gopenp>\(\s*(?:\)|[A-Za-z_][\w\-]*\s*[:=]))
  (?<gemma>call:(?<gname>[A-Za-z_][\w.\-]*)(?:(?=(?&gopen))(?&gbody)|(?=(?&gopenp))(?&gargs)))
  (?<gapi>(?:<(?:call|function):)?(?:declaration:)?default_api:(?<aname>[A-Za-z_][\w\-]*)(?=(?&gopen))(?&gbody)(?:\s*/?>)?)
  (?<wcall>\{\s*"(?:name|tool|tool_name|function)"\s*:\s*(?&s)\s*,\s*"(?:arguments|parameters|input|args|params)"\s*:\s*(?&args)\s*\})
  (?<wany>(?&wcall)|(?&call)|(?&oai))
  (?<wbody>\[\s*(?&wany)(?:\s*,\s*(?&wany))*\s*\]|(?&wany))
  (?<calls>\{\s*"tool_calls"\s*:\s*\[\s*(?&wany)(?:\s*,\s*(?&wany))*\s*\]\s*\})
  (?<wname>(?i:(?:[a-z]+_)?(?:tool|call|function)s?(?:_(?:call|use|code|request)s?)?|toolcalls?))
  (?<tcalls><(?<wt>(?&wname))>\s*(?&wbody)\s*</(?P=wt)>|<(?&wname)>\s*(?:(?&wbody)|(?!\{\s*"(?:name|tool|tool_name|function)"\s*:)(?&o))(?=\s*\Z)|<(?<wt3>tool_call|function_call|TOOLCALL)>\s*(?!\{\s*"(?:name|tool|tool_name|function)"\s*:)(?&o)\s*</(?P=wt3)>|<\|(?<wb>(?&wname))\|>\s*(?&wbody)\s*(?:<\|/(?P=wb)\|>|<\|[A-Za-z_]{1,24}\|>)?|\[(?<bt2>TOOL_CALLS?)\]\s*\{(?=[^\[]{0,200}?\b(?:tool|name)\b)(?:(?!\[/(?P=bt2)\])[\s\S]){1,2000}\[/(?P=bt2)\]|\[(?<bt>TOOL_CALLS?)\]\s*(?&wbody)\s*\[/(?P=bt)\]|(?&wbody)\s*</(?:tool_calls|tool|TOOLCALL)>)
  (?<pycall>[A-Za-z_][\w.]*(?=\(\s*(?:\)|[A-Za-z_]\w*\s*=))(?&gargs))
  (?<pylist>\[\s*(?&pycall)(?:\s*,\s*(?&pycall))*\])
  (?<tagcall><(?<tg>[A-Za-z_][\w.\-]*)>(?:(?!</(?P=tg)>)[\s\S])*</(?P=tg)>)
  (?<xcall>(?:<(?&wname)>\s*)?<(?<xn>name|function|tool)>\s*(?<xname>[^<>\s]+)\s*</(?P=xn)>\s*(?:<(?<xa>arguments|parameters|args|input)>(?:(?!</(?P=xa)>)[\s\S])*</(?P=xa)>|(?&o))\s*</(?&wname)>)
  (?<xpair><(?<pn>(?:function|tool)[-_]name)>\s*(?<pname>[^<>\s]+)\s*</(?P=pn)>\s*<(?<pa>arguments|parameters|args|input)>\s*(?&o)\s*</(?P=pa)>)
  (?<mtc>(?<![\w\[])TOOL_CALLS(?:(?<mname>[A-Za-z][\w.\-]{0,63})(?:\[ARGS\])?\x20?(?=\{\s*["'}])(?&gbody)|\s*(?&wbody)))
  (?<tuse>(?=\{\s*['"]id['"]\s*:\s*['"]toolu_)(?=\{[^\n]{0,400}?['"]type['"]\s*:\s*['"]tool_use['"])(?&gbody))
  (?<one>(?&call)|(?&oai)|(?&hermes)|(?&xml)|(?&xcut)|(?&funcs)|(?&claude)|(?&invoke)|(?&fnamed)|(?&anamed)|(?&gemma)|(?&gapi)|(?&tcalls)|(?&calls)|(?&xcall)|(?&tuse)|(?&mtc)|(?&xpair)|(?&tagcall))
)""".replace("NS:", _NS)
#: a whole trailing call (or calls) from its start to the end of the text
_TAIL_SOURCE = (
    _DEFINE + r"(?:\[\s*(?:(?&call)|(?&oai))(?:\s*,\s*(?:(?&call)|(?&oai)))*\s*\]"
    r"|(?&pylist)|(?&one)(?:\s*(?&one))*)\s*"
)
#: a call as an element named after its tool (``<read_file><path>a.py</path></read_file>``),
#: and the trailing calls of every other form (an element that is also one of those, such as
#: ``<tool_call>...</tool_call>``, is read as that form)
_TAGCALL = regex.compile(_DEFINE + r"(?&tagcall)(?:\s*(?&tagcall))*\s*", regex.VERSION1)
#: the invented name-and-arguments pair alone: a call only when it names a declared tool (a
#: format's docs end with ``<function-name>NAME</function-name><arguments>{...}</arguments>``)
_XPAIR = regex.compile(_DEFINE + r"(?&xpair)(?:\s*(?&xpair))*\s*", regex.VERSION1)
_UNTAGGED = regex.compile(_TAIL_SOURCE.replace("|(?&tagcall))", ")", 1), regex.VERSION1)
_TAG = regex.compile(r"<([A-Za-z_][\w.\-]*)>")
#: an element named after a tool inside a wrapper whose name says call (MiMo's
#: ``<toolcall><shell>{...}</shell></toolcall>``; not ``<tools>`` or ``<functions>``, which XML
#: configurations write): the inner element's tag
_WRAPPED_TAG = regex.compile(
    r"<(?i:toolcalls?|tool_calls?|function_calls?|calls?)>\s*<([A-Za-z_][\w.\-]*)>"
)
#: OLMo 3's ``<function_calls>`` opening on a pythonic call
_PY_WRAPPED = regex.compile(r"<function_calls>\s*[A-Za-z_][\w.]*\(")
#: a pythonic call list, and the names of its calls
_PYLIST = regex.compile(_DEFINE + r"(?&pylist)\s*", regex.VERSION1)
_PYNAMES = regex.compile(r"(?:^\[|,)\s*([A-Za-z_][\w.]*)\(")
_TAIL = regex.compile(_TAIL_SOURCE, regex.VERSION1)
#: a call inside a bracket wrapper, or closed by a wrapper tag, or a ``tool_use`` block printed
#: as a Python dict (no answer writes one as JSON would): markup, not bare JSON
_WRAPPED = regex.compile(r"\[TOOL_CALLS?\]|[\s\S]*>\s*\Z|\{[^\n]{0,400}?'type'\s*:\s*'tool_use'")
_STARTS = regex.compile(
    r"[\[{]|<\|?(?i:(?:[a-z]+_)?(?:tool|call|function)s?(?:_(?:call|use|code|request)s?)?"
    r"|toolcalls?)\|?>|<function[=\s]"
    r"|functions\.|(?<![\w.])call:|<(?:call|function):(?:declaration:)?default_api:"
    r"|<(?:name|function|tool)>|<(?:xai:)?function_call\s|<(?:function|tool)[-_]name>"
    # Mistral's call token with its brackets lost in decoding (``TOOL_CALLSbash{...}``)
    r"|(?<![\w\[])TOOL_CALLS"
    # glued to the mark before it too (``summary.default_api:NAME{...}``, ``Lie:default_api:``):
    # no prose writes the namespace with a colon; not inside a word (``my_default_api:``)
    r"|(?<![\w])(?<!declaration:)(?:declaration:)?default_api:"
    r"|<" + _NS + r"(?:function_calls>|invoke\s)"
    r"|<[A-Za-z_][\w.\-]*(?:\s+[\w:-]+=(?:\"[^\"<>]*\"|'[^'<>]*'))*?\s+(?:tool|tool_name)=[\"']"
)
#: with declared tools, an element may be a call too
_STARTS_TOOLS = regex.compile(_STARTS.pattern + r"|<(?=[A-Za-z_])")
_NAMES = regex.compile(
    r'"(?:name|tool|tool_name|function)"\s*:\s*"((?:[^"\\]|\\.)*)"|<function=([^>\s]*)>'
    r"|functions\.([^\W\d][\w-]*)"
    r"|<" + _NS + r'invoke\s+name="([^"<>]+)"|(?<![\w.])call:([A-Za-z_][\w.\-]*)[{(]'
    r"|<tool_code>\s*([A-Za-z_][\w.\-]*)\s*\(|default_api:([A-Za-z_][\w\-]*)\{"
    r"|<function_calls>\s*([A-Za-z_][\w.]*)\("
    r'|<(?:xai:)?function(?:_call)?\s+name="([^"<>]+)"'
    r"|<[A-Za-z_][\w.\-]*(?:\s+[\w:-]+=(?:\"[^\"<>]*\"|'[^'<>]*'))*?\s+(?:tool|tool_name)="
    r"[\"']([^\"'<>]+)[\"']"
    r"|<(?:name|function|tool)>\s*([^<>\s]+)\s*</(?:name|function|tool)>"
    r"|(?<![\w\[])TOOL_CALLS([A-Za-z][\w.\-]*)"
    r"|<(?:function|tool)[-_]name>\s*([^<>\s]+)\s*</"
    r"|'name'\s*:\s*'([^']+)'"
    r'|\btool\s*(?:=>|:|=)\s*"([^"]+)"'
)
_CLAUDE_LITERALS = tuple(
    f"<{prefix}{tag}" for prefix in ("", "antml" + ":") for tag in ("function_calls>", "invoke")
)

_TRIGGERS = Triggers(
    literals=(
        '"name"',
        '"tool"',
        "tool_use",  # an Anthropic block printed as a Python dict
        "<tool_call",
        "<tool>",
        "TOOLCALL>",
        "[TOOL_CALL",
        "<function=",
        "functions.",
        "call:",
        "default_api",
        "<function",
        ")]",  # a pythonic call list
        "</",  # an element named after a declared tool
        "<|/",  # a wrapper written as bar tokens
        *_CLAUDE_LITERALS,
        "steptml:invoke",  # the same elements under StepFun's namespace
        "minimax:invoke",
        "xai:function_call",  # Grok's element (``<function_call name=...>`` holds ``<function``)
        "TOOL_CALLS",  # Mistral's call token, its brackets lost
    ),
    scope="ending",
    # (and a run of closing tags: a stream holds it until it knows whether the text ends there)
    tail="(?:" + _TAIL_SOURCE + r")|(?:</[A-Za-z_][\w:.\-]{0,40}>){2,}\s*",
    tail_start=(
        r"[\[{<]|functions\.|(?<![\w.])call:|TOOL_CALLS(?<![\w\[]TOOL_CALLS)"
        r"|(?<![\w])(?<!declaration:)(?:declaration:)?default_api:"
    ),
    # a `functions.NAME:{...}`, `call:NAME{...}` or `default_api:NAME{...}` tail may still be
    # forming while the text ends in its first word
    hold_words=("functions.", "call:", "declaration:", "default_api", "TOOL_CALLS"),
    # every form ends in a closing brace, bracket, parenthesis or tag
    last="}])>",
)


def _declared_tag(tag: str, tools: frozenset[str]) -> bool:
    """Whether a call's name (or an element's tag) names a declared tool, as spelled (in any
    case ``<edit>``, ``<read>`` and ``<task>`` would be everyday XML for Claude Code's tools)."""
    return tag in tools


def _detail(names: list[str], tools: frozenset[str] | None) -> str | None:
    """The hit's detail for a call naming ``names``, or ``None`` when declared tools rule it
    out: a call that names no declared tool is another thing; one in a wrapper that names none
    at all (``<tool_call>{"cmd": [...]}</tool_call>``) is still a call."""
    if tools is None:
        return "tool call written as text" + (f" ({names[0]!r})" if names else "")
    if not names:
        return "tool call written as text (a wrapper naming no tool)"
    if not any(_declared_tag(n.removeprefix("functions."), tools) for n in names):
        return None
    return f"tool call of declared {names[0]!r} written as text"


#: a bare JSON call whose arguments object is no valid JSON (unquoted keys, single quotes, a
#: trailing comma: ``{"name": "lookup", "parameters": {invoice_id: 4471}}``), the whole rest;
#: its first key holds a literal value (``{...}``, ``{invoiceId}`` and ``{"id": invoice_id}``
#: are a sample's placeholders or code)
_LENIENT = regex.compile(
    _DEFINE + r'\{\s*"name"\s*:\s*"(?<lname>[A-Za-z_][\w.\-]{0,63})"\s*,\s*'
    r'"(?:arguments|parameters)"\s*:\s*(?=\{\s*[\'"]?[A-Za-z_]\w*[\'"]?\s*:\s*(?:-?\d|[\'"]|true\b|false\b|null\b))'
    r"(?&gbody)\s*\}\s*",
    regex.VERSION1,
)


def _lenient(norm: str, at: int, tools: frozenset[str] | None) -> str | None:
    """The detail for a bare JSON call of a declared tool with broken JSON arguments that is the
    rest of the text (its parser rejected it, so it reached the answer), or ``None``: only
    with declared tools, as without them the shape is an answer's data as often."""
    if not tools:
        return None
    m = _LENIENT.fullmatch(norm, at)
    if m is None or not _declared_tag(m.group("lname"), tools):
        return None
    return f"tool call of declared {m.group('lname')!r} written as text (its JSON broken)"


#: two or more closing tags glued together at the end of the text
_STRAY_CLOSERS = regex.compile(r"(?:</[A-Za-z_][\w:.\-]{0,40}>){2,}\s*\Z")
#: the closing tags of a call's syntax (a parameter, a function, an invoke, a call wrapper)
_CALL_CLOSER = regex.compile(
    r"</(?:[\w.\-]+:)?(?:parameter|function|invoke|function_calls|[\w]*tool_calls?"
    r"|arg_value|arg_key)>"
)


def _stray(norm: str, run: regex.Match[str]) -> bool:
    """Whether the closing tags of ``run`` are the tail of a call that was never opened in the
    text: one of them closes a call's syntax and none of them has its opener in the text
    (``Mail has the draft open.</parameter></function></zyphra_tool_call>``, the closers a
    model emits after a call its server already parsed; an XML answer opens what it closes)."""
    tags = _TAG_NAMES.findall(run.group())
    if len(tags) < 2 or not any(_CALL_CLOSER.fullmatch(f"</{t}>") for t in tags):
        return False
    if not glued(norm, run.start()):
        return False  # after a blank or a colon: closers named in a sentence ("ends with </x></y>")
    head = norm[: run.start()]
    return not any(f"<{t}>" in head or f"<{t} " in head or f"<{t}=" in head for t in tags)


_TAG_NAMES = regex.compile(r"</([A-Za-z_][\w:.\-]*)>")

#: Qwen3-Coder's call cut short after its opener (``<function=search>``, complete parameters
#: after it at most): with declared tools it counts even when its name is not one of them
_CUT = regex.compile(_DEFINE + r"(?&xcut)\s*", regex.VERSION1)


def _related(name: str, tools: frozenset[str] | None) -> bool:
    """Whether ``name`` is a declared tool's, or a shortened or longer form of one (``search``
    for ``search_web``, ``read_file_v2`` for ``read_file``); ``False`` without declared tools."""
    if not tools:
        return False
    return any(name == t or t.startswith(name + "_") or name.startswith(t + "_") for t in tools)


def _names(call: str) -> list[str]:
    return [next(g for g in m.groups() if g is not None) for m in _NAMES.finditer(call)]


class ToolCallText:
    code = "J"
    name = "tool call as text"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT, Surface.THINKING})
    max_span = SPAN
    reach = (0, 0)
    order = 27
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        if not ctx.final:
            return
        norm = text.norm
        lo = text.to_norm(max(0, len(text.original) - SPAN))
        tail = norm[lo:]  # only the end is read: clean long text costs nothing more
        if not any(lit in tail for lit in _TRIGGERS.literals):
            return
        starts = _STARTS if ctx.tools is None else _STARTS_TOOLS
        for m in starts.finditer(norm, lo):
            at = m.start()
            if _TAIL.fullmatch(norm, at) is None:
                lenient = _lenient(norm, at, ctx.tools)
                if lenient is not None:
                    yield hit_from_norm(text, self.code, at, len(norm.rstrip()), lenient)
                    return
                continue
            call = norm[at:].rstrip()
            pythonic = call[0] == "[" and _PYLIST.fullmatch(call) is not None
            if ctx.tools is None and call[0] in "[{" and not _WRAPPED.match(call):
                # a bare JSON call or a pythonic list without declared tools: see the module
                # docstring
                own = PYTHONIC_CALL_DIALECTS if pythonic else JSON_CALL_DIALECTS
                if ctx.dialect.name not in own:
                    continue
            if (
                ctx.tools is None
                and ctx.dialect.name not in INDEXED_CALL_DIALECTS
                and _INDEXED.match(call) is not None
            ):
                continue  # ``functions.NAME:1 {...}`` without declared tools: Kimi's only
            names = [m.group(1) for m in _PYNAMES.finditer(call)] if pythonic else _names(call)
            if ctx.tools is None and _XPAIR.fullmatch(call) is not None:
                continue  # the invented pair: only a declared tool's name makes it a call
            if ctx.tools is None and _PY_WRAPPED.match(call) is not None:
                continue  # OLMo 3's pythonic calls: without declared tools, docs end so too
            if _TAGCALL.fullmatch(call) is not None and _UNTAGGED.fullmatch(call) is None:
                # an element named after a tool: a call only when it names a declared one
                tag = _WRAPPED_TAG.match(call) or _TAG.match(call)
                if ctx.tools is None or tag is None or not _declared_tag(tag.group(1), ctx.tools):
                    continue
                names = [tag.group(1)]
            detail = _detail(names, ctx.tools)
            if _CUT.fullmatch(call) is not None:
                # Qwen3-Coder's call cut short after its opener: only with declared tools, and
                # naming one of them or a shortened or longer form of one (``search`` for
                # ``search_web``); without them a format's docs end so (``<function=my_tool>``)
                if not names or not _related(names[0], ctx.tools):
                    return
                detail = detail or f"tool call written as text, cut short ({names[0]!r})"
            if detail is not None:
                yield hit_from_norm(text, self.code, at, len(norm.rstrip()), detail)
            return
        stray = _STRAY_CLOSERS.search(norm, lo)
        if stray is not None and _stray(norm, stray):
            # (read after the calls: a call before the closers is cut at its own start)
            closers = stray.group().strip()
            why = f"a call's closing tags left at the end, never opened ({closers[:60]!r})"
            yield hit_from_norm(text, self.code, stray.start(), len(norm.rstrip()), why)
