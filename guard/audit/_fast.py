"""A fast path for the clean records of OpenAI chat JSON lines.

Most records of an audit are clean: none of their texts can yield a hit. For those the report
holds nothing but their count and their messages, so the generic path (decode each line into
dicts, hand every text to the collector as a part, prefilter the parts) does work that shows
nowhere. This path decodes a line with msgspec straight into :class:`_Record` (only the fields
the ``openai`` adapter reads; unknown fields are skipped without building anything), gathers
the record's texts per scan group, and prefilters the texts of the whole chunk at once. A
record none of whose texts is a candidate is counted and left out; every other line (one that
does not fit the typed shape, a record that declares tools, a record with a candidate text)
goes through the generic path as before.

The report is the same as the generic path's, because a record is left out only when the
generic path would find nothing in it and report nothing about it:

* the line decodes to a record whose every read field has the type the adapter takes without
  an error entry (a string or null; a message list; known roles), and its bytes are valid
  UTF-8 (msgspec does not check the strings of fields it skips);
* the record declares no tools and the audit has none (``tools=``), so the generic path would
  prefilter its parts without declared tools too;
* the texts are those the adapter would hand over as parts, on the same scan groups, and the
  prefilter answers per text (:meth:`guard.gate.Prefilter.candidates`), so a text that is no
  candidate here is none there, and a record whose parts are never judged has no finding.
"""

from __future__ import annotations

import bisect
from typing import Any

import msgspec

from guard.audit._engine import _GROUPS, Collector
from guard.gate import prefilter

__all__ = ["clean_records"]


class _Call(msgspec.Struct):
    name: str | None = None
    arguments: str | None = None


class _ToolCall(msgspec.Struct):
    function: _Call


class _Message(msgspec.Struct):
    role: str
    content: str | None = None
    refusal: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    thinking: str | None = None
    tool_calls: list[_ToolCall] | None = None
    function_call: _Call | None = None


class _Record(msgspec.Struct):
    messages: list[_Message]
    tools: Any = None


_decode = msgspec.json.Decoder(_Record).decode
_INPUT_ROLES = frozenset({"user", "system", "developer", "tool", "function"})


def clean_records(lines: list[bytes], cap: int, c: Collector) -> dict[int, int]:
    """``{line number: messages}`` (numbered from 1) of the lines of an ``openai`` chunk that
    are clean records, certainly (see the module docstring); the other lines are left to the
    generic path."""
    if c.tools is not None:
        return {}
    filters = [prefilter(c.dialect, g, c.policy.disabled, tools_known=False) for g in _GROUPS]
    if any(f is None for f in filters):
        return {}
    out: list[str] = []
    inp: list[str] = []
    names: list[str] = []
    # (line number, messages, where its texts end in out, inp and names)
    records: list[tuple[int, int, int, int, int]] = []
    for number, raw in enumerate(lines, 1):
        if len(raw) > cap or not raw:
            continue
        try:
            if not raw.isascii():
                raw.decode("utf-8")
            record = _decode(raw)
        except (UnicodeDecodeError, msgspec.DecodeError):
            continue
        if record.tools is not None:
            continue
        o, i, n = len(out), len(inp), len(names)
        for m in record.messages:
            role = m.role
            if role == "assistant":
                if m.content is not None:
                    out.append(m.content)
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
                    out.append(m.refusal)
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
            elif role in _INPUT_ROLES:
                if m.content is not None:
                    inp.append(m.content)
            else:  # an unknown role is an error entry: the generic path reports it
                del out[o:], inp[i:], names[n:]
                break
        else:
            records.append((number, len(record.messages), len(out), len(inp), len(names)))
    clean = {number: messages for number, messages, *_ in records}
    for group, (texts, filt) in enumerate(zip((out, inp, names), filters, strict=True)):
        assert filt is not None
        ends = [r[2 + group] for r in records]
        for k in filt.candidates(texts) if texts else ():
            # the record holding text k: the first whose texts end after it
            clean.pop(records[bisect.bisect_right(ends, k)][0], None)
    return clean
