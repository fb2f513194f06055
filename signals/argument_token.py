"""P: a control token of the dialect written bare inside a tool argument's string.

The parse boundary (T) forgives every spelling inside a valid JSON string, which is right for a
file edit that quotes a token and wrong for the leak where the model's own call syntax lands in
a string value (Kimi's ``...functions.bash:1 <|tool_call_argument_begin|>{...`` inside a
``command``; Harmony has its collapse signals, C and E, for its own shape, and P only for its
frame glued to a value's end, :func:`glued_frame`). P marks an anchor of
the control-token signal (H) that stands before the parse boundary, is token-shaped (a bar or
fullwidth-bar spelling, bracket-soup such as MiniMax's ``]<]minimax[>[`` or Kimi's ``[EOS]``)
or belongs to the dialect's call syntax (its call, result and stop markers, the plain tags inside
a call such as GLM's ``<arg_key>``/``<arg_value>`` or the ``<parameter`` of an ``<invoke>``, and
its reasoning tags such as ``</think>``, which end a reasoning part, never an argument), and is
**not quoted as data** in its string. Quoted as data means, within the JSON string that holds
it (read in its JSON-escaped form, at most :data:`REACH` characters either side):

* inside a code span: an odd number of backticks before it on its line and one after it, or an
  odd number of Markdown fences (three backticks) before it;
* inside a quoted literal: an odd number of ``'`` (or of escaped ``\\"``) before it on its line
  and one after it (``'<|im_end|>'`` in a template, ``\\"<|im_end|>\\"`` in code or JSON);
* written escaped: a backslash or ``&lt;`` before it (an escaper's output is not a token);
* the whole value of a search or of a setting that names tokens (:data:`_SEARCH_KEY`, a
  search program's argument list): the token alone or with a role or channel word glued to it
  (``"pattern": "</tool_call>"``, ``"<|channel|>final"`` in a ``grep`` argv, a stop list),
  tokens joined by ``|``, or a token a regular expression's syntax touches (a group or a
  wildcard run beside it); under another key a value that is only a closer is a collapsed call;
* an item of a list of tokens (another token and ``,``/``;``/`` |`` beside it on its line), or
  one of two tokens joined by ``and``/``or`` with a lower-case word that is no role after them;
* on a line of an indented code block that opens after a blank line under a line of prose
  (Markdown's four blanks or a tab; see :func:`_indented_code`);
* a document of the format written to a file: the arguments name a file, and the string
  starts, past blanks, with a call or result opener or a transcript's start and holds a call
  closer, stop or turn end after it (a parser's fixture; see :class:`Frame`);
* named in a sentence: on its line, a word of two or more letters or a name with a digit in it
  (after a blank or the line's start; other tags named with it, each after one blank, belong to
  the same mention) and one blank right before it (a tag's opening spelling read with the rest
  of its tag when it closes right away: ``<parameter>`` for ``<parameter``), and one blank and
  a lowercase word right after it that does not head a dotted or called name
  (``functions.bash``, ``f(``): "Kimi ends each call with <|tool_call_end|> and closes the
  section", "what does <|tool_call_begin|> mean". A leak of call syntax is glued to its call
  (``functions.bash:1 <|tool_call_argument_begin|>{``), ends a value (``ls -la
  <|tool_call_end|>``) or follows other markup, not two words of prose;
* a plain tag (no bar) that is paired in its string: an opener with its closer after it, or a
  closer with its opener before it (``<think>...</think>`` in an HTML page, ``<tool_call>NAME
  </tool_call>`` in an XML config; a closer escaped as ``<\\/think>`` in a regular expression
  counts; so do Mistral's bracket tags, ``[THINK] ... [/THINK]``). Well-formed markup is a
  document; the leaks are the stray halves (``src/</think>main.py``,
  ``"page</arg_key><arg_value>5"``, ``ls</invoke>``), and a pair that is the call's own
  parameter tag for the string's own key (``"path": "<parameter name=\\"path\\">a.js
  </parameter>"``: the call syntax around the value, which landed in it);
* in a prompt template: a template placeholder stands within :data:`TEMPLATE_REACH`
  characters of it in its string (``{{ .System }}``, ``{% for m in messages %}``,
  ``{system}``; not a shell's ``${var}``). A file that writes a chat template, an Ollama
  ``Modelfile`` or a prompt format spells the tokens around its placeholders; a model's call
  syntax leaking into a value has none next to it.

It marks the other dialects' call markers (X) the same way. The default policy trips ``H+P``
and ``X+P`` on ``tool_arg`` for every dialect (for Harmony, whose ``M+C+E`` rule reads its own
collapse, P marks only :func:`glued_frame`); a policy that must pass bare tokens in some tool's
arguments (a tool that writes prompt files, say) disables ``P`` or drops the combination from
``surfaces.tool_arg.trip_with``. The false positives on a labelled set of benign arguments that
carry markup are measured in ``docs/detection.md``.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from guard.dialects import ALL, DIALECTS, get_dialect, registered_dialects
from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers

from ._common import ROLE_WORDS, glued
from .control_token import shape_only
from .foreign_marker import distinct_spelling

#: How far either side of the token P reads for its string, line and quotes.
REACH = 1024
#: How close to the token a template placeholder must stand (in a template the tokens wrap the
#: placeholders; a placeholder far away in the same string does not quote a token)
TEMPLATE_REACH = 256
#: Dialects whose own collapse signals judge tokens inside argument strings.
#: dialects whose collapse signals (C, E) read their own shape inside a string; for them P marks
#: only the frame glued to a value's end (see :func:`glued_frame`)
OWN_RULE = frozenset({"harmony"})
#: what may follow the glued token up to the string's end: more tokens, a role or channel word,
#: a recipient (``to=functions.x``), a constraint (``json``), blanks (raw or JSON-escaped)
_FRAME_TAIL = re.compile(rf"(?:<\|[a-z_]+\|>|\s|\\[nrt]|\b(?:{ROLE_WORDS}|json)\b|to=[\w.:-]+)*\Z")
#: a role or channel word glued right before a position (a header's spelling: ``final<|message|>``)
_HEADER_WORD_BEFORE = re.compile(rf"(?<![A-Za-z])(?:{ROLE_WORDS})\Z")
#: the keys of a code search or an edit's old text (a web search's ``query`` is not one: a
#: model's frame lands in its words)
_CODE_SEARCH_KEY = re.compile(
    r'"(?i:pattern|patterns|regex|regexp|grep|needle|old_str|old_string|old_text)"\s*:\s*"\Z'
)
#: a blank right before a position of the JSON text: raw, or a JSON escape (``\n``, ``\t``)
_BLANK_BEFORE = re.compile(r"(?:\s|(?<!\\)(?:\\\\)*\\[nrt])\Z")

_TOKEN_SHAPED = re.compile(r"[|\uff5c\u2581]|^[\[\]].*[\[\]]$")
#: An unescaped JSON string delimiter: a quote after an even run of backslashes.
_DELIMITER = re.compile(r'(?<!\\)(?:\\\\)*"')
#: A line break in the JSON text: the escape ``\n`` or ``\r`` (a backslash after an even run of
#: backslashes, so ``\\n``, a program's own escape, is no break), or a raw one.
_LINE_BREAK = re.compile(r"(?<!\\)(?:\\\\)*\\[nr]|[\n\r]")
_QUOTES = ("'", '\\"', "`")
#: The words around a token named in a sentence (see :func:`quoted_as_data`).
#: (a word of letters, or a name with a digit in it such as ``k2`` or ``GLM-4.5``; other tags
#: named with it, each after one blank, belong to the same mention)
_WORD_BEFORE = re.compile(
    r"(?:^|\s)(?:[A-Za-z][a-z]+|[A-Za-z0-9][A-Za-z0-9.+-]*\d[A-Za-z0-9.+-]*)[,:]? "
    r"(?:<[^<>\s\\\"]{1,48}> )*\Z"
)
_WORD_AFTER = re.compile(r"(?: <[^<>\s\\\"]{1,48}>)* [a-z]{2,}(?![\w(:{\[<|-]|\.\w)")
_FENCE = "```"
#: A template placeholder: Go / Jinja ``{{ ... }}``, a Jinja statement ``{% ... %}``, or a
#: format field ``{name}`` (lower case; not after ``$``, a shell's variable).
_PLACEHOLDER = re.compile(
    r"\{\{[^{}\n]{1,80}\}\}|\{%[^{}\n]{1,80}%\}|(?<!\$)\{[a-z_][a-z0-9_]{0,31}\}"
)


#: The rest of a tag whose opening spelling was matched: attributes, then ``>`` (at most 64).
_CLOSED_RIGHT_AWAY = re.compile(r"[^<>\n\\]{0,64}>")
#: A plain tag's name: the tags inside a call name an argument, a parameter, a call or a tool.
_CALL_PART = re.compile(r"arg_|param|call|function|invoke|tool_", re.IGNORECASE)
_TAG_NAME = re.compile(r"</?([A-Za-z_][\w:.-]*)")


def _markers(dialect: Dialect) -> frozenset[str]:
    """The spellings of ``dialect``'s call syntax (see the module docstring)."""
    parts = (s for s in dialect.reserved if s.startswith("<") and _CALL_PART.search(s) is not None)
    thinking = (t for pair in dialect.thinking for t in pair if t.startswith("<"))
    return frozenset(
        (
            *dialect.call_open,
            *dialect.call_close,
            *dialect.result_open,
            *dialect.stop,
            *parts,
            *thinking,
        )
    )


#: A bracket tag: ``[THINK]`` or its closer ``[/THINK]`` (Mistral's spellings).
_BRACKET_TAG = re.compile(r"\[(/?)([A-Z][A-Z_]*)\]\Z")


def _bracket_paired(text: str, start: int, end: int, lo: int, hi: int) -> bool:
    """Whether the bracket tag at ``[start, end)`` has its other half in ``text[lo:hi]``."""
    m = _BRACKET_TAG.match(text, start, end)
    if m is None:
        return False
    closer, name = m.group(1), m.group(2)
    if closer:
        return text.find(f"[{name}]", lo, start) >= 0
    return text.find(f"[/{name}]", end, hi) >= 0


def paired_in_string(text: str, start: int, end: int, openers: tuple[str, ...] = ()) -> bool:
    """Whether the plain tag at ``[start, end)`` has its other half in the same JSON string:
    its closer after an opener, its opener before a closer (``<think>...</think>``, and the
    bracket tags ``[THINK]...[/THINK]``). A pair of call-syntax tags glued to the value before
    it (``"src/app.ts<arg_key>limit</arg_key>"``) with none of the dialect's call ``openers``
    before it in the string is no document: it is the rest of a call that collapsed into the
    value."""
    tag = text[start:end]
    if tag.startswith("["):
        return _bracket_paired(text, start, end, *_string_around(text, start, end))
    name = _TAG_NAME.match(tag)
    if name is None or _TOKEN_SHAPED.search(tag) is not None:
        return False
    lo, hi = _string_around(text, start, end)
    if tag.startswith("</"):
        opener = re.compile("<" + re.escape(name.group(1)) + r"(?=[\s>=/])")
        starts = [m.start() for m in opener.finditer(text, lo, start)]
        if not starts:
            return False
        at = starts[-1]  # the nearest opener before the closer
    else:
        # the closer as written, or escaped as a regular expression or JSON writes it (``<\/b>``)
        closer = re.compile(r"<(?:\\{1,2})?/" + re.escape(name.group(1)) + ">")
        if closer.search(text, end, hi) is None:
            return False
        at = start
    return not _collapsed_pair(text, name.group(1), at, lo, openers)


#: A value's last character a collapsed call's tag is glued to (not a blank, a tag's ``>`` or a
#: quote)
_GLUED_TO = re.compile(r"[\w./:-]")


def _collapsed_pair(text: str, name: str, at: int, lo: int, openers: tuple[str, ...]) -> bool:
    """Whether the call-syntax tag pair opening at ``at`` is glued to the value before it and
    followed by the next tag of the call (GLM's ``<arg_value>`` after an ``<arg_key>`` pair),
    with no call opener before it in its string (``lo`` on)."""
    if at <= lo or _CALL_PART.search(name) is None:
        return False
    if _GLUED_TO.match(text, at - 1) is None or text[at - 2 : at - 1] == "\\":
        return False  # a blank, markup or an escape (``\n``) before it
    closer = text.find(f"</{name}>", at)
    if closer < 0:
        return False
    nxt = _NEXT_TAG.match(text, closer + len(name) + 3)
    if nxt is None or _CALL_PART.search(nxt.group(1)) is None:
        return False  # a pair in prose or a pattern: nothing of a call follows it
    return not any(text.find(opener, lo, at) >= 0 for opener in openers)


#: the tag right after a pair's closer, past blanks and JSON-escaped line breaks
_NEXT_TAG = re.compile(r"(?:\s|\\[nrt])*<([A-Za-z_][\w:.-]*)")


#: the JSON key right before a string's opening quote
_KEY_BEFORE = re.compile(r'"((?:[^"\\]|\\.){1,128})"\s*:\s*"\Z')


#: other parameters' elements that end a string, each on a line of its own (after a raw or
#: JSON-escaped line break; Claude's ``name=`` form, more attributes allowed, or Qwen3-Coder's
#: ``<parameter=KEY>``), the value without tags (JSON-escaped line breaks allowed)
_NEIGHBOUR_AT_END = re.compile(
    r"(?:(?:\n|\\n)[ \t]*<parameter(?:\s+name\s*=\s*\\?[\"'][\w.-]{1,64}\\?[\"']"
    r"(?:\s+[\w:-]+\s*=\s*\\?[\"'][^\"'<>\\]{0,64}\\?[\"'])*|=[\w.-]{1,64})\s*>"
    r"[^<>\n]{0,400}?</parameter>){1,8}(?:\s|\\[nrt])*\Z"
)
#: any tag before the element in its string (an XML file, a comment, a heredoc's ``<<``): the
#: string is a document of markup
_MARKUP_BEFORE = re.compile(r"<[A-Za-z!?/<]")
#: the prose line before a merged parameter: a sentence's end right before its line break
_SENTENCE_BEFORE = re.compile(r"[.!?][ \t]*\Z")
#: a line that introduces a sample: the element is shown
_SAMPLE_BEFORE = re.compile(
    r"(?i)\b(?:e\.g|i\.e|example|like|such\s+as|format|looks|syntax|element|tag)\b[^\n]{0,40}\Z"
)


def _merged_neighbour(text: str, lo: int, at: int) -> bool:
    """Whether the parameter elements that end a string from ``at`` (its string from ``lo``)
    are the next parameters merged into the value: prose before them that ends a sentence on
    the line right before, no markup before them in the string (an XML file, a comment, a
    heredoc), and no sample introduced."""
    if _MARKUP_BEFORE.search(text, lo, at) is not None:
        return False
    if _SENTENCE_BEFORE.search(text, max(lo, at - 8), at) is None:
        return False
    return _SAMPLE_BEFORE.search(text, max(lo, at - 120), at) is None


def _own_parameter(text: str, start: int, end: int) -> bool:
    """Whether the string holding ``[start, end)`` wraps its value in the call's parameter tag
    for its own key (``"path": "<parameter name=\\"path\\">a.js</parameter>"``, or
    ``<parameter=path>``), or closes its value with a tag named after its own key and opens the
    next parameter after it (``"content": "a</content>\\n<parameter name=\\"reason\\">b
    </parameter>"``), or ends its value with another parameter's element on a line of its own
    after a sentence (``"content": "keep it.\\n<parameter name=\\"tags\\">retry</parameter>"``;
    see :func:`_merged_neighbour`): the call syntax around the value landed in it, which no
    document writes."""
    lo, hi = _string_around(text, start, end)
    key = _KEY_BEFORE.search(text, max(0, lo - 160), lo)
    if key is None:
        return False
    name = re.escape(key.group(1))
    own = re.compile(
        r"<parameter(?:\s+name\s*=\s*\\?[\"']"
        + name
        + r"\\?[\"'](?:\s+[\w:-]+\s*=\s*\\?[\"'][^<>]*?)*"
        r"|=" + name + r")\s*>",
        re.IGNORECASE,
    )
    if own.search(text, lo, hi) is not None:
        return True
    # the next parameter's element merged into the value's end, on a line of its own
    tail = _NEIGHBOUR_AT_END.search(text, lo, hi)
    if tail is not None and _merged_neighbour(text, lo, tail.start()):
        return True
    # the value closed with its own key's tag, never opened in the string, and the next
    # parameter opened after it (``"content": "metric units.</content>\\n<parameter name=
    # \\"reason\\">..."``; an XML file whose ``<content>`` element is closed so opens it first)
    closed = re.compile(r"</" + name + r">(?:\s|\\[nrt])*<parameter(?=[\s=>])", re.IGNORECASE)
    found = closed.search(text, lo, hi)
    if found is None:
        return False
    opener = re.compile(r"<" + name + r"(?=[\s>/])", re.IGNORECASE)
    return opener.search(text, lo, found.start()) is None


def _string_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the JSON string content holding ``[start, end)``, clipped to
    :data:`REACH` either side."""
    lo = max(0, start - REACH)
    opened = lo
    for m in _DELIMITER.finditer(text, lo, start):
        opened = m.end()
    closed = _DELIMITER.search(text, end, min(len(text), end + REACH))
    return opened, closed.start() if closed else min(len(text), end + REACH)


#: JSON-escaped or raw blanks at the start of a string
_LEADING_BLANKS = re.compile(r"(?:\s|\\[nrt])*")
#: what may follow a token that is a whole value: a role or channel word glued to it
#: (``<|channel|>final``, ``<|im_start|>user``)
_WORD_TAIL = re.compile(rf"(?:{ROLE_WORDS})?\Z")
#: a token-shaped spelling: a tag (``<|im_end|>``, ``</think>``, ``<function=``) or a bracket
#: tag (``[TOOL_CALLS]``)
_TOKEN = r'(?:<[^<>\s"\\]{1,48}>?|\[/?[A-Z][A-Z_]{1,23}\])'
#: tokens joined by ``|``: a regular expression's alternation, a search for several tokens
_ALTERNATION = re.compile(rf"{_TOKEN}(?:\|{_TOKEN})+")
#: a regular expression's syntax right after a token, or right before it, in a regular
#: expression's value: a group of alternatives, a wildcard run, a blank class
#: (``<|channel|>(analysis|final)``, ``<think>.*?</think>``, ``\\\\s*<tool_call>``; a JSON text
#: doubles the backslash). A call that collapsed into a query ends it with its closer after
#: words (``weather in Oslo</tool_call>``, ``near Central Park (NYC)</tool_call>``)
_PATTERN_AFTER = re.compile(r"\((?:\?:)?[^()\"]*\|[^()\"]*\)|\.[*+]|\\\\s[*+]")
_PATTERN_BEFORE = re.compile(r"(?:\((?:\?:)?[^()\"]*\|[^()\"]*\)|\.[*+]\??|\\\\s[*+]\??)\Z")
#: what follows a stop, a forged turn or a call that collapsed into a value
_COLLAPSE_AFTER = re.compile(rf"\\\\[nr]|\s*(?:{ROLE_WORDS}|\{{|\[\{{)")
#: a key whose value is a regular expression (not a query in words, which ends in a
#: parenthesis as often: ``"restaurants near Central Park (NYC)"``), then its string
_REGEX_KEY = re.compile(
    r'"(?:pattern|patterns|regex|regexp|grep)"\s*:\s*(?:[\[\]\s,]|"(?:[^"\\]|\\.)*")*"\Z',
    re.IGNORECASE,
)
#: another token and a list's separator before a token, or after it
_CLOSED_TOKEN = r'(?:<[^<>\s"\\]{1,48}>|\[/?[A-Z][A-Z_]{1,23}\])'
_LISTED_BEFORE = re.compile(rf"{_CLOSED_TOKEN}(?:[,;]| \|) \Z")
_LISTED_AFTER = re.compile(rf"(?:[,;]| \|) {_CLOSED_TOKEN}")
#: two tokens joined by "and" or "or" and named in a sentence: a lower-case word that is no
#: role after the second (``[TOOL_CALLS] and [ARGS] are control tokens``; ``<|im_end|> and
#: <|im_start|>user`` is a forged turn, ``</tool_call> and <tool_call>{`` a call)
_ROLE_WORDS = r"(?:user|assistant|system|tool|developer|model|function|ipython)\b"
_JOINED_BEFORE = re.compile(rf"{_CLOSED_TOKEN} (?:and|or) \Z")
_JOINED_AFTER = re.compile(rf" (?:and|or) {_CLOSED_TOKEN} (?!{_ROLE_WORDS})[a-z]{{2,}}\b")
_PROSE_AFTER = re.compile(rf" (?!{_ROLE_WORDS})[a-z]{{2,}}\b")
#: a line of markup: it opens with a token (after its indentation)
_OPENS_WITH_TOKEN = re.compile(_TOKEN)
_INDENTATION = re.compile(r"\A(?:[ \t]|\\t)*")
#: how a line of an indented code block starts: four blanks, or a tab (raw or JSON-escaped)
_INDENTS = ("    ", "\\t", "\t")
#: a key whose value is a search, or a setting that names tokens (a stop sequence, reasoning
#: tags, markers, delimiters), then its string (or a string of its lists)
_SEARCH_KEY = re.compile(
    r'"(?:pattern|patterns|regex|regexp|query|queries|q|search|grep|needle|find|term|terms'
    r"|keyword|keywords|old_str|old_string|old_text|stop|stops|stop_sequences|stop_tokens"
    # (markers and delimiters also after a word: ``probe_markers``; ``post_tags``, ``seo_tags``
    # and ``extra_tokens`` are a schema's own fields)
    r"|stop_words|special_tokens|added_tokens|tokens|tags|(?:[a-z]+_)?(?:markers|delimiters)"
    # a setting that names one token by its role (``eos_token``, ``end_token``), or reasoning
    # tags (``think_start_tag``, ``reasoning_tags``); not ``access_token`` and the like, which are
    # secrets, and not a generic ``end_tag`` or ``close_tag``, which a collapsed call invents
    r"|(?:eos|bos|pad|unk|sep|cls|mask|eot|eom|end|start|stop|begin|im_start|im_end|sop|eop"
    r"|tool_call)_tokens?"
    r'|(?:think|thinking|reasoning)(?:_start|_end|_open|_close)?_(?:token|tokens|tag|tags))"'
    r'\s*:\s*(?:[\[\]\s,]|"(?:[^"\\]|\\.)*")*"\Z',
    re.IGNORECASE,
)
#: an argument list whose program searches (``["grep", "-rn", ...``, ``["git", "grep", ...``),
#: up to a string of it
_SEARCH_ARGV = re.compile(
    r'\[\s*"(?:grep|egrep|fgrep|rg|ag|ack|git"\s*,\s*"grep)"(?:\s*,\s*"[^"\\]*")*\s*,\s*"\Z'
)
#: a key naming the file the arguments write (``"path": "tests/fixtures/kimi_raw.txt"``)
_FILE_KEY = re.compile(
    r'"(?:path|file|file_path|filepath|filename|file_name|target_file|dest|destination)"'
    r'\s*:\s*"(?![^"]*(?:@|://))[^"\\]{0,256}\.[A-Za-z0-9]{1,8}"',
    re.IGNORECASE,
)
#: what follows a JSON string that is a key
_KEY_COLON = re.compile(r'"\s*:')


@dataclass(frozen=True, slots=True)
class Frame:
    """The spellings that open and close a dialect's frames, for :func:`quoted_as_data`:
    ``openers`` its call and result openers and the start of a transcript, ``closers`` its call
    closers, stops and turn ends."""

    openers: tuple[str, ...] = ()
    closers: tuple[str, ...] = ()


@cache
def frame(dialect: Dialect) -> Frame:
    """The :class:`Frame` of ``dialect``; the union (``all``) adds every known record's
    transcript starts and turn ends, which the union record does not carry."""
    records = [dialect]
    if dialect.name == ALL:
        records += [get_dialect(name) for name in (*DIALECTS, *registered_dialects())]
    bos = [s for d in records if d.transcript for s in d.transcript.bos]
    ends = [s for d in records if d.transcript for s in d.transcript.ends]
    return Frame(
        openers=tuple(dict.fromkeys((*dialect.call_open, *dialect.result_open, *bos))),
        # (not a bare code fence: Gemini's call closer, which any Markdown holds)
        closers=tuple(
            c for c in dict.fromkeys((*dialect.call_close, *dialect.stop, *ends)) if c.strip("`")
        ),
    )


def _framed_document(text: str, lo: int, hi: int, spelling: Frame) -> bool:
    """Whether the JSON string ``text[lo:hi]`` is a document of the format written to a file:
    the arguments name a file (:data:`_FILE_KEY`), and the string starts, past blanks, with
    one of the frame's openers and holds one of its closers after it (a parser's fixture, a
    transcript saved as a test file). A call nested in another tool's argument starts a value
    with a frame too, but names no file to write."""
    if lo == 0 or text[lo - 1] != '"':
        return False  # no string start within reach
    at = _LEADING_BLANKS.match(text, lo, hi).end()  # type: ignore[union-attr]
    opener = next((o for o in spelling.openers if text.startswith(o, at)), None)
    if opener is None:
        return False
    after = at + len(opener)
    if not any(text.find(closer, after, hi) >= 0 for closer in spelling.closers):
        return False
    return _FILE_KEY.search(text) is not None


def _whole_value(text: str, start: int, end: int, lo: int, hi: int) -> bool:
    """Whether the token is the whole string value of a search or a stop setting, alone or
    with a role or channel word glued to it, or tokens joined as a pattern's alternation
    (``"pattern": "</tool_call>"``, ``"pattern": "</think>|<tool_call>"``, ``["grep", "-rn",
    "<|channel|>final"]``, ``"stop": ["<|im_end|>"]``): a value that names the token. Under
    another key, a value that is only a closer is a call that collapsed into its end (``{"command":
    "<|tool_call_end|>"}``)."""
    if lo == 0 or text[lo - 1] != '"' or text[hi : hi + 1] != '"' or _KEY_COLON.match(text, hi):
        return False  # no string start within reach, or a key (``{"<arg_key>dir": ...}``)
    if not _searched(text, lo):
        return False
    if _ALTERNATION.fullmatch(text[lo:hi].strip()) is not None:
        return True  # tokens joined as a pattern's alternation (``</think>|<tool_call>``)
    if _in_a_regular_expression(text, start, end, lo, hi):
        return True  # a token in a regular expression (``<|channel|>(analysis|final)``)
    if text[lo:start].strip():
        return False
    return _WORD_TAIL.match(text[end:hi].rstrip()) is not None


#: the rest of a tag after its name's bar (``tool_calls>`` of ``<｜GCML｜tool_calls>``)
_TAG_REST = re.compile(r"[A-Za-z0-9_:.\u2581-]*>?")
#: what follows a token named in a query: more of the query's words, lower case first, on its
#: line (no markup, no JSON, no escaped line break, no role word or sentence of an answer)
_QUERY_WORDS = re.compile(
    rf" (?!{ROLE_WORDS})[a-z0-9][\w.,'-]*(?: (?!{ROLE_WORDS})[\w.,'-]+){{0,12}} ?"
)


def _named_in_a_search(text: str, anchor: Hit, dialect: Dialect) -> bool:
    """Whether an H hit that only the dialect's output patterns match (a family the record does
    not list, :func:`~.control_token.shape_only`) is named inside a search's value: after a
    blank, with more of the query after it (``"query": "gpt-oss <|channel|>commentary leak"``).
    Glued to a word, or ending the value, it is a call or a stop that collapsed into it, and
    anywhere else P reads it as the serving dialect's own."""
    start, end = anchor.start, anchor.end
    if not shape_only(dialect, anchor.evidence):
        return False
    lo, hi = _string_around(text, start, end)
    if not _searched(text, lo) or start == lo or not text[start - 1].isspace():
        return False
    # (a namespaced tag's hit ends at its bar: the rest of the tag is no query word)
    end = _TAG_REST.match(text, end, hi).end()  # type: ignore[union-attr]
    return _QUERY_WORDS.fullmatch(text, end, hi) is not None


def _in_a_regular_expression(text: str, start: int, end: int, lo: int, hi: int) -> bool:
    """Whether the token is part of a regular expression in a regular expression's value: the
    syntax right after it (a group of alternatives, a wildcard run), or right before it with a
    token earlier in the value (the second of a pattern's tokens,
    ``<|channel|>(analysis|final)<|message|>``). Not when an escaped line break, a role word or
    a JSON object follows it: a stop, a forged turn or a call that collapsed into the value
    (``"pattern": "def test_.*<|im_end|>"``)."""
    if not _regular_expression(text, lo) or _COLLAPSE_AFTER.match(text, end) is not None:
        return False
    if _PATTERN_AFTER.match(text, end) is not None:
        return True
    return (
        _PATTERN_BEFORE.search(text, lo, start) is not None
        and _OPENS_WITH_TOKEN.search(text, lo, start) is not None
    )


def _regular_expression(text: str, lo: int) -> bool:
    """Whether the string opening at ``lo`` is the value of a regular expression's key, or an
    item of a search program's argument list."""
    head = text[max(0, lo - 256) : lo]
    return _REGEX_KEY.search(head) is not None or _SEARCH_ARGV.search(head) is not None


def _searched(text: str, lo: int) -> bool:
    """Whether the string opening at ``lo`` is the value of a search or stop key, or an item
    of a search program's argument list (:data:`_SEARCH_KEY`, :data:`_SEARCH_ARGV`)."""
    head = text[max(0, lo - 256) : lo]
    return _SEARCH_KEY.search(head) is not None or _SEARCH_ARGV.search(head) is not None


def _listed(before: str, rest: str) -> bool:
    """Whether the token is an item of a list of tokens on its line: another token-shaped
    spelling, then ``,``/``;``/`` |`` and a blank, right before it, or the same right after it
    (``# [INST], [/INST], [TOOL_CALLS], [SYSTEM_PROMPT]`` in a code comment)."""
    if _LISTED_BEFORE.search(before) is not None or _LISTED_AFTER.match(rest) is not None:
        return True
    return _JOINED_AFTER.match(rest) is not None or (
        _JOINED_BEFORE.search(before) is not None and _PROSE_AFTER.match(rest) is not None
    )


def _indented_code(text: str, lo: int, line_start: int, before: str) -> bool:
    """Whether the token stands on a line of an indented code block (Markdown's four blanks or
    a tab): the lines up to it are indented, and the block opens after a blank line that
    follows a line of prose, not of code (``Example output:\n\n    <|tool_call_start|>[...]
    <|tool_call_end|>``). In a program's source the line before a blank line inside a block is
    indented too, so a token glued to code there still counts."""
    if not before.startswith(_INDENTS):
        return False
    code = _INDENTATION.sub("", before, count=1)
    if code and _OPENS_WITH_TOKEN.match(code) is None:
        return False  # glued to code on its line (``    return 0;<|tool_call_end|>``)
    lines = _LINE_BREAK.split(text[max(lo, line_start - REACH) : line_start])[:-1]
    while lines and lines[-1].strip() and lines[-1].startswith(_INDENTS):
        lines.pop()  # the block's earlier lines
    if len(lines) < 2 or lines[-1].strip():
        return False  # no blank line before the block within reach
    opener = lines[-2]
    return bool(opener.strip()) and not opener.startswith(_INDENTS)


def quoted_as_data(
    text: str,
    start: int,
    end: int,
    openers: tuple[str, ...] = (),
    spelling: Frame = Frame(),
) -> bool:
    """Whether the token at ``[start, end)`` of a tool argument's JSON text is quoted as data
    (see the module docstring); ``openers`` are the dialect's call openers, ``spelling`` its
    :class:`Frame`."""
    if start and (text[start - 1] == "\\" or text.endswith("&lt;", 0, start)):
        return True
    lo, hi = _string_around(text, start, end)
    if _whole_value(text, start, end, lo, hi) or _framed_document(text, lo, hi, spelling):
        return True
    if paired_in_string(text, start, end, openers) and not _own_parameter(text, start, end):
        return True
    if text[end - 1 : end] != ">" and text.startswith("<", start):
        # a tag's opening spelling (``<parameter``) closed right away: the tag as written
        closed = _CLOSED_RIGHT_AWAY.match(text, end)
        if closed is not None:
            end = closed.end()
    lo, hi = _string_around(text, start, end)
    near = _PLACEHOLDER.search(text, max(lo, start - TEMPLATE_REACH), min(hi, end + TEMPLATE_REACH))
    if near is not None:
        return True
    if text.count(_FENCE, lo, start) % 2:
        return True
    line_start = lo
    for m in _LINE_BREAK.finditer(text, lo, start):
        line_start = m.end()
    after = _LINE_BREAK.search(text, end, hi)
    line_end = after.start() if after else hi
    before, rest = text[line_start:start], text[end:line_end]
    if _WORD_BEFORE.search(before) is not None and _WORD_AFTER.match(rest) is not None:
        return True
    if _listed(before, rest) or _indented_code(text, lo, line_start, before):
        return True
    for quote in _QUOTES:
        count = before.count(quote)
        if quote == "`":
            count -= 3 * before.count(_FENCE)
        if count % 2 and quote in rest:
            return True
    return False


def _first_in_string(start: int, starts: Sequence[int], quotes: Sequence[int]) -> bool:
    """Whether no other token of ``starts`` lies between the last unescaped quote before
    ``start`` (``quotes``, sorted) and ``start``: the first token of its string."""
    k = bisect.bisect_left(quotes, start) - 1
    lo = quotes[k] + 1 if k >= 0 else 0
    return bisect.bisect_left(starts, lo) == bisect.bisect_left(starts, start)


def glued_frame(text: str, start: int, end: int, starts: Sequence[int]) -> bool:
    """Whether the token at ``[start, end)`` opens a frame glued to the end of its string's
    value: the first token of the string, right after the value's text (no blank between), and
    nothing after it to the string's end but more tokens, role and channel words, a recipient
    and blanks (``"git status --short<|call|>"``, ``"weather in Kyoto<|end|><|start|>assistant
    <|channel|>final"``). The call's own frame closed inside the value; a transcript written as
    data opens with a token or holds one before, and has a message's text after its header."""
    lo, hi = _string_around(text, start, end)
    if start <= lo or _BLANK_BEFORE.search(text, lo, start) is not None:
        return False
    if bisect.bisect_left(starts, lo) < bisect.bisect_left(starts, start):
        return False  # a token before it in its string (``starts``: the H anchors' starts)
    if _FRAME_TAIL.match(text, end, hi) is None:
        return False
    # a role or channel word glued before it spells a header, as a search for one names it
    # (``"pattern": "final<|message|>"``); the value's own text ends in any other word; a code
    # search or an edit's old text names what it looks for
    if _HEADER_WORD_BEFORE.search(text, lo, start) is not None:
        return False
    return _CODE_SEARCH_KEY.search(text, max(0, lo - 64), lo) is None


#: the keys that hold the words of a message a tool sends or posts
_MESSAGE_KEY = re.compile(
    r'"(content|text|body|message|msg|reply|caption)"\s*:\s*"\Z', re.IGNORECASE
)
#: a tool that stores, tests or renders data (its text may be a model's raw output as data)
_DATA_TOOL = re.compile(
    r"sample|example|dataset|eval|test|fixture|template|train|label|prompt|sql|row|record|doc"
    r"|file|gist|upload|render|valid|regex|replace|edit|insert|append|log|score|write|put|save"
    r"|store|index|generat|complet|chat|model|config|issue|commit|pull|page|wiki|comment|ticket",
    re.IGNORECASE,
)
#: an argument that names where the data goes (a file, a key, a place)
_PLACE_WORDS = frozenset(
    {"file", "filename", "filepath", "outfile", "infile", "path", "pathname", "dir", "directory",
     "folder", "url", "uri", "bucket", "repo", "repository", "repositories", "label", "score",
     "expected", "dest", "dst", "destination", "endpoint", "location", "key"}
)  # fmt: skip
#: a key's words: split at ``_``, ``-``, ``.`` and a lower-to-upper case change
_KEY_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _place_key(key: str) -> bool:
    """Whether an argument's key names where data goes: a word of it (or its plural) is a file,
    a path, a folder, a URL, a bucket, a repository, a storage key, a label, a score or an
    expected output (``file_path``, ``outputDir``, ``s3Key``, ``paths``)."""
    words = [w.lower() for w in _KEY_WORDS.findall(key)]
    return any(w in _PLACE_WORDS or w.removesuffix("s") in _PLACE_WORDS for w in words)


#: a letter of any script
_LETTER = re.compile(r"[^\W\d_]")
#: words of a message that shows or discusses the format rather than speaking through it
_ABOUT_THE_FORMAT = re.compile(
    r"(?i)\b(?:reasoning|chain\s+of\s+thought|parser?|parsed|parsing|tags?|blocks?|raw|format"
    r"|output|returns?|model"
    r"|hidden|hides?|strip\w*|leak\w*|R1|DeepSeek|Qwen|MiniMax|Kimi|template|goes\s+here"
    r"|UI|toggle|settings?)\b|</?think|\^"
)
#: the largest arguments text read as JSON for :func:`inline_reasoning`
_INLINE_LIMIT = 65536


def inline_reasoning(text: str, start: int, dialect: Dialect, tool_name: str | None) -> bool:
    """Whether the tag at ``start`` opens or closes the dialect's reasoning block that opens a
    message's words in a tool's arguments, with the message after it: the model's inline
    reasoning (MiniMax, Qwen3, Kimi and DeepSeek-R1 write it in their content), landed in an
    argument when the content was reused as one (``{"body": "<think>keep it short</think>
    Standup moved to 10:30."}``, blind sets heldout40, heldout44 and heldout46a). Only where
    the value is a message: a top-level ``content``, ``text``, ``body``, ``message``, ``reply``
    or ``caption`` of arguments that name no file, key or place and of a tool whose name says
    no data (a sample, a dataset, an eval, a template, a file, ...); the block holds words (six
    letters or more, not a placeholder) and words follow it. A dataset row, a test's expected
    output, a template or a prefill is data (the review's cases)."""
    if len(text) > _INLINE_LIMIT or (tool_name and _DATA_TOOL.search(tool_name)):
        return False
    lo, hi = _string_around(text, start, start + 1)
    key = _MESSAGE_KEY.search(text, max(0, lo - 64), lo)
    if key is None or text[hi : hi + 1] != '"':
        return False
    at = _LEADING_BLANKS.match(text, lo, hi).end()  # type: ignore[union-attr]
    for opener, closer in dialect.thinking:
        if not opener.startswith("<") or not text.startswith(opener, at):
            continue
        close = text.find(closer, at + len(opener), hi)
        if close < 0 or start not in (at, close):
            continue
        inner = text[at + len(opener) : close]
        after = text[close + len(closer) : hi]
        if len(_LETTER.findall(inner)) < 6 or len(_LETTER.findall(after)) < 2:
            return False  # an empty block, a placeholder (``...``), a letter: a format's docs
        if _ABOUT_THE_FORMAT.search(inner) or _ABOUT_THE_FORMAT.search(after):
            return False  # a message about the format ("this is what R1 returns", a template)
        return _top_level_message(text, key.group(1), lo, hi)
    return False


def _top_level_message(text: str, key: str, lo: int, hi: int) -> bool:
    """Whether ``key``'s string ``text[lo:hi]`` is a top-level value of arguments that parse
    as one JSON object with no key naming a file, a key or a place."""
    try:
        args = json.loads(text)
        value = json.loads('"' + text[lo:hi] + '"')
    except (ValueError, RecursionError):
        return False
    if not isinstance(args, dict) or args.get(key) != value:
        return False
    return not any(_place_key(k) for k in args if k != key)


class ArgumentToken:
    code = "P"
    name = "bare control token in an argument string"
    kind: Literal["anchor", "co"] = "co"
    surfaces = frozenset({Surface.TOOL_ARG})
    max_span = 2 * REACH + 64
    reach = (REACH, REACH)
    order = 106
    weight = 0.5

    def triggers(self, dialect: Dialect) -> Triggers:
        return Triggers()  # a co-signal never starts a hit on its own

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        own_rule = ctx.dialect.name in OWN_RULE
        starts: list[int] = []
        quotes: list[int] = []
        if own_rule:
            # (one pass each: a string's first token is found by bisection, so a value of
            # thousands of tokens costs no scan of its string per token)
            starts = sorted(a.start for a in ctx.anchors if a.code == "H")
            quotes = [m.end() - 1 for m in _DELIMITER.finditer(text.original)]
        boundary = ctx.parsed_end
        markers = _markers(ctx.dialect)
        original = text.original
        for index, anchor in enumerate(ctx.anchors):
            if anchor.code not in ("H", "X") or index in ctx.exempt:
                continue
            if boundary is not None and anchor.start >= boundary:
                continue  # past the boundary: T's case
            if own_rule and (
                not _first_in_string(anchor.start, starts, quotes)
                or not glued_frame(original, anchor.start, anchor.end, starts)
            ):
                continue
            # (another dialect's plain spelling only glued to the value's text, as a collapsed
            # call leaves it: ``ls -la</arg_value>``; after a blank or a cell's bar it is named)
            shaped = _TOKEN_SHAPED.search(anchor.evidence) is not None or (
                anchor.code == "X"
                and distinct_spelling(anchor.evidence)
                and glued(original, anchor.start)
            )
            if not shaped and not any(anchor.evidence.startswith(m) for m in markers):
                continue
            if anchor.code == "H" and _named_in_a_search(original, anchor, ctx.dialect):
                continue  # another family's token, named in a query
            if not inline_reasoning(
                original, anchor.start, ctx.dialect, ctx.tool_name
            ) and quoted_as_data(
                original, anchor.start, anchor.end, ctx.dialect.call_open, frame(ctx.dialect)
            ):
                continue
            yield Hit(
                signals=(self.code,),
                start=anchor.start,
                end=anchor.end,
                evidence=anchor.evidence,
                detail="control token written bare inside an argument string",
                anchor=index,
            )
