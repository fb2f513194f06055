"""A fast path for OpenAI chat JSON lines: typed decoding, and only the texts that matter.

Most records of an audit are clean: none of their texts can yield a hit. For those the report
holds nothing but their count and their messages, so the generic path (decode each line into
dicts, hand every text to the collector as a part, prefilter the parts) does work that shows
nowhere. This path decodes a line with msgspec straight into :class:`_Record` (only the fields
the ``openai`` adapter reads; unknown fields are skipped without building anything), gathers
the record's texts per surface list (:data:`_SURFACES`), and prefilters the texts of the whole
chunk at once. A
record none of whose texts is a candidate is counted and left out. A record with candidate
texts hands the collector its parts from the typed record (:func:`add_parts`): the candidate
parts, and every part of a record with a candidate ``text`` part (the reasoning context of an
answer reads the record's thinking and input parts). Every other line (one that does not fit
the typed shape, a record that declares tools, a record whose candidates cannot be ordered, see
below) goes through the generic path as before.

The report is the same as the generic path's:

* the line decodes to a record whose every read field has the type the adapter takes without
  an error entry (a string or null; a message list; known roles), and its bytes are valid
  UTF-8 (msgspec does not check the strings of fields it skips);
* the record declares no tools and the audit has none (``tools=``), so the generic path would
  prefilter its parts without declared tools too;
* the texts are those the adapter would hand over as parts, each prefiltered on its own
  surfaces, and the prefilter answers per text (:meth:`guard.gate.Prefilter.candidates`), so a
  text that is no candidate here yields no hit there (the collector's scan group may still
  judge it, and find nothing), and a part that is never judged has no finding; leaving it out
  changes nothing but the context of an answer, which is kept whole;
* the parts come in the generic path's order, except within one assistant message: the generic
  path reads its fields in the order of the JSON object's keys, which a typed record does not
  keep. Order shows only among judged parts (findings are sorted by it), so a record with
  candidates under two different keys of one assistant message takes the generic path.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from operator import itemgetter
from typing import Any

import msgspec

from guard.audit._engine import Collector
from guard.audit._format_parts import TEXT, THINKING, TOOL_ARG, TOOL_NAME, TOOL_RESULT, USER
from guard.gate import prefilter
from guard.models import Surface

__all__ = ["Planned", "add_parts", "split_lines", "typed_records", "valid_utf8"]


# gc=False: a decoded record is a tree (no cycles), and a chunk's records stay alive until its
# plan is made; untracked, they cost the garbage collector nothing
class _Call(msgspec.Struct, gc=False):
    name: str | None = None
    arguments: str | None = None


class _ToolCall(msgspec.Struct, gc=False):
    function: _Call


class _Message(msgspec.Struct, gc=False):
    role: str
    content: str | None = None
    refusal: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    thinking: str | None = None
    tool_calls: list[_ToolCall] | None = None
    function_call: _Call | None = None


class _Record(msgspec.Struct, gc=False):
    messages: list[_Message]
    tools: Any = None


_decode = msgspec.json.Decoder(_Record).decode
_INPUT_ROLES = frozenset({"user", "system", "developer", "tool", "function"})
_USER_ROLES = frozenset({"user", "system", "developer"})
#: The chunk's texts are prefiltered in four lists, each on its own surfaces: answers (text),
#: the other model output (thinking, tool_arg), inputs (user, tool_result) and tool names. The
#: collector judges the first two as one scan group, whose prefilter adds the triggers of the
#: signals of answers only (V's opening, J's ending literals) to thinking and tool arguments:
#: apart, a reasoning text that opens like an answer in the reasoning voice ("The user ...") is
#: no candidate. A text that is no candidate on its own surfaces cannot yield a hit there.
_SURFACES: tuple[frozenset[Surface], ...] = (
    frozenset({Surface.TEXT}),
    frozenset({Surface.THINKING, Surface.TOOL_ARG}),
    frozenset({Surface.USER, Surface.TOOL_RESULT}),
    frozenset({Surface.TOOL_NAME}),
)
_ANSWER, _OUT, _INP, _NAMES = 0, 1, 2, 3

#: A part of a typed record, without its sequence number and line: (scan group, surface,
#: text, message, role, part, tool_name, the message's field it comes from).
_Piece = tuple[int, str, str, int, str, str, str | None, str]
#: What a record with candidates hands the collector: (messages, pieces to add).
Planned = tuple[int, list[_Piece]]


def _pieces(record: _Record) -> Iterator[_Piece]:
    """The parts of a typed record, in the order :func:`typed_records` gathers its texts (the
    generic adapter's, for an assistant message whose fields come in this order)."""
    for i, m in enumerate(record.messages):
        role = m.role
        if role != "assistant":
            surface = USER if role in _USER_ROLES else TOOL_RESULT
            if m.content is not None:
                yield _INP, surface, m.content, i, role, "content", None, "content"
            continue
        if m.content is not None:
            yield _ANSWER, TEXT, m.content, i, role, "content", None, "content"
        if m.reasoning_content is not None:
            yield (
                _OUT,
                THINKING,
                m.reasoning_content,
                i,
                role,
                "reasoning_content",
                None,
                "reasoning_content",
            )
        if m.tool_calls is not None:
            for k, call in enumerate(m.tool_calls):
                yield from _call(call.function, i, f"tool_calls[{k}].function", "tool_calls")
        if m.refusal is not None:
            yield _ANSWER, TEXT, m.refusal, i, role, "refusal", None, "refusal"
        if m.reasoning is not None:
            yield _OUT, THINKING, m.reasoning, i, role, "reasoning", None, "reasoning"
        if m.thinking is not None:
            yield _OUT, THINKING, m.thinking, i, role, "thinking", None, "thinking"
        if m.function_call is not None:
            yield from _call(m.function_call, i, "function_call", "function_call")


def _call(f: _Call, i: int, where: str, key: str) -> Iterator[_Piece]:
    if f.name is not None:
        yield _NAMES, TOOL_NAME, f.name, i, "assistant", f"{where}.name", None, key
    if f.arguments is not None:
        yield _OUT, TOOL_ARG, f.arguments, i, "assistant", f"{where}.arguments", f.name, key


def _plan(
    record: _Record, starts: tuple[int, int, int, int], chosen: list[set[int]]
) -> Planned | None:
    """The parts of a record with candidates to hand over (its texts start at ``starts`` in
    the chunk's lists, ``chosen`` holds the candidates' indices there), or ``None`` when two
    of them come from different fields of one assistant message (their order is unknown)."""
    at = list(starts)
    text = False
    fields: dict[int, str] = {}  # message -> the field its candidates come from
    everything = list(_pieces(record))
    picked: list[bool] = []
    for piece in everything:
        group = piece[0]
        hit = at[group] in chosen[group]
        at[group] += 1
        picked.append(hit)
        if not hit:
            continue
        if piece[7] == "content" and piece[4] != "assistant":
            continue  # an input message has one field
        if fields.setdefault(piece[3], piece[7]) != piece[7]:
            return None
        text = text or piece[1] == TEXT
    pieces = [p for p, hit in zip(everything, picked, strict=True) if hit or text]
    return len(record.messages), pieces


def add_parts(planned: Planned, c: Collector, line: int) -> int:
    """Hand the collector the parts :func:`typed_records` planned for the record at ``line``;
    its message count."""
    messages, pieces = planned
    targets = (c.out, c.out, c.inp, c.names)
    seq = c.seq
    for group, surface, text, i, role, name, tool_name, _key in pieces:
        targets[group].append((next(seq), surface, text, line, i, role, name, tool_name))
    return messages


#: Lines found one ``bytes.find`` at a time before :func:`split_lines` looks at their length.
_PROBE_LINES = 256
#: Lines shorter than this on average are split by ``bytes.split`` (a Python loop would cost
#: more per line than ``bytes.split`` per byte).
_SHORT_LINE = 512


def split_lines(data: bytes) -> list[bytes]:
    """``data.split(b"\\n")``, faster for long lines: ``bytes.split`` looks at every byte in
    turn, ``bytes.find`` of one byte runs ``memchr``. A chunk whose first lines are short is
    split by ``bytes.split`` from there on."""
    lines: list[bytes] = []
    find = data.find
    pos = 0
    probing = _PROBE_LINES
    while True:
        end = find(b"\n", pos)
        if end < 0:
            lines.append(data[pos:])
            return lines
        lines.append(data[pos:end])
        pos = end + 1
        if probing:
            probing -= 1
            if not probing and pos < _PROBE_LINES * _SHORT_LINE:
                lines += data[pos:].split(b"\n")
                return lines


def _typed(raw: bytes, cap: int, utf8: bool = False) -> _Record | None:
    """The record of one line when it decodes as a typed chat record without tools
    (``utf8``: the line is known to be valid UTF-8)."""
    if len(raw) > cap or not raw:
        return None
    try:
        if not utf8 and not raw.isascii():
            raw.decode("utf-8")
        record = _decode(raw)
    except (UnicodeDecodeError, msgspec.DecodeError):
        return None
    return None if record.tools is not None else record


def valid_utf8(data: bytes) -> bool:
    """Whether ``data`` is valid UTF-8. A line break byte never falls inside a character's
    bytes, so then every line of it is too: checked once for a chunk, not once per line."""
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _assistant_extras(m: _Message, answers: list[str], out: list[str], names: list[str]) -> None:
    """An assistant message's texts after its content, in the order of :func:`_pieces`."""
    if m.reasoning_content is not None:
        out.append(m.reasoning_content)
    if m.tool_calls is not None:
        for call in m.tool_calls:
            f = call.function
            if f.name is not None:
                names.append(f.name)
            if f.arguments is not None:
                out.append(f.arguments)
    if m.refusal is not None:
        answers.append(m.refusal)
    if m.reasoning is not None:
        out.append(m.reasoning)
    if m.thinking is not None:
        out.append(m.thinking)
    if m.function_call is not None:
        f = m.function_call
        if f.name is not None:
            names.append(f.name)
        if f.arguments is not None:
            out.append(f.arguments)


def _record_texts(
    record: _Record, answers: list[str], out: list[str], inp: list[str], names: list[str]
) -> bool:
    """Append a record's texts in the order of :func:`_pieces`; False (nothing appended) when
    a message has an unknown role (an error entry: the generic path reports it)."""
    a, o, i, n = len(answers), len(out), len(inp), len(names)
    for m in record.messages:
        role = m.role
        if role == "assistant":
            # the usual assistant message holds an answer and nothing else: read here, the
            # other fields only when one is there
            if m.content is not None:
                answers.append(m.content)
            if (
                m.reasoning_content is not None
                or m.tool_calls is not None
                or m.refusal is not None
                or m.reasoning is not None
                or m.thinking is not None
                or m.function_call is not None
            ):
                _assistant_extras(m, answers, out, names)
        elif role in _INPUT_ROLES:
            if m.content is not None:
                inp.append(m.content)
        else:
            del answers[a:], out[o:], inp[i:], names[n:]
            return False
    return True


def typed_records(
    lines: list[bytes], cap: int, c: Collector, *, utf8: bool = False
) -> dict[int, int | Planned]:
    """The lines of an ``openai`` chunk (numbered from 1) that this path takes, certainly (see
    the module docstring): a clean record's message count, or what a record with candidates
    hands the collector (:func:`add_parts`). The other lines are left to the generic path.
    ``utf8``: the chunk is known to be valid UTF-8 (:func:`valid_utf8`)."""
    if c.tools is not None:
        return {}
    filters = [prefilter(c.dialect, g, c.policy.disabled, tools_known=False) for g in _SURFACES]
    if any(f is None for f in filters):
        return {}
    texts: tuple[list[str], list[str], list[str], list[str]] = ([], [], [], [])
    # (line number, record), and where its texts end in answers, out, inp and names
    records: list[tuple[int, _Record]] = []
    ends: list[tuple[int, int, int, int]] = []
    answers, out, inp, names = texts
    for number, raw in enumerate(lines, 1):
        record = _typed(raw, cap, utf8)
        if record is not None and _record_texts(record, answers, out, inp, names):
            records.append((number, record))
            ends.append((len(answers), len(out), len(inp), len(names)))
    taken: dict[int, int | Planned] = {r[0]: len(r[1].messages) for r in records}
    chosen: list[set[int]] = []
    hit: set[int] = set()  # the records with candidates, by index in records
    for group, (group_texts, filt) in enumerate(zip(texts, filters, strict=True)):
        assert filt is not None
        found = filt.candidates(group_texts) if group_texts else []
        chosen.append(set(found))
        last = list(map(itemgetter(group), ends))
        # the record holding text k: the first whose texts end after it
        hit.update(bisect.bisect_right(last, k) for k in found)
    for r in hit:
        number, record = records[r]
        starts = ends[r - 1] if r else (0, 0, 0, 0)
        planned = _plan(record, starts, chosen)
        if planned is None:
            del taken[number]
        else:
            taken[number] = planned
    return taken
