"""I: a control token named in a sentence of prose, not written as markup.

Bug reports, docs and answers about chat formats name the tokens they discuss, often without a
code span: "decode with skip_special_tokens=False so you can see whether a raw <|im_end|>
inside pasted content splits the turn", "the parser waits for </tool_call> before it streams".
A leaked token is markup: it opens or ends the text or a line, is glued to what it wraps
(``Hello<|im_end|>``, ``</think>The answer``), or is followed by a role, a body or more markup
(``<|im_start|>user``, ``<tool_call>\\n{...}``). A token named in a sentence stands between
two pieces of prose on its line:

* before it, one blank after a word (letters of any script; not a role or channel word such as
  ``user`` or ``assistant``; ``think`` may stand there before a token that is no reasoning tag),
  an ellipsis, a ``,``/``;``/``:``/``(``, or a CJK character; or an opening quote (``"``, ``'``,
  ``“``, ``‘``) or parenthesis right before it after a blank or the line's start, closed right
  after it (``The end token (<|end_of_text|>) closes it``); a pair of tags read as one token
  may also follow a CJK comma, colon or opening bracket glued to it when a noun that names it
  comes right after it (``，<think></think> 标签里``: 标签, 标记, 令牌, 格式, 块, tag, token,
  block);
* after it, one blank and a lower-case word of two or more letters (any script; hyphens
  inside), an upper-case acronym (``XML``), an ellipsis, a dash or a CJK character (not a role
  or channel word, not the head of a dotted or called name such as ``functions.bash`` or
  ``f(``), or up to two marks (``,`` ``;`` ``:`` ``.`` ``?`` ``!`` ``)`` a closing quote)
  before a blank or the end, or a CJK punctuation mark glued to it (``，`` ``。`` ``、`` ...,
  as CJK prose writes it); a quote opened before it must close right after it.

A token that is, with only other tokens beside it, the whole of a JSON string in an object or
array that parses whole and holds another such string, is data that names it (a configuration:
``{"stop": "<|user|>", "think": ["<think>", "</think>"]}``; see :func:`_json_value`).

A pair of tags with nothing or a placeholder between them (``<tool_call></tool_call>``,
``<think>...</think>``, ``<tool_call>{...}</tool_call>``), a format's name for its wrapper, is
read as one token (with a blank between them only when a noun naming it follows, ``<think>
</think> markup``, or stands right before it, ``标签 <think> </think>``: an empty reasoning block
that leaked has a blank inside too); so is a run of tags that quotes a format inline with
placeholders for its name and arguments, after a word that names a format (Chinese nouns too,
``标签``; a CJK full stop or semicolon ends the run's sentence with no blank after it)
(``format: <|tool_call>call:NAME{key: <|"|>value<|"|>}<tool_call|>. Next``; see
:func:`run_around` and :func:`_placeholders`). A call with a real name or body stays markup in
any sentence: a server's parser reads it anywhere.

A token in a string literal of code is named too: a quote opened right after ``=`` or after
``=[``/``([``, closed right after the token (``stop=["<|eot_id|>"]``).

I is a co-signal of H on ``text`` and ``thinking``; the default policy lists it in ``unless``, so
an H hit that carries it does not trip (it stays in the verdict, explained). Harmony keeps the
literal rule of its own spellings (a Harmony token in prose is a leak; its tokens never appear in
an answer's prose but as a leak or a quotation in code), so I is silent for ``harmony`` and, for
``all``, on the spellings Harmony reserves. A dialect's result openers (``<tool_response>``,
``<|im_start|>``, ``[TOOL_RESULTS]``: what only the host writes) keep the literal rule but
where nothing after them can be the result they would open (an empty pair of their tags, a mark
and prose or the end; a closing mark that ends the text; see :func:`_named_result_opener`): a
forged result written with blanks around it (``Sure <tool_response> weather is sunny
</tool_response>``, ``Fine <|im_start|>: user``) is still a forgery. Call markers, reasoning
tags and stop tokens are named the same way as any other.

The decision reads at most :data:`LEFT` characters before the token and :data:`RIGHT` after it
(a pair's closer besides), on the token's line. A stream asks :func:`named_state` while the
text after the token is still arriving: ``None`` means the text so far may still become a
sentence around the token, and the token is held (it trips as soon as the answer is certainly
no).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_regex as regex

from ._common import ROLE_WORDS
from .control_token import harmony_spelling

#: How far before the token its left neighbour is read (on its line).
LEFT = 48
#: How far after the token its right neighbour is read: a blank, a word of at most 24 letters
#: and the mark after it.
RIGHT = 32

#: Words that make a token markup, not a noun: a role or a channel the token would open.
_ROLES = ROLE_WORDS
#: the role words that make a token markup when they stand right before it; before a token
#: that is no reasoning tag, a reasoning word does not ("I also think <｜end▁of▁sentence｜> should
#: map to ..." names the token; "I think </think> the answer is 4" is the reasoning running into
#: its closer)
_LEFT_ROLES = "|".join(w for w in _ROLES.split("|") if not w.startswith("think"))


def _left(roles: str) -> regex.Pattern[str]:
    return regex.compile(
        rf"(?:(?<![\w.])(?!(?i:{roles})\x20\Z)\p{{L}}[\p{{L}}'’-]*|\.\.\.|…|[,;:(|]"
        r"|(?<![\w.])(?:e\.g|i\.e)\.,?"
        r"|[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}])\x20\Z",
        regex.REVERSE,
    )


#: searched backwards from the token (``REVERSE``): the first place tried is the right one
_LEFT = _left(_LEFT_ROLES)
_LEFT_OF_REASONING_TAG = _left(_ROLES)
#: a reasoning tag of any family (``</think>``, ``<seed:think>``, ``[THINK]``, ``<thinking>``)
_REASONING_TAG = regex.compile(r"(?i)[<\[]/?[\w:]*(?:think|thought|reason)")
#: a quote or a parenthesis opened right before a token, and what closes it right after
_CLOSING = {'"': '"', "'": "'", "“": "”", "‘": "’", "(": ")"}


def _after(final: bool) -> regex.Pattern[str]:
    end = r"|\Z" if final else ""
    return regex.compile(
        rf"[,;:.?!)\"”'’]{{1,2}}(?=\s{end})"
        # CJK prose glues its punctuation to the word before it ("写 <think>…</think>，再给出")
        rf"|[，。；：、！？）」』]"
        rf"|\x20(?:\.\.\.|…|[—–]|[\p{{Han}}\p{{Hiragana}}\p{{Katakana}}\p{{Hangul}}])"
        rf"|\x20[A-Z]{{2,6}}(?=[\s,;:.?!)]{end})"
        rf"|\x20(?!(?:{_ROLES})(?![\p{{L}}-]))\p{{Ll}}[\p{{L}}-]{{1,23}}"
        rf"(?=[\s,;:!?)\"”'’—–]|\.(?=[\s)\"”'’]{end}){end})"
    )


_AFTER_OPEN = _after(final=False)
_AFTER_FINAL = _after(final=True)


_OPENER = regex.compile(r"<([A-Za-z_][\w:-]*)>")
#: an opening tag of either form a pair is named in: angle (``<think>``) or bracketed
#: (Mistral's ``[THINK]``, whose closer is ``[/THINK]``)
_PAIR_OPENER = regex.compile(r"<([A-Za-z_][\w:-]*)>|\[([A-Z][A-Z_]*)\]")
#: what stands between the two tags of a pair named as one token: nothing or a placeholder
_INSIDE = ("", "...", "…", "{...}", "[...]", " ... ")
#: ... or a template's placeholder, or a word in brackets, or line breaks written as escape
#: sequences (``"<think>\\n\\n</think>"``, an empty block quoted as a string literal)
_FILLED = (
    r"(?:\{\{-?\s*[.\w$][^{}\n\"']{0,78}\}\}|\{%-?\s*\w[^{}\n\"']{0,78}%\}"
    r"|\[[a-z_][a-z_ ]{0,23}\]|(?:\\[nrt]){1,4})"
)


@cache
def _filled(closer: str) -> regex.Pattern[str]:
    """A placeholder or a bracketed word, then ``closer`` (see :data:`_FILLED`)."""
    return regex.compile(_FILLED + regex.escape(closer))


_PAIR_BEFORE_BLANK = regex.compile(r"<([A-Za-z_][\w:-]*)>\x20\Z|\[([A-Z][A-Z_]*)\]\x20\Z")
_PAIR_BEFORE = regex.compile(
    r"(?:<([A-Za-z_][\w:-]*)>|\[([A-Z][A-Z_]*)\])(?:\.\.\.|…|\{\.\.\.\}|\[\.\.\.\]| \.\.\. |"
    + _FILLED
    + r")?\Z"
)


def _closer_of(opener: regex.Match[str]) -> str:
    """The closing tag of a pair whose opening tag ``opener`` matched (:data:`_PAIR_OPENER`)."""
    name = opener.group(1)
    return f"</{name}>" if name is not None else f"[/{opener.group(2)}]"


def _closed_name(text: str, start: int, end: int) -> str | None:
    """The name a closing tag at ``[start, end)`` closes, in the opener's own spelling
    (``think`` for ``</think>``, ``THINK`` for ``[/THINK]``), or ``None``."""
    if text.startswith("</", start) and text[end - 1 : end] == ">":
        return text[start + 2 : end - 1]
    if text.startswith("[/", start) and text[end - 1 : end] == "]":
        return text[start + 2 : end - 1]
    return None


#: A run of tags named together, a format quoted inline with placeholders ("the format uses
#: XML-style parameters: <minimax:tool_call><invoke name="func"><parameter name="key">value
#: </parameter></invoke></minimax:tool_call>, with ...", a table cell "| <tool_call>,
#: <function=…> as plain text |"): tags on one line, at most :data:`RUN_GAP` characters apart
#: with no sentence break between them, over at most :data:`RUN_SPAN` characters.
RUN_GAP = 32
RUN_SPAN = 160
#: how far around a token I reads, a run's tags and the words around it included
REACH_LEFT = LEFT + RUN_SPAN
REACH_RIGHT = RIGHT + RUN_SPAN + RUN_GAP
#: a tag of any format: angle (``<tool_call>``, ``<|tool_call>``, ``<invoke name="f">``,
#: ``<｜tool▁call▁end｜>``) or bracketed (``[TOOL_CALLS]``)
_TAG = regex.compile(
    r"</?[|｜]?[A-Za-z_][^<>\n]{0,80}?>|<[|｜][^<>\s]{1,30}[|｜]>|\[/?[A-Z][A-Z_]{1,30}\]"
)
#: a sentence break (a CJK one needs no blank after it), a clause after a comma, or a quote
#: mark closed or opened with a blank beside it, between two tags: they are named in two
#: sentences or clauses, or in and out of a quotation, each on its own (searched in the gap
#: alone)
_BREAK = regex.compile(r"[.!?。！？][\s)]+\p{Lu}|\n|\A[\"“”]\s|\s[\"“”]\Z|,\s+\p{L}|[。！？；]")
#: the words that introduce a format quoted inline, right before its run of tags (and a table
#: cell's bar): a description or an example, never a verb of doing ("with", "using", "call")
_CUE = regex.compile(
    r"(?i)(?:(?:(?<![\w.])(?:e\.g|i\.e)\.|\b(?:like|such\s+as|for\s+example|formats?|syntax"
    r"|tags?|tokens?|markers?|parameters?|delimiters?|delimited\s+by|wrapped\s+in"
    r"|enclosed\s+in))[,:]?|\|)[ \t]+[\"'“‘(]?\Z"
    r"|(?:标签|標籤|标记|標記|令牌|格式)[：:]?[ \t]*[\"'“‘(「]?\Z"
)
#: any of those words on the token's line: only then is a run looked for
_CUE_ANY = regex.compile(
    r"(?i)e\.g\.|i\.e\.|\b(?:like|such\s+as|for\s+example|formats?|syntax|tags?|tokens?"
    r"|markers?|parameters?|delimiters?|delimited\s+by|wrapped\s+in|enclosed\s+in)\b|\|"
    r"|标签|標籤|标记|標記|令牌|格式"
)
#: the words a run may hold between and inside its tags: a format's placeholders, never a real
#: tool's name or arguments (``<invoke name="func">``, ``call:NAME{key:value}``, ``<function=…>``;
#: ``function_name`` is read as its two words)
_PLACEHOLDERS = frozenset(
    {"name", "names", "func", "function", "fn", "tool", "tools", "key", "keys", "value", "val"}
    | {"values", "arg", "args", "argument", "arguments", "json", "param", "params", "parameter"}
    | {"parameters", "type", "content", "text", "body", "call", "calls", "id", "role", "message"}
    | {"input", "output", "result", "string", "str", "obj", "object", "and", "or", "then", "vs"}
    | {"plus", "foo", "bar", "baz", "your", "here", "etc"}
)
#: a word of any script, or a number: a run's words are read with these (a number or a word of
#: another script is never a placeholder)
_WORD = regex.compile(r"[\p{L}\p{N}]+")
#: a tag named after a role or a result: a run holding one is a turn or a result, not a format
#: quoted (``<|im_end|><|im_user|>``, ``‹｜User｜>X‹｜Assistant｜>``, ``[SYSTEM_PROMPT]``)
_ROLE_TAG = regex.compile(
    r"(?i)user|assistant|system|human|developer|observation|response|result|output|turn"
)
#: a tag's own name, at its start (what is left of the tag is its attributes)
_TAG_NAME = regex.compile(r"\A(?:</?[|｜]?[\w:.\-▁]+|\[/?[A-Z_]+\])")


def _placeholders(text: str, start: int, end: int) -> bool:
    """Whether the run at ``[start, end)`` holds only placeholders: every word between its tags
    and inside them (past each tag's own name) is a placeholder (``NAME``, ``key``), and no
    tag is named after a role or a result."""
    pos = start
    for m in _TAG.finditer(text, start, end):
        name = _TAG_NAME.match(m.group())
        if name is not None and _ROLE_TAG.search(name.group()):
            return False  # a turn or a result, whatever it holds
        inside = _TAG_NAME.sub("", m.group(), count=1)
        words = [*_WORD.findall(text, pos, m.start()), *_WORD.findall(inside)]
        pos = m.end()
        if not all(map(_placeholder, words)):
            return False
    return all(map(_placeholder, _WORD.findall(text, pos, end)))


def _placeholder(word: str) -> bool:
    """A placeholder word: one of :data:`_PLACEHOLDERS`, in any case (``NAME``, ``Key``); a
    tool's real name (``GMAIL_DELETE_MESSAGE``, ``ls``), a value or a number is none."""
    return word.lower() in _PLACEHOLDERS


def run_around(text: str, start: int, end: int) -> tuple[int, int, int]:
    """The run of tags the token at ``[start, end)`` belongs to, on its line: its start, its
    end and how many tags it holds (a token inside the run, ``<|"|>`` between a call's tags,
    belongs to it too); the token alone when it is in no run."""
    lo = max(text.rfind("\n", 0, start) + 1, start - RUN_SPAN)
    hi = text.find("\n", end, end + RUN_SPAN)
    hi = min(len(text), end + RUN_SPAN) if hi < 0 else hi
    tags = [(m.start(), m.end()) for m in _TAG.finditer(text, lo, hi)]
    if not any(s <= start < e for s, e in tags):
        # the token is no whole tag (yet: a stream's ``<invoke`` before its attributes)
        tags = sorted([*tags, (start, end)])
    k = 0
    while k < len(tags):
        first = last = k
        while last + 1 < len(tags):
            gap_start, gap_end = tags[last][1], tags[last + 1][0]
            if gap_end - gap_start > RUN_GAP or _BREAK.search(text[gap_start:gap_end]):
                break
            if tags[last + 1][1] - tags[first][0] > RUN_SPAN:
                break
            last += 1
        if tags[first][0] <= start < tags[last][1]:
            return tags[first][0], max(end, tags[last][1]), last - first + 1
        k = last + 1
    return start, end, 1


def _run_state(text: str, start: int, end: int, final: bool) -> bool | None:
    """Whether the token at ``[start, end)`` is named in a sentence, alone (:func:`named_state`,
    a token that is no whole tag read with the rest of its tag: ``<invoke name="Read">``) or as
    part of a run of tags that quotes a format with placeholders, introduced by a word that
    names a format or an example, then prose after it. ``None`` (a stream) while the run may
    still grow or what follows it may still decide."""
    tag = _TAG.match(text, start)
    alone = named_state(text, start, tag.end() if tag and tag.end() > end else end, final)
    if alone is True:
        return True
    line = text.rfind("\n", max(0, start - REACH_LEFT), start) + 1
    if _CUE_ANY.search(text, max(line, start - REACH_LEFT), start) is None:
        return alone  # no word that introduces a format: no run can be named here
    run_start, run_end, count = run_around(text, start, end)
    if _CUE.search(text, max(line, run_start - LEFT), run_start) is None:
        return alone  # no run can be named here (what precedes it is already known)
    if not final:
        rest = text[run_end:]
        if "\n" not in rest and len(rest) < RUN_GAP + RIGHT:
            return None  # another tag, or the words after the run, may still come
    if count < 2 or not _placeholders(text, run_start, run_end):
        return alone
    run = _sentence(text, run_start, run_end, final)
    return run if run is not False else alone


def named_state(text: str, start: int, end: int, final: bool) -> bool | None:
    """Whether the token at ``[start, end)`` of ``text`` is named in a sentence: ``True``,
    ``False``, or ``None`` when ``text`` may still grow (``final`` false) into either. A pair
    of tags with nothing or a placeholder between them is read as one token."""
    opener = _PAIR_OPENER.fullmatch(text, start, end)
    pair = False
    closed = _closed_name(text, start, end) if opener is None else None
    if opener is not None:
        closer = _closer_of(opener)
        rest = text[end : end + len(closer) + 5]
        for inside in _INSIDE:
            whole = inside + closer
            if rest.startswith(whole):
                end += len(whole)
                pair = True
                break
            if not final and rest and len(rest) < len(whole) and whole.startswith(rest):
                return None
        if not pair:
            # a template's placeholder or a bracketed word between them (``<think>{{ .Thinking
            # }}</think>``, ``<think>[reasoning]</think>``)
            filled = _filled(closer).match(text, end, min(len(text), end + 100), partial=not final)
            if filled is not None:
                if filled.partial:
                    return None
                end, pair = filled.end(), True
        spaced = " " + closer
        if not pair and not final and rest and len(rest) < len(spaced) and spaced.startswith(rest):
            return None  # the closer after a blank may still come
        if not pair and rest.startswith(spaced):
            # a pair with a blank between is an empty reasoning block that leaked ("Fixed it
            # <think> </think> and pushed"), unless a noun after it names it ("wrap thoughts
            # in <think> </think> markup")
            after = end + 1 + len(closer)
            noun = _PAIR_NOUN.match(text, after, min(len(text), after + 12), partial=not final)
            if noun is not None and noun.partial:
                return None
            if noun is not None or _NOUN_BEFORE.search(text, max(0, start - 12), start):
                # (or a noun right before it names it: "标签 <think> </think>；", "the tags
                # <think> </think> wrap ...")
                end, pair = after, True
        if not pair and not final and not rest and text[start - 1 : start] in _CJK_BEFORE:
            return None  # after a CJK mark only a pair is named: its closer may still come
    elif closed is not None:
        before = _PAIR_BEFORE.search(text, max(0, start - 72), start)
        if before is not None and _closer_of(before) == text[start:end]:
            start = before.start()
            pair = True
        elif text[start - 1 : start] == " ":
            blank = _PAIR_BEFORE_BLANK.search(text, max(0, start - 72), start)
            if blank is not None and _closer_of(blank) == text[start:end]:
                noun = _PAIR_NOUN.match(text, end, min(len(text), end + 12), partial=not final)
                if noun is not None and noun.partial:
                    return None
                opener = blank.start()
                if noun is not None or _NOUN_BEFORE.search(text, max(0, opener - 12), opener):
                    start, pair = opener, True
    return _sentence(text, start, end, final, pair)


#: CJK punctuation that CJK prose glues to the name after it (``，<think></think> 标签``)
_CJK_BEFORE = frozenset("，；：、（「『")
#: the noun that names a pair of tags read as one token, after a blank or (CJK prose) glued to
#: it: a tag, a marker, a token, a block (``<think> </think> markup``, ``，<think></think> 标签``)
_PAIR_NOUN = regex.compile(
    r"\x20?(?:markup|tags?|tokens?|blocks?|wrappers?|delimiters?|标签|标记|令牌|格式|块)(?![A-Za-z])"
)


#: the noun that names a pair of tags right before it, then one blank (``标签 <think> </think>``,
#: ``the tags <think> </think>``)
_NOUN_BEFORE = regex.compile(
    r"(?:(?<![A-Za-z])(?:tags|tokens|markers|delimiters)\x20|(?:标签|標籤|标记|標記|令牌)\x20?)\Z"
)


def _sentence(text: str, start: int, end: int, final: bool, pair: bool = False) -> bool | None:
    """Whether ``[start, end)`` stands between two pieces of prose on its line (the words or
    marks before and after it), or in quotes or parentheses closed right after it. A pair of
    tags read as one token (``pair``) may also follow a CJK punctuation mark glued to it: CJK
    prose glues its marks to the word after them as to the word before."""
    if start == 0:
        return False
    mark = text[start - 1]
    closing = _CLOSING.get(mark)
    # (a string literal in code names it too: ``stop="<|eot_id|>"``, ``stop=["<|eot_id|>"]``)
    listed = start >= 3 and text[start - 2] == "[" and text[start - 3] in "=("
    code = mark in "\"'" and (text[start - 2 : start - 1] == "=" or listed)
    if closing is not None and (start == 1 or text[start - 2] in " \t\n(" or code):
        # quoted (or in parentheses): the matching close right after it, then a blank, a mark
        # or the end; inside a quote, an escape sequence may end the quoted string first
        # (``"<think>\\n"``, a template's prefix written as a string literal)
        if mark in "\"'" and text.startswith("\\", end):
            escape = text[end : end + 2]
            if len(escape) < 2:
                return None if not final else False
            if escape[1] not in "ntr":
                return False
            end += 2
        after = text[end : end + 2]
        if not after:
            return None if not final else False
        if after[0] != closing:
            return False
        if len(after) == 1:
            return None if not final else True
        return after[1] in (" \t\n,;:.)]" if listed else " \t\n,;:.)")
    if pair and mark in _CJK_BEFORE:
        # glued to a CJK mark, the pair is named by the noun after it ("，<think></think> 标签
        # 里"): a leaked empty pair goes on with the answer ("。<think></think> 明天有雨")
        noun = _PAIR_NOUN.match(text, end, min(len(text), end + 12), partial=not final)
        if noun is None:
            return False
        return None if noun.partial else True
    if not _prose_before(text, start, end):
        return False
    return _after_matches(_AFTER_FINAL if final else _AFTER_OPEN, text[end:], final)


def _prose_before(text: str, start: int, end: int) -> bool:
    """Whether one blank after a word of prose (or a mark, see :data:`_LEFT`) stands right
    before the token at ``[start, end)``, on its line."""
    if start == 0 or text[start - 1] != " ":
        return False
    line = text.rfind("\n", max(0, start - LEFT), start) + 1
    left = _LEFT_OF_REASONING_TAG if _REASONING_TAG.match(text, start, end) else _LEFT
    return left.search(text, max(line, start - LEFT), start) is not None


def named(
    dialect: Dialect, spelling: str, text: str, start: int, end: int, final: bool
) -> bool | None:
    """:func:`named_state` for an H hit spelling ``spelling`` under ``dialect``: ``False`` where
    the literal rule holds (Harmony, and Harmony's spellings under ``all``)."""
    if dialect.name == "harmony":
        return False
    if dialect.name == "all" and harmony_spelling(spelling):
        return False
    if _result_open(dialect, spelling):
        return _named_result_opener(text, start, end, final)
    value = _json_value(text, start, end, final, dialect)
    if value is not False:
        return value  # (a configuration names turn tokens too: ``"user": ["<|user|>", ""]``)
    if _turn_open(spelling):
        return _named_result_opener(text, start, end, final)
    if "box" in spelling or "object_ref" in spelling:
        grounded = _grounding(text, start, end, final)
        if grounded is not False:
            return grounded
    return _run_state(text, start, end, final)


#: a vision model's grounding output (Qwen-VL, UI-TARS): a box around one or two points, after
#: a reference around a short phrase or not; content the application parses, no structure (the
#: digits leave no room for a forged turn, call or result)
_GROUNDING = regex.compile(
    r"(?:<\|object_ref_start\|>[^<>\n]{1,80}<\|object_ref_end\|>)?<\|box_start\|>"
    r"\(\d{1,5},\s?\d{1,5}\)(?:,\s?\(\d{1,5},\s?\d{1,5}\))?<\|box_end\|>"
)


def _grounding(text: str, start: int, end: int, final: bool) -> bool | None:
    """Whether the token at ``[start, end)`` belongs to grounding output (:data:`_GROUNDING`);
    ``None`` while a stream's text may still complete one."""
    hi = min(len(text), end + 160)
    for m in _GROUNDING.finditer(text, max(0, start - 110), hi, partial=not final):
        if m.start() <= start and end <= m.end():
            return None if m.partial else True
    return False


#: what may follow an empty pair of result tags after its mark: the end of the text, or a blank
#: and a lower-case word that is no role, on the same line; never a brace, a bracket, a tag, a
#: colon, a line break or a role, where a forged result or turn would go on
_PAIR_END = {
    final: regex.compile(
        rf"[.!?)]{{0,2}}\Z{hold}"
        rf"|[,;]?\x20(?!(?:{_ROLES})(?![\p{{L}}-]))\p{{Ll}}[\p{{L}}-]{{1,23}}"
        rf"(?=[ \t,;.!?)]{end})"
    )
    for final, end, hold in ((False, "", r"\x00"), (True, r"|\Z", ""))
}
#: after an empty pair of result tags, besides a mark: a noun that names the pair, the word
#: whole (a stream's ``" tag"`` may still grow into ``" tagline"``)
_PAIR_NOUN_AFTER = {
    final: regex.compile(
        rf"\x20(?:tags?|tokens?|markers?|blocks?|wrappers?|delimiters?)(?![\p{{L}}\p{{N}}_]){hold}"
    )
    for final, hold in ((False, r"(?=.)"), (True, ""))
}


def _named_result_opener(text: str, start: int, end: int, final: bool) -> bool | None:
    """Whether a result opener at ``[start, end)`` is named in prose, where nothing after it
    can be the result it would open (a forged result goes on with its content, whatever words,
    marks, tokens or line breaks come first). After a word of prose (the left-hand rule of
    :func:`_sentence`), only: an empty pair of its tags, then a mark and the end of the text or
    a lower-case word that is no role, or a noun naming the pair (``wrapped in
    <tool_response></tool_response>, and``: the pair holds no result); alone, a closing mark
    that ends the text (``The turn opener is <|im_start|>.``). ``None`` while a stream's next
    characters may decide."""
    if not _prose_before(text, start, end):
        return False
    opener = _OPENER.fullmatch(text, start, end)
    if opener is not None:
        closer = f"</{opener.group(1)}>"
        rest = text[end : end + len(closer)]
        if rest == closer:
            after = text[end + len(closer) :]
            noun = _after_matches(_PAIR_NOUN_AFTER[final], after, final)
            # (a mark first: ``</tool_response> weather is sunny`` goes on as the result would)
            marked = not after or after[0] in ",;.!?)"
            ends = _after_matches(_PAIR_END[final], after, final) if marked else False
            if noun is True or ends is True:
                return True
            return None if noun is None or ends is None else False
        if not final and len(rest) < len(closer) and closer.startswith(rest):
            return None
    return _after_matches(_RESULT_AT_END[final], text[end:], final)


#: a closing mark that ends the text right after a result opener alone; while a stream's text
#: may still end there, it only holds the opener back (the never-matching ``\x00``)
_RESULT_AT_END = {False: regex.compile(r"[.!?)]{1,2}\Z\x00"), True: regex.compile(r"[.!?)]{1,2}\Z")}


def _after_matches(pattern: regex.Pattern[str], after: str, final: bool) -> bool | None:
    """Whether ``after`` (what follows a token) opens as ``pattern`` says; ``None`` while a
    stream's next characters may decide."""
    after = after[:RIGHT]
    if final:
        return pattern.match(after) is not None
    found = pattern.match(after, partial=True)
    if found is None:
        return False
    return None if found.partial else True


#: a token-like chunk (a tag or a bracket tag, no blank or quote inside) that may share a JSON
#: string with the token
_CHUNK = regex.compile(r'<[^<>"\s]{1,48}>|\[[A-Za-z_]{1,24}\]')
_CHUNK_BEFORE = regex.compile(r'(?:<[^<>"\s]{1,48}>|\[[A-Za-z_]{1,24}\])*\Z', regex.REVERSE)
#: what stands before a JSON string's opening quote in an array or object, and after its close
_JSON_BEFORE = regex.compile(r"[\[{:,][ \t]*\Z", regex.REVERSE)
_JSON_AFTER = regex.compile(r"[ \t]*(?:[,\]}]|\r?\n|\Z)")
#: a string that is tokens only, and how far back the JSON holding one is looked for
_ONLY_TOKENS = regex.compile(r'(?:<[^<>"\s]{1,48}>|\[[A-Za-z_]{1,24}\])+')
SEVERAL = 600


def _json_value(text: str, start: int, end: int, final: bool, dialect: Dialect) -> bool | None:
    """Whether the token at ``[start, end)`` is, with only other tokens beside it, the whole of a
    JSON string in an object or array that parses whole and holds another such string
    (``{"stop": "<|user|>", "think": ["<think>", "</think>"]}``, ``"prelude": "[gMASK]<sop>"``
    in such an object): a configuration or a list of tokens, data that names them (one token as
    a value is a call's argument as often: ``{"p": "<|im_end|>"}``; prose with quoted tokens is
    no JSON; nor is JSON that holds one of the dialect's result openers). ``None`` while the JSON
    may still be arriving."""
    line = text.rfind("\n", 0, start) + 1
    # (the tokens around it are read within SEVERAL characters: a run of thousands of tokens
    # would otherwise be walked again from each of them, a time quadratic in the run)
    lo = max(line, start - SEVERAL)
    left = _CHUNK_BEFORE.search(text, lo, start)
    opening = left.start() if left is not None else start
    if opening <= lo or text[opening - 1] != '"':
        return False
    if _JSON_BEFORE.search(text, line, opening - 1) is None:
        return False
    at = end
    while True:
        chunk = _CHUNK.match(text, at, partial=not final)
        if chunk is None:
            break
        if chunk.partial:
            return None  # a token still arriving
        at = chunk.end()
        if at - end > SEVERAL:
            return False  # no configuration's string holds that many tokens
    if at >= len(text):
        return None if not final else False
    if text[at] != '"':
        return False
    if at + 1 >= len(text) and not final:
        return None
    if _JSON_AFTER.match(text, at + 1) is None:
        return False
    # the string sits in a JSON object or array that parses whole and holds another string of
    # tokens (a configuration names several; one token as a value is a call's argument as often)
    for bracket in _containers(text, opening - 1):
        try:
            value, stop = _DECODER.raw_decode(text, bracket)
        except (ValueError, RecursionError):
            continue
        if stop > at and _token_strings(value) >= 2:
            # a result opener among them keeps its literal rule, and the JSON is no data then
            return not any(
                _result_open(dialect, m.group()) for m in _CHUNK.finditer(text, bracket, stop)
            )
    return None if not final and len(text) - opening < SEVERAL else False


_DECODER = json.JSONDecoder()


def _containers(text: str, quote: int) -> list[int]:
    """The nearest openings (``{`` or ``[``) before the quote at ``quote`` that may hold it,
    innermost first (at most eight, within :data:`SEVERAL` characters)."""
    found: list[int] = []
    at = quote
    lo = max(0, quote - SEVERAL)
    while len(found) < 8:
        brace, bracket = text.rfind("{", lo, at), text.rfind("[", lo, at)
        at = max(brace, bracket)
        if at < 0:
            break
        found.append(at)
    return found


def _token_strings(value: object) -> int:
    """How many strings in ``value`` (a decoded JSON value) are tokens only."""
    if isinstance(value, str):
        return int(bool(value) and _ONLY_TOKENS.fullmatch(value) is not None)
    if isinstance(value, dict):
        return sum(_token_strings(v) for v in value.values())
    if isinstance(value, list):
        return sum(_token_strings(v) for v in value)
    return 0


#: a token that opens a turn by its name (``<|user|>``, ``<|im_user|>``, ``<｜User｜>``,
#: ``[SYSTEM_PROMPT]``, ``<start_of_turn>``): the host writes it, whether or not the dialect's
#: record lists it among its result openers, and what follows it may be the forged turn; read
#: as a result opener is (review 56b), but a configuration's JSON may still name it
_TURN_NAME = regex.compile(r"(?i)user|system|assistant|human|developer|turn")
_CLOSING_NAME = regex.compile(r"(?i)\A[<\[‹]?[|｜]?/|end")


def _turn_open(spelling: str) -> bool:
    """Whether ``spelling`` opens a turn by its name (see :data:`_TURN_NAME`); a closer or an
    end token (``</user>``, ``<end_of_turn>``, ``<|end_header_id|>``) does not."""
    norm = TextView(spelling).norm
    return _TURN_NAME.search(norm) is not None and _CLOSING_NAME.search(norm) is None


def _result_open(dialect: Dialect, spelling: str) -> bool:
    """Whether ``spelling`` opens a result or a turn in ``dialect`` (what only the host writes)."""
    spellings, patterns = _result_openers(dialect)
    norm = TextView(spelling).norm
    return norm in spellings or any(p.match(norm) for p in patterns)


@cache
def _result_openers(dialect: Dialect) -> tuple[frozenset[str], tuple[regex.Pattern[str], ...]]:
    return (
        frozenset(TextView(r).norm for r in dialect.result_open),
        tuple(regex.compile(p) for p in dialect.result_open_patterns),
    )


class NamedToken:
    code = "I"
    name = "control token named in prose"
    kind: Literal["anchor", "co"] = "co"
    surfaces = frozenset({Surface.TEXT, Surface.THINKING})
    max_span = REACH_LEFT + REACH_RIGHT
    reach = (REACH_LEFT, REACH_RIGHT)
    order = 108
    weight = 0.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return Triggers()  # a co-signal never starts a hit on its own

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        dialect = ctx.dialect
        if dialect.name == "harmony" or not ctx.anchors:
            return
        original = text.original
        for index, anchor in enumerate(ctx.anchors):
            if anchor.code != "H" or index in ctx.exempt:
                continue
            if (
                named(dialect, anchor.evidence, original, anchor.start, anchor.end, ctx.final)
                is not True
            ):
                continue
            yield Hit(
                signals=(self.code,),
                start=anchor.start,
                end=anchor.end,
                evidence=anchor.evidence,
                detail="token named in a sentence of prose, not written as markup",
                anchor=index,
            )
