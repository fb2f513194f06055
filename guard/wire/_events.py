"""Streamed answers, deny by default: every string the model wrote in an SSE event is judged.

:class:`EventJudge` reads one parsed event (a chat chunk, a Responses event or a Messages
event) before the protocol's stream engine sees it, and judges every string the engine does not
read: unknown event types and shapes, unknown delta fields (``refusal``, legacy
``function_call``, ``audio.transcript``...), text that only appears in ``.done`` events or in
``response.completed``, Anthropic ``message_start`` pre-filled ``content``, citations... The
fields of :data:`STREAM_EXEMPT_KEYS` (ids, enums, opaque data) are skipped while their value
looks like one (letters, digits and ``_.:/+=@,-`` and spaces); any other value there is judged,
and a list or object there is walked (but a choice's ``logprobs``; :mod:`guard.wire._exempt`).

How a string is judged: each string's place (the event type, its output/choice/block index and
its path in the event) keeps the text it carried before; the string is judged as text with the
last :data:`WINDOW` characters of that text before it, so a spelling split over the events of
one field is found in the event that completes it. In a chat choice's delta (fields SDKs join,
such as ``refusal``), the tail that may still begin a spelling (``<|sta``) is held back as the
stream engine holds the text it reads: it goes out before the field's next string, in the
choice's finishing chunk, or in a chunk of its own before the stream ends.

A string that repeats the text of a surface the engine already judged (a ``.done`` event's
``text`` equal to its deltas, a call's ``arguments``) is not judged again; one that differs is
judged whole. A string that repeats the last one at its place (a constant field of every chunk)
is judged once, but in a chat choice's delta field, whose strings SDKs join: there each string
is more of the text (``"l"`` then ``"l"`` of ``<|call|>``).

A leaking string is cut at the verdict's cut (what came before it in earlier events has gone
out already; a cut before this event's string drops all of it) and the answer ends there: the
one choice the string belongs to in a chat stream, the whole stream otherwise. With
``on_leak="abort"`` the string is emptied instead, with ``"report"`` the leak is only recorded.

The object is sans-IO: :meth:`EventJudge.judge` takes one event and returns :class:`Judged`.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from guard._detect import detect
from guard.dialects import Dialect, get_dialect
from guard.gate import Policy, StreamPlan, bracket_hold, check_policy, stream_plan
from guard.models import Surface, Verdict
from guard.wire._event_paths import (
    _EXEMPT,
    _delta_field,
    _digest,
    _judged,
    _name,
    _Path,
    _put,
    _set,
    _unread_of_block,
    _usual_delta,
    _walk,
)
from guard.wire._exempt import STREAM_EXEMPT_KEYS, skipped

__all__ = ["STREAM_EXEMPT_KEYS", "WINDOW", "EventJudge", "Judged", "UnreadableEvent"]

#: how many characters of a place's earlier text a new string is judged with
WINDOW = 512
#: how much of a chat delta field's end may be held back (longer than any spelling)
_HOLD_SPAN = 64
#: places (and judged surfaces) remembered; past it the oldest are forgotten (bounded memory
#: against a stream of ever new indexes)
MAX_PLACES = 4096


#: Responses lifecycle events: only ``response.output`` holds model text (the rest of the
#: response object echoes the request)
_LIFECYCLE = frozenset(
    {
        "response.created",
        "response.in_progress",
        "response.queued",
        "response.completed",
        "response.incomplete",
        "response.failed",
    }
)
#: Responses delta events the engine reads (their ``delta``)
_RESPONSE_DELTAS = frozenset(
    {
        "response.output_text.delta",
        "response.refusal.delta",
        "response.reasoning_text.delta",
        "response.reasoning_summary_text.delta",
        "response.function_call_arguments.delta",
        "response.custom_tool_call_input.delta",
    }
)
_CALL_ITEMS = ("function_call", "custom_tool_call")
#: the fields of a quiet chat chunk's choice and delta (see :meth:`EventJudge.quiet_chat`)
_QUIET_CHOICE = frozenset({"index", "delta", "finish_reason", "logprobs"})
_QUIET_DELTA = frozenset({"content", "reasoning_content"})
_SCALARS = (str, int, float, bool, type(None))
_MISSING = object()


class UnreadableEvent(ValueError):
    """An upstream event in a shape the stream engine cannot read (the message says where):
    the stream ends with an error event, nothing of it relayed unseen."""


@dataclass
class Judged:
    """What :meth:`EventJudge.judge` made of one event.

    ``item``: the event to hand on (the same object when nothing was cut, else a copy with
    each leaking string cut; an aborting leak empties it). ``stop``: the whole answer ends
    after it. ``choices``: chat choices that end after it (their ``index``). ``aborted``:
    the leak was an aborting one.
    """

    item: Any
    stop: bool = False
    choices: frozenset[int] = frozenset()
    aborted: bool = False
    #: ``item`` is the judge's own copy (the upstream's event is never changed)
    copied: bool = False


class EventJudge:
    """Judges the strings of one stream's events that the protocol's engine does not read;
    see the module docstring. ``kind``: ``chat``, ``responses`` or ``messages``."""

    def __init__(
        self, kind: str, dialect: Dialect | str, policy: Policy | None, on_leak: str
    ) -> None:
        if kind not in ("chat", "responses", "messages"):
            raise ValueError(f"EventJudge kind must be chat, responses or messages, got {kind!r}")
        self.kind = kind
        self.dialect = dialect
        self.policy = policy
        self.on_leak = on_leak
        #: leaking verdicts, each named by its place (``part``)
        self.verdicts: list[Verdict] = []
        #: places cut (``part`` names)
        self.cut: list[str] = []
        #: the earlier text of each place (its last WINDOW characters) and its last string's
        #: digest
        self._history: dict[_Path, str] = {}
        self._last: dict[_Path, bytes] = {}
        #: Responses: the length and running digest of each surface the engine judged (deltas,
        #: names), to know a ``.done`` string that repeats one; the surfaces by length
        self._judged: dict[_Path, tuple[int, Any]] = {}
        self._by_length: dict[int, set[_Path]] = {}
        #: chat: the top-level fields (all scalars) of the last chunk judged whole
        self._top: dict[str, Any] | None = None
        #: chat: the tail of a choice's delta field held back because it may begin a spelling
        #: (place -> (choice index, the field's path in the choice, the held text)); it goes
        #: out before the field's next string, in the choice's finishing chunk, or at the end
        self._held: dict[_Path, tuple[int, _Path, str]] = {}
        self._plan: StreamPlan | None = None

    # --- one event ---------------------------------------------------------------------------

    def judge(self, event: Any) -> Judged:
        """Judge one parsed event (a dict; anything else is handed on as it is)."""
        if type(event) is not dict:
            return Judged(event)
        if self.kind == "chat":
            return self._chat(event)
        found = self._responses(event) if self.kind == "responses" else self._messages(event)
        return self._apply(event, found)

    def quiet_chat(self, item: Any) -> bool:
        """Whether the chat chunk ``item`` holds nothing to judge and nothing the engine cannot
        read: its top-level fields those of the last chunk judged, one unfinished choice with
        an integer index, no logprobs, and a delta of ``content``/``reasoning_content``
        strings only. Most chunks are such (this runs once per chunk: keep it lean)."""
        top = self._top
        if top is None or type(item) is not dict or len(item) != len(top) + 1:
            return False
        choices = item.get("choices")
        if type(choices) is not list or len(choices) != 1:
            return False
        choice = choices[0]
        if (
            type(choice) is not dict
            or not choice.keys() <= _QUIET_CHOICE
            or type(choice.get("index", 0)) is not int
            or choice.get("finish_reason") is not None
            or choice.get("logprobs") is not None
        ):
            return False
        delta = choice.get("delta")
        if type(delta) is not dict or not delta.keys() <= _QUIET_DELTA:
            return False
        for value in delta.values():
            if value is not None and type(value) is not str:
                return False
        for key, value in item.items():
            if key != "choices" and top.get(key, _MISSING) != value:
                return False
        return True

    def _chat(self, item: dict[str, Any]) -> Judged:
        top = {k: v for k, v in item.items() if k != "choices"}
        if all(type(v) in _SCALARS for v in top.values()):
            self._top = top  # judged below: a chunk with the same ones is quiet
        found: list[tuple[_Path, _Path, str, int | None]] = []
        for key, value in item.items():
            if key == "choices" and type(value) is list:
                for i, choice in enumerate(value):
                    if type(choice) is not dict:
                        continue
                    index = choice.get("index")
                    index = index if type(index) is int else 0
                    for path, text in self._chat_choice(choice):
                        found.append(((key, i, *path), ("choices", index, *path), text, index))
            elif type(value) is str:
                if value and _judged(key, value):
                    found.append(((key,), (key,), value, None))
            elif (type(value) is dict or type(value) is list) and not skipped(key, value, _EXEMPT):
                for path, text in _walk(value, (key,)):
                    found.append((path, path, text, None))
        if not found:
            judged = Judged(item)
        else:
            judged = self._apply(item, [(p, ("chat", *place), t, c) for p, place, t, c in found])
        if self._held:
            self._release_finished(judged)
        return judged

    def _release_finished(self, judged: Judged) -> None:
        """Put the held tails of the choices this chunk finishes into its choices' deltas."""
        choices = judged.item.get("choices") if type(judged.item) is dict else None
        if type(choices) is not list:
            return
        for i, choice in enumerate(choices):
            if type(choice) is not dict or choice.get("finish_reason") is None:
                continue
            index = choice.get("index")
            index = index if type(index) is int else 0
            if index in judged.choices:
                continue  # a choice ended on a leak: what it held is dropped with the rest
            for place, (held_index, field, text) in list(self._held.items()):
                if held_index != index:
                    continue
                del self._held[place]
                if not self._ends_clean(place, index, field, text):
                    judged.choices = judged.choices | {index}
                    continue
                if not judged.copied:
                    judged.item = copy.deepcopy(judged.item)
                    judged.copied = True
                _put(judged.item["choices"][i], field, text)

    def release(self) -> list[dict[str, Any]]:
        """Chat: at the end of the stream, chunks carrying what is still held (one per
        choice), in the shape of the last chunk judged."""
        by_choice: dict[int, dict[str, Any]] = {}
        for place, (held_index, field, text) in self._held.items():
            if not self._ends_clean(place, held_index, field, text):
                continue
            choice = by_choice.setdefault(held_index, {"index": held_index, "delta": {}})
            _put(choice, field, text)
        self._held.clear()
        top = dict(self._top or {})
        return [{**top, "choices": [choice]} for _, choice in sorted(by_choice.items())]

    @staticmethod
    def _chat_choice(choice: dict[str, Any]) -> Iterator[tuple[_Path, str]]:
        """The strings of one chunk choice the engine does not read."""
        for key, value in choice.items():
            if key == "delta" and type(value) is dict:
                yield from EventJudge._chat_delta(value)
            elif type(value) is str:
                if value and _judged(key, value):
                    yield (key,), value
            elif (type(value) is dict or type(value) is list) and not skipped(key, value, _EXEMPT):
                yield from _walk(value, (key,))

    @staticmethod
    def _chat_delta(delta: dict[str, Any]) -> Iterator[tuple[_Path, str]]:
        for key, value in delta.items():
            if key == "content" or key == "reasoning_content":
                if value is None or type(value) is str:
                    continue  # the engine reads them
            elif key == "reasoning" and delta.get("reasoning_content") is None:
                if value is None or type(value) is str:
                    continue  # read when reasoning_content is absent
            elif key == "tool_calls" and type(value) is list:
                for k, call in enumerate(value):
                    if type(call) is not dict:
                        yield from _walk([call], ("delta", "tool_calls", k))
                        continue
                    for ckey, cvalue in call.items():
                        if ckey == "function" and type(cvalue) is dict:
                            for fkey, fvalue in cvalue.items():
                                if fkey in ("name", "arguments") and (
                                    fvalue is None or type(fvalue) is str
                                ):
                                    continue
                                yield from _walk(
                                    {fkey: fvalue}, ("delta", "tool_calls", k, "function")
                                )
                        else:
                            yield from _walk({ckey: cvalue}, ("delta", "tool_calls", k))
                continue
            yield from _walk({key: value}, ("delta",))

    def _responses(self, event: dict[str, Any]) -> list[tuple[_Path, _Path, str, int | None]]:
        kind = event.get("type")
        out = event.get("output_index")
        part = event.get("content_index", event.get("summary_index"))
        if kind in _RESPONSE_DELTAS:
            delta = event.get("delta")
            if type(delta) is str:
                self._note((kind, out, part), delta)
            place = ("responses", kind, out, part)
            # the engine may cut the delta: a copy of it beside it is judged all the same
            found: list[tuple[_Path, _Path, str, int | None]] = []
            for key, value in event.items():
                if type(value) is str:
                    if key != "delta" and value and _judged(key, value):
                        found.append(((key,), (*place, key), value, None))
                elif (type(value) is dict or type(value) is list) and not skipped(
                    key, value, _EXEMPT
                ):
                    found += [(p, (*place, *p), t, None) for p, t in _walk(value, (key,))]
            return found
        elif kind in _LIFECYCLE:
            response = event.get("response")
            output = response.get("output") if type(response) is dict else None
            strings = list(_walk(output, ("response", "output")))
        else:
            strings = list(_walk(event, ()))
            if kind == "response.output_item.added":
                item = event.get("item")
                if type(item) is dict and item.get("type") in _CALL_ITEMS:
                    name = item.get("name")
                    if type(name) is str:
                        self._note(("name", out), name)
                        strings = [(p, t) for p, t in strings if p != ("item", "name")]
        place = ("responses", kind, out, part)
        return [(p, (*place, *p), t, None) for p, t in strings if not self._repeats(t)]

    def _messages(self, event: dict[str, Any]) -> list[tuple[_Path, _Path, str, int | None]]:
        kind = event.get("type")
        place = ("messages", kind, event.get("index"))
        if kind == "content_block_delta":
            body = event.get("delta")
            field_name = _delta_field(body)
            if field_name is not None and type(body.get(field_name)) is str:  # type: ignore[union-attr]
                return _usual_delta(event, body, field_name, place)  # type: ignore[arg-type]
            skip = {("delta", field_name)} if field_name is not None else set()
            strings = [(p, t) for p, t in _walk(event, ()) if p not in skip]
        elif kind == "content_block_start":
            strings = _unread_of_block(event)
        else:
            strings = list(_walk(event, ()))
        return [(p, (*place, *p), t, None) for p, t in strings]

    # --- judging -----------------------------------------------------------------------------

    def _note(self, key: _Path, text: str) -> None:
        """Text the engine judges joins the surface ``key``."""
        entry = self._judged.pop(key, None)
        if entry is None:
            length, running = 0, hashlib.blake2b(digest_size=16)
            if len(self._judged) >= MAX_PLACES:
                old = next(iter(self._judged))
                self._by_length.get(self._judged.pop(old)[0], set()).discard(old)
        else:
            length, running = entry
            self._by_length.get(length, set()).discard(key)
        running.update(text.encode("utf-8", "surrogatepass"))
        length += len(text)
        self._judged[key] = (length, running)
        self._by_length.setdefault(length, set()).add(key)

    def _repeats(self, text: str) -> bool:
        """Whether ``text`` is the whole text of a surface the engine judged."""
        keys = self._by_length.get(len(text))
        if not keys:
            return False
        digest = _digest(text)
        return any(self._judged[key][1].digest() == digest for key in keys)

    def _apply(
        self,
        event: dict[str, Any],
        found: list[tuple[_Path, _Path, str, int | None]],
    ) -> Judged:
        cuts: list[tuple[_Path, str]] = []
        result = Judged(event)
        for path, place, text, choice in found:
            digest = _digest(text)
            if self._last.get(place) == digest and not _joined_delta(path, choice):
                continue  # a constant field: judged when it first came
            before = self._history.pop(place, "")
            self._last.pop(place, None)
            if len(self._history) >= MAX_PLACES:
                old = next(iter(self._history))
                del self._history[old]
                self._last.pop(old, None)
            self._last[place] = digest
            held = self._held.pop(place, None)
            if held is not None:
                text = held[2] + text
            window = before + text
            self._history[place] = window[-WINDOW:]
            # a held tail is not judged yet: as the end of its field it could read as a cut
            # spelling (Q), but the next string may complete it
            at = self._hold_at(path, choice, window, len(before))
            verdict = detect(window[:at], Surface.TEXT, self.dialect, self.policy)
            if not verdict.leak:
                if at is not None and choice is not None:  # (a hold needs a choice)
                    self._held[place] = (choice, path[2:], window[at:])
                    self._history[place] = window[:at][-WINDOW:]
                    cuts.append((path, window[len(before) : at]))
                elif held is not None:
                    cuts.append((path, text))
                continue
            name = _name(path)
            self.verdicts.append(verdict.model_copy(update={"part": name}))
            if self.on_leak == "report":
                continue
            if choice is None:
                result.stop = True
            else:
                result.choices = result.choices | {choice}
            if self.on_leak == "abort":
                result.aborted = True
                cuts.append((path, ""))
                continue
            self.cut.append(name)
            cuts.append((path, text[: max(0, (verdict.cut or 0) - len(before))]))
        if cuts:
            item = copy.deepcopy(event)
            for path, kept in cuts:
                _set(item, path, kept)
            result.item = item
            result.copied = True
        return result

    def _hold_at(self, path: _Path, choice: int | None, window: str, lo: int) -> int | None:
        """Where the held tail of a chat choice's delta field starts: the tail that may still
        begin a spelling (``<|sta``: a proper prefix of one that trips at its own start), held
        back as the stream engine holds the text it reads; ``None`` when nothing of this string
        (``window[lo:]``) is held. ``on_leak="report"`` holds nothing."""
        if self.on_leak == "report" or not _joined_delta(path, choice):
            return None
        plan = self._plan
        if plan is None:
            policy = check_policy(self.policy)
            plan = self._plan = stream_plan(
                get_dialect(self.dialect), Surface.TEXT, policy.disabled
            )
        tail = window[-_HOLD_SPAN:]
        at = max(lo, bracket_hold(plan, tail, len(window)))
        return None if at >= len(window) else at

    def _ends_clean(self, place: _Path, index: int, field: _Path, text: str) -> bool:
        """Judge a held tail as the end of its field (a spelling cut short there is a leak):
        whether it may go out. A leak is recorded, and the tail is dropped."""
        verdict = detect(
            self._history.get(place, "") + text, Surface.TEXT, self.dialect, self.policy
        )
        if not verdict.leak:
            return True
        name = _name(("choices", index, *field))
        self.verdicts.append(verdict.model_copy(update={"part": name}))
        self.cut.append(name)
        return False


def _joined_delta(path: _Path, choice: int | None) -> bool:
    """Whether ``path`` is a chat choice's delta field whose strings SDKs join (not in a list,
    as a tool call's fields are)."""
    if choice is None or len(path) < 4 or path[2] != "delta":
        return False
    return all(type(key) is str for key in path[2:])
