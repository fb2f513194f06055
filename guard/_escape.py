"""Reversible transport-layer escaping of reserved spellings in untrusted text.

The scheme (the same for every dialect):

* A reserved spelling that contains a bar (``|`` or the fullwidth ``｜``) is escaped by putting a
  backslash before each of its bars: ``<|channel|>`` becomes ``<\\|channel\\|>`` (law E3, the form
  models and servers already see from the reference agent).
* A reserved spelling without a bar gets one backslash after its first character:
  ``<think>`` becomes ``<\\think>``, ``[gMASK]`` becomes ``[\\gMASK]``.

To make this reversible for *every* string, text that already looks escaped is escaped once more:
the escaper matches each spelling with any run of backslashes (zero or more) at its escape
positions and adds one backslash to each run; the unescaper matches runs of one or more and
removes one. Reserved spellings never contain a backslash (the `Dialect` record enforces it), so
the runs are unambiguous, and a match in the escaped text maps back to exactly the match it came
from. Dialects whose spellings can overlap (MiniMax's ``]~b]``) are matched with overlapping
search, and every escape position is bumped once.

Only the transport copy is escaped: the functions return new strings and deep copies and never
touch their input.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import regex

from guard._depth import check_depth, nesting_error
from guard._log import get_logger
from guard.dialects import Dialect, get_dialect

__all__ = [
    "escape",
    "escape_json",
    "escape_messages",
    "escape_tools",
    "escaper_for",
    "unescape",
    "unescape_json",
]

_log = get_logger("guard.escape")

_BARS = ("|", "\uff5c")
_RUN0 = r"\\*"
_RUN1 = r"\\+"
_NO_BACKSLASH_BEFORE = r"(?<!\\)"


def _quote(text: str) -> str:
    quoted: str = regex.escape(text)
    return quoted


def _literal_source(spelling: str, run: str) -> str:
    if any(bar in spelling for bar in _BARS):
        return "".join(run + _quote(ch) if ch in _BARS else _quote(ch) for ch in spelling)
    return _quote(spelling[0]) + run + _quote(spelling[1:])


def _pattern_source(pattern: str, run: str) -> str:
    # Convention of the Dialect record: bars of the spelling are written `\|` or `｜`, never
    # inside a character class, so a plain textual substitution finds every one of them.
    out = pattern.replace("\\|", "\0BAR\0").replace("\uff5c", "\0FWBAR\0")
    return out.replace("\0BAR\0", run + "\\|").replace("\0FWBAR\0", run + "\uff5c")


def _overlap(a: str, b: str) -> bool:
    """True when a proper suffix of ``a`` is a prefix of ``b``."""
    return any(b.startswith(a[-k:]) for k in range(1, len(a)))


def _can_overlap(literals: Sequence[str], patterns: Sequence[str]) -> bool:
    for a in literals:
        if "<" in a[1:] or ">" in a[:-1]:
            return True
        if any(_overlap(a, b) for b in literals):
            return True
    # Patterns are token-shaped (`<...>`): they can only overlap a literal that carries `<` or
    # `>` inside, which the loop above already answered; anything else is checked here.
    return any(not (p.startswith("<") and p.endswith(">")) for p in patterns)


@dataclass(frozen=True, slots=True)
class _Escaper:
    """The compiled escaping machinery of one dialect."""

    name: str
    find: Any  # compiled regex: reserved spellings with backslash runs of length >= 0
    find_escaped: Any  # the same with runs of length >= 1
    quick: tuple[str, ...]  # every match contains at least one of these characters
    overlapped: bool

    def escape(self, text: str) -> tuple[str, int]:
        if not any(ch in text for ch in self.quick):
            return text, 0
        if self.overlapped:
            return self._by_positions(text, self.find, _escape_positions, insert=True)
        count = 0

        def bump(m: Any) -> str:
            nonlocal count
            count += 1
            return _escape_match(m.group())

        out = self.find.sub(bump, text)
        return (out, count) if count else (text, 0)

    def unescape(self, text: str) -> tuple[str, int]:
        # an escaped spelling holds a backslash and what its spelling holds of `quick`
        if "\\" not in text or not any(ch in text for ch in self.quick):
            return text, 0
        if self.overlapped:
            return self._by_positions(text, self.find_escaped, _unescape_positions, insert=False)
        count = 0

        def drop(m: Any) -> str:
            nonlocal count
            count += 1
            return _unescape_match(m.group())

        out = self.find_escaped.sub(drop, text)
        return (out, count) if count else (text, 0)

    @staticmethod
    def _by_positions(
        text: str,
        pattern: Any,
        positions_of: Callable[[str], Iterable[int]],
        *,
        insert: bool,
    ) -> tuple[str, int]:
        positions: set[int] = set()
        count = 0
        for m in pattern.finditer(text, overlapped=True):
            count += 1
            start = m.start()
            positions.update(start + p for p in positions_of(m.group()))
        if not count:
            return text, 0
        pieces: list[str] = []
        last = 0
        for pos in sorted(positions):
            pieces.append(text[last:pos])
            if insert:
                pieces.append("\\")
                last = pos
            else:
                last = pos + 1  # drop the backslash at `pos`
        pieces.append(text[last:])
        return "".join(pieces), count


def _has_bar(s: str) -> bool:
    return "|" in s or "\uff5c" in s


def _escape_match(s: str) -> str:
    if _has_bar(s):
        return s.replace("|", "\\|").replace("\uff5c", "\\\uff5c")
    return s[0] + "\\" + s[1:]


def _unescape_match(s: str) -> str:
    if _has_bar(s):
        return s.replace("\\|", "|").replace("\\\uff5c", "\uff5c")
    return s[0] + s[2:]


def _escape_positions(s: str) -> Iterable[int]:
    """Offsets (within a match) before which one backslash is inserted."""
    if _has_bar(s):
        return [i for i, ch in enumerate(s) if ch in _BARS]
    # A bar-less spelling: after the first character, i.e. before whatever follows its run.
    return [1 + _run_length(s, 1)]


def _unescape_positions(s: str) -> Iterable[int]:
    """Offsets (within a match) of the backslash to remove from each run."""
    if _has_bar(s):
        return [i - 1 for i, ch in enumerate(s) if ch in _BARS]
    return [1]


def _run_length(s: str, i: int) -> int:
    n = 0
    while i + n < len(s) and s[i + n] == "\\":
        n += 1
    return n


def _quick_chars(literals: Sequence[str], patterns: Sequence[str]) -> tuple[str, ...]:
    chars: set[str] = set()
    for s in literals:
        chars.update(bar for bar in _BARS if bar in s) if _has_bar(s) else chars.add(s[0])
    for p in patterns:
        if "\\|" in p:
            chars.add("|")
        elif "\uff5c" in p:
            chars.add("\uff5c")
        else:  # pragma: no cover - every shipped pattern carries a bar
            raise ValueError(f"reserved pattern without a bar cannot be escaped: {p!r}")
    return tuple(sorted(chars))


@cache
def _escaper_for(dialect: Dialect) -> _Escaper:
    patterns = list(dict.fromkeys((*dialect.reserved_patterns, *dialect.escape_patterns)))
    compiled = [regex.compile(p) for p in patterns]
    # Literals a pattern already covers add nothing but alternation cost.
    literals = sorted(
        {s for s in dialect.reserved if not any(c.fullmatch(s) for c in compiled)},
        key=lambda s: (-len(s), s),
    )

    overlapped = _can_overlap(literals, patterns)

    def build(run: str) -> Any:
        alternatives = [_literal_source(s, run) for s in literals]
        alternatives += [_pattern_source(p, run) for p in patterns]
        # A spelling that opens with a bar (DSML's `｜DSML｜`) opens its alternative with a
        # backslash run. Tried from every position inside a long run of backslashes, it would
        # rescan the rest of the run each time; it can only match from the run's first
        # backslash (a match never ends in a backslash), so it starts only where no backslash
        # precedes.
        alternatives = [_NO_BACKSLASH_BEFORE + a if a.startswith(run) else a for a in alternatives]
        source = "|".join(f"(?:{a})" for a in alternatives)
        if not overlapped:
            # The stdlib engine substitutes about 1.5x faster here; `regex` is needed only for
            # overlapped search (and for syntax `re` lacks).
            try:
                return re.compile(source)
            except re.error:
                pass
        return regex.compile(source, regex.V0)

    return _Escaper(
        name=dialect.name,
        find=build(_RUN0),
        find_escaped=build(_RUN1),
        quick=_quick_chars(literals, patterns),
        overlapped=overlapped,
    )


def _resolve(dialect: str | Dialect) -> _Escaper:
    return _escaper_for(get_dialect(dialect))


def escaper_for(dialect: str | Dialect) -> _Escaper:
    """The compiled escaper of ``dialect`` (cached per dialect), for callers that escape many
    strings of one request, such as the wire engine."""
    return _resolve(dialect)


def _check_text(text: object, func: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{func}() expects text as str, got {type(text).__name__}")
    return text


def escape(text: str, dialect: str | Dialect = "harmony") -> str:
    """Escape every reserved spelling of ``dialect`` in ``text`` (``dialect="all"``: every
    dialect's). Text with nothing to escape is returned as the same object."""
    escaper = _resolve(dialect)
    out, count = escaper.escape(_check_text(text, "escape"))
    if count:
        _log.debug("guard.escape", dialect=escaper.name, spellings=count, chars=len(text))
    return out


def unescape(text: str, dialect: str | Dialect = "harmony") -> str:
    """Undo :func:`escape`: ``unescape(escape(x, d), d) == x`` for every string ``x``."""
    escaper = _resolve(dialect)
    out, count = escaper.unescape(_check_text(text, "unescape"))
    if count:
        _log.debug("guard.unescape", dialect=escaper.name, spellings=count, chars=len(text))
    return out


# ---------------------------------------------------------------------------------------------
# JSON documents

# A JSON string token. In a valid document, scanning left to right with this pattern finds exactly
# the string tokens, because outside strings JSON has no quote characters.
_JSON_STRING = regex.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"', regex.DOTALL)


def _parse_json(doc: str, func: str) -> None:
    try:
        json.loads(doc)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{func}() expects a valid JSON document; got invalid JSON at line {exc.lineno}"
            f" column {exc.colno} (char {exc.pos}): {exc.msg}"
        ) from None
    except RecursionError:
        raise nesting_error(f"{func}() input") from None


def _rewrite_json_strings(
    doc: str, transform: Callable[[str], tuple[str, int]], quick: tuple[str, ...]
) -> tuple[str, int]:
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


def escape_json(doc: str, dialect: str | Dialect = "harmony") -> str:
    """Escape the string leaves and keys of a JSON document given as text.

    The result is valid JSON whose decoded strings equal ``escape(s)`` of the originals; only the
    string tokens that needed escaping are rewritten, so the rest of the formatting is kept.

    Raises:
        ValueError: ``doc`` is not valid JSON (the message names line, column and char offset).
    """
    escaper = _resolve(dialect)
    _parse_json(_check_text(doc, "escape_json"), "escape_json")
    out, count = _rewrite_json_strings(doc, escaper.escape, escaper.quick)
    if count:
        _log.debug("guard.escape_json", dialect=escaper.name, spellings=count, chars=len(doc))
    return out


def unescape_json(doc: str, dialect: str | Dialect = "harmony") -> str:
    """Undo :func:`escape_json` on the string leaves and keys of a JSON document."""
    escaper = _resolve(dialect)
    _parse_json(_check_text(doc, "unescape_json"), "unescape_json")
    out, _ = _rewrite_json_strings(doc, escaper.unescape, ("\\",))
    return out


# ---------------------------------------------------------------------------------------------
# Message lists (OpenAI Chat Completions and Responses shapes)


class _Walker:
    """Escapes the text fields of chat messages and Responses items, counting what it did."""

    def __init__(self, escaper: _Escaper) -> None:
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
        out, count = _rewrite_json_strings(value, self.escaper.escape, self.escaper.quick)
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


def _role_of(msg: Any) -> str | None:
    if not isinstance(msg, Mapping):
        return None
    role = msg.get("role")
    if isinstance(role, str):
        return role
    kind = msg.get("type")
    return _ROLE_OF_ITEM.get(kind) if isinstance(kind, str) else None


def escape_messages(
    messages: Sequence[Any],
    dialect: str | Dialect = "harmony",
    roles: Iterable[str] | None = None,
) -> list[Any]:
    """Return a deep copy of ``messages`` with every text field escaped.

    Accepts OpenAI Chat Completions messages (string content, content-part lists, ``name``,
    ``tool_calls[].function.arguments`` through the JSON variant, ``reasoning_content``),
    Responses API input items (``message`` with ``input_text``/``output_text`` parts,
    ``function_call.arguments``, ``function_call_output.output``, ``custom_tool_call.input``,
    ``reasoning`` summaries) and Anthropic Messages content blocks (``text``, ``tool_use`` name
    and input, ``tool_result`` content, ``thinking``, text ``document`` sources), in any mix.
    By default every role is escaped, because servers reject a reserved spelling wherever it
    appears; ``roles`` limits escaping to those roles (a Responses ``function_call_output``
    counts as ``tool``, a ``function_call`` as ``assistant``). The input is never mutated.
    Shapes it does not know are copied unchanged and counted in the log event, never dropped.
    A message nested deeper than ``guard._depth.MAX_DEPTH`` levels raises
    :class:`guard.errors.NestingError` (a ``ValueError``).
    """
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
        raise TypeError(
            f"escape_messages() expects a list of messages, got {type(messages).__name__}"
        )
    for msg in messages:
        check_depth(msg, "escape_messages(): a message")
    escaper = _resolve(dialect)
    wanted = None if roles is None else frozenset(roles)
    walker = _Walker(escaper)
    out: list[Any] = []
    for msg in messages:
        if wanted is not None and _role_of(msg) not in wanted:
            out.append(copy.deepcopy(msg))
            continue
        out.append(walker.message(copy.deepcopy(msg)))
    if walker.unknown:
        _log.warning("guard.escape.unknown_shape", dialect=escaper.name, parts=walker.unknown)
    if walker.changed:
        _log.debug(
            "guard.escape_messages",
            dialect=escaper.name,
            messages=len(out),
            fields_changed=walker.changed,
        )
    return out


def escape_tools(tools: Sequence[Any], dialect: str | Dialect = "harmony") -> list[Any]:
    """Return a deep copy of tool definitions (Chat Completions or Responses shape) with every
    string in them escaped: names, descriptions and JSON-schema strings and keys. A tool
    nested deeper than ``guard._depth.MAX_DEPTH`` levels raises
    :class:`guard.errors.NestingError`."""
    if isinstance(tools, str | bytes) or not isinstance(tools, Sequence):
        raise TypeError(f"escape_tools() expects a list of tools, got {type(tools).__name__}")
    for tool in tools:
        check_depth(tool, "escape_tools(): a tool")
    escaper = _resolve(dialect)
    walker = _Walker(escaper)
    out = [walker.value(copy.deepcopy(t)) for t in tools]
    if walker.changed:
        _log.debug("guard.escape_tools", dialect=escaper.name, fields_changed=walker.changed)
    return out
