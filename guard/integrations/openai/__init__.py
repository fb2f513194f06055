"""guard around the OpenAI Python SDK: :func:`guard_client`.

``guard_client(client)`` wraps an ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client. Its
``chat.completions.create`` and ``responses.create``:

* escape the outgoing messages / input items, instructions and tool definitions (a transport
  copy: the caller's objects are never mutated);
* for ``stream=True`` return the guarded stream: the same chunk or event types, iteration,
  ``with`` blocks and ``close()`` (which reaches the HTTP response, so the provider stops);
* for a complete response check every surface (text, reasoning, tool names and arguments) and
  apply ``on_leak``: ``truncate`` cuts visible text at the cut and drops a leaking tool call,
  ``abort`` raises :class:`guard.LeakAborted`, ``recover`` acts as ``truncate`` and records the
  policy's recovery outcome, ``report`` changes nothing. A forged tool result is always cut,
  never raised. What was found is in :func:`guard_result` (streams carry it as attributes).

Everything else on the client passes through unchanged (``models.list()``, ``with_raw_response``,
the ``.stream()`` helpers, ...): only ``create`` is guarded.

This module imports no SDK: the request escaping and response checks work on plain JSON too, and
``guard serve`` uses them.
"""

from __future__ import annotations

import copy
import inspect
import weakref
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Generator,
    Iterable,
    Iterator,
    Mapping,
)
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, cast

from guard._detect import detect
from guard._escape import escape, escape_messages, escape_tools
from guard._log import get_logger
from guard.dialects import Dialect, get_dialect
from guard.gate import DEFAULT_POLICY, Policy
from guard.models import Outcome, Surface, Verdict
from guard.stream import AsyncGuardedStream, GuardedStream, LeakAborted, OnLeak, guard_stream

__all__ = [
    "AsyncGuardedChatStream",
    "AsyncGuardedResponseStream",
    "GuardResult",
    "GuardedChatStream",
    "GuardedClient",
    "GuardedResponseStream",
    "escape_chat_request",
    "escape_responses_request",
    "guard_chat_completion",
    "guard_client",
    "guard_response",
    "guard_response_events",
    "guard_result",
]

_log = get_logger("guard.integrations.openai")

_ON_LEAK = ("abort", "truncate", "recover", "report")
AbortMode = Literal["raise", "filter"]
"""What an aborting leak does to a complete response: ``raise`` :class:`LeakAborted` (the
client wrapper) or ``filter``: cut it and mark it ``content_filter`` (the proxy)."""

ClientT = TypeVar("ClientT")


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def _set(obj: Any, key: str, value: Any) -> None:
    if isinstance(obj, dict):
        obj[key] = value
    else:
        setattr(obj, key, value)


@dataclass(frozen=True)
class _Settings:
    dialect: Dialect
    policy: Policy
    on_leak: OnLeak
    escape_inputs: bool = True


def _settings(
    dialect: str | Dialect, policy: Policy | None, on_leak: str, escape_inputs: bool = True
) -> _Settings:
    if on_leak not in _ON_LEAK:
        raise ValueError(f"on_leak must be one of {', '.join(_ON_LEAK)}; got {on_leak!r}")
    if policy is not None and not isinstance(policy, Policy):
        raise TypeError(f"policy must be a guard.Policy or None, got {type(policy).__name__}")
    return _Settings(
        get_dialect(dialect), policy or DEFAULT_POLICY, cast(OnLeak, on_leak), escape_inputs
    )


# ---------------------------------------------------------------------------------------------
# requests: the transport copy


def _plain(value: Any) -> Any:
    """A request value as the SDK would send it (SDK models become dicts)."""
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_unset=True)
    return value


def _items(value: Any) -> list[Any] | None:
    if value is None or isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        return None
    return [_plain(v) for v in value]


def escape_chat_request(
    params: Mapping[str, Any], dialect: str | Dialect = "harmony"
) -> dict[str, Any]:
    """A copy of Chat Completions request parameters with ``messages`` (every role, every text
    field) and ``tools`` / ``functions`` (names, descriptions, schemas) escaped for
    ``dialect``. The input is never mutated."""
    out = dict(params)
    messages = _items(params.get("messages"))
    if messages is not None:
        out["messages"] = escape_messages(messages, dialect)
    for key in ("tools", "functions"):
        tools = _items(params.get(key))
        if tools is not None:
            out[key] = escape_tools(tools, dialect)
    return out


def escape_responses_request(
    params: Mapping[str, Any], dialect: str | Dialect = "harmony"
) -> dict[str, Any]:
    """A copy of Responses request parameters with ``input`` (text or items),
    ``instructions`` and ``tools`` escaped for ``dialect``. The input is never mutated."""
    out = dict(params)
    for key in ("input", "instructions"):
        value = params.get(key)
        if isinstance(value, str):
            out[key] = escape(value, dialect)
        else:
            items = _items(value)
            if items is not None:
                out[key] = escape_messages(items, dialect)
    tools = _items(params.get("tools"))
    if tools is not None:
        out["tools"] = escape_tools(tools, dialect)
    return out


# ---------------------------------------------------------------------------------------------
# complete responses


@dataclass(frozen=True)
class GuardResult:
    """What guard found in one complete response and what it did about it."""

    verdicts: tuple[Verdict, ...] = ()
    forged: bool = False
    #: offset of the cut per part (``content``, ``output[0].content[0]``, ...)
    cut: dict[str, int] = field(default_factory=dict)
    #: parts dropped whole (a tool call whose name or arguments leak)
    dropped: tuple[str, ...] = ()
    chars_dropped: int = 0
    #: the response was cut because of an aborting leak (``AbortMode`` ``filter``)
    aborted: bool = False
    outcomes: tuple[Outcome, ...] = ()

    @property
    def leak(self) -> bool:
        return any(v.leak for v in self.verdicts)

    @property
    def changed(self) -> bool:
        return bool(self.cut or self.dropped)


_RESULTS: dict[int, GuardResult] = {}


def _remember(obj: Any, result: GuardResult) -> None:
    try:
        weakref.finalize(obj, _RESULTS.pop, id(obj), None)
    except TypeError:  # not weak-referenceable (a dict): the caller has the result itself
        return
    _RESULTS[id(obj)] = result


def guard_result(response: Any) -> GuardResult | None:
    """The :class:`GuardResult` of a complete response a guarded client returned (``None`` for
    anything else). Streams carry ``verdicts``, ``forged``, ``cut`` and ``chars_dropped``
    themselves."""
    return _RESULTS.get(id(response))


@dataclass
class _Part:
    """One judged piece of a response, and how to cut or drop it."""

    name: str
    surface: Surface
    text: str
    owner: Any  # the object holding the text
    key: str  # the field holding the text
    tool_name: str | None = None
    container: Any = None  # for a droppable part: the object holding the list ...
    list_key: str = ""  # ... under this field
    element: Any = None  # ... and the element to remove
    choice: Any = None  # chat: the choice the part belongs to


def _chat_parts(completion: Any) -> list[_Part]:
    parts: list[_Part] = []
    for choice in _get(completion, "choices") or ():
        index = _get(choice, "index") or 0
        prefix = "" if index == 0 else f"choices[{index}]."
        message = _get(choice, "message")
        if message is None:
            continue
        content = _get(message, "content")
        if isinstance(content, str):
            parts.append(_Part(prefix + "content", Surface.TEXT, content, message, "content"))
        elif isinstance(content, list):
            for i, item in enumerate(content):
                text = _get(item, "text")
                if isinstance(text, str):
                    parts.append(_Part(f"{prefix}content[{i}]", Surface.TEXT, text, item, "text"))
        for key in ("reasoning_content", "reasoning"):
            value = _get(message, key)
            if isinstance(value, str):
                parts.append(_Part(prefix + key, Surface.THINKING, value, message, key))
        for i, call in enumerate(_get(message, "tool_calls") or ()):
            function = _get(call, "function")
            if function is None:
                continue
            name = _get(function, "name")
            for key, surface in (("name", Surface.TOOL_NAME), ("arguments", Surface.TOOL_ARG)):
                value = _get(function, key)
                if isinstance(value, str):
                    parts.append(
                        _Part(
                            f"{prefix}tool_calls[{i}].function.{key}",
                            surface,
                            value,
                            function,
                            key,
                            tool_name=name if isinstance(name, str) else None,
                            container=message,
                            list_key="tool_calls",
                            element=call,
                        )
                    )
        for part in parts:
            if part.choice is None:
                part.choice = choice
    return parts


def _response_parts(response: Any) -> list[_Part]:
    parts: list[_Part] = []
    for i, item in enumerate(_get(response, "output") or ()):
        kind = _get(item, "type")
        if kind == "message":
            for j, piece in enumerate(_get(item, "content") or ()):
                text = _get(piece, "text")
                if isinstance(text, str):
                    parts.append(
                        _Part(f"output[{i}].content[{j}]", Surface.TEXT, text, piece, "text")
                    )
        elif kind in ("function_call", "custom_tool_call"):
            name = _get(item, "name")
            arg_key = "arguments" if kind == "function_call" else "input"
            for key, surface in (("name", Surface.TOOL_NAME), (arg_key, Surface.TOOL_ARG)):
                value = _get(item, key)
                if isinstance(value, str):
                    parts.append(
                        _Part(
                            f"output[{i}].{key}",
                            surface,
                            value,
                            item,
                            key,
                            tool_name=name if isinstance(name, str) else None,
                            container=response,
                            list_key="output",
                            element=item,
                        )
                    )
        elif kind == "reasoning":
            for key in ("summary", "content"):
                for j, piece in enumerate(_get(item, key) or ()):
                    text = _get(piece, "text")
                    if isinstance(text, str):
                        name = f"output[{i}].{key}[{j}]"
                        parts.append(_Part(name, Surface.THINKING, text, piece, "text"))
    return parts


def _forged(verdict: Verdict) -> bool:
    """The verdict's first tripping hit opens a tool result: a forgery (as in the stream)."""
    tripping = [h for h in verdict.hits if h.trips] or list(verdict.hits)
    if not tripping:
        return False
    first = min(tripping, key=lambda h: h.start)
    return first.code == "H" and "R" in first.signals


@dataclass
class _Plan:
    verdicts: list[Verdict] = field(default_factory=list)
    cuts: dict[str, int] = field(default_factory=dict)
    drops: set[str] = field(default_factory=set)
    forged: bool = False
    aborted: bool = False
    chars_dropped: int = 0
    outcomes: list[Outcome] = field(default_factory=list)


def _plan(parts: list[_Part], settings: _Settings, abort: AbortMode) -> _Plan:
    plan = _Plan()
    for part in parts:
        verdict = detect(
            part.text,
            part.surface,
            settings.dialect,
            settings.policy,
            tool_name=part.tool_name,
        ).model_copy(update={"part": part.name})
        plan.verdicts.append(verdict)
        if not verdict.leak or settings.on_leak == "report":
            continue
        cut = verdict.cut if verdict.cut is not None else 0
        forged = _forged(verdict)
        plan.forged = plan.forged or forged
        if settings.on_leak == "abort" and not forged:
            if abort == "raise":
                _log.warning("guard.openai.leak", part=part.name, cut=cut, action="abort")
                raise LeakAborted(verdict, part.text[cut:])
            plan.aborted = True
        if settings.on_leak == "recover":
            plan.outcomes.append(_recover(part, verdict, settings.policy))
        if part.container is not None:
            plan.drops.add(part.name)
        else:
            plan.cuts[part.name] = cut
            plan.chars_dropped += len(part.text) - cut
        _log.warning(
            "guard.openai.forgery" if forged else "guard.openai.leak",
            part=part.name,
            cut=cut,
            action="drop" if part.container is not None else "cut",
        )
    return plan


def _recover(part: _Part, verdict: Verdict, policy: Policy) -> Outcome:
    from recovery import get_strategy

    strategy = get_strategy(policy.recovery_for(part.surface, part.tool_name))
    return strategy.apply(part.text, verdict)


def _apply(parts: list[_Part], plan: _Plan) -> int:
    """Cut and drop on a private copy's parts; returns the characters dropped with whole calls
    (name and arguments)."""
    doomed = {id(p.element) for p in parts if p.name in plan.drops}
    removed: set[int] = set()
    dropped_chars = 0
    for part in parts:
        if part.name in plan.cuts:
            _set(part.owner, part.key, part.text[: plan.cuts[part.name]])
        if part.element is None or id(part.element) not in doomed:
            continue
        dropped_chars += len(part.text)
        if id(part.element) in removed:
            continue
        removed.add(id(part.element))
        kept = [e for e in _get(part.container, part.list_key) or () if e is not part.element]
        if not kept and part.list_key == "tool_calls":
            _set(part.container, part.list_key, None)  # as the API sends "no calls"
        else:
            _set(part.container, part.list_key, kept)
    return dropped_chars


def _finish_choices(parts: list[_Part], plan: _Plan) -> None:
    for part in parts:
        if part.choice is None or not (part.name in plan.cuts or part.name in plan.drops):
            continue
        if plan.aborted:
            _set(part.choice, "finish_reason", "content_filter")
            continue
        message = _get(part.choice, "message")
        if _get(part.choice, "finish_reason") == "tool_calls" and not _get(message, "tool_calls"):
            _set(part.choice, "finish_reason", "stop")


def _result(plan: _Plan, dropped_chars: int) -> GuardResult:
    return GuardResult(
        verdicts=tuple(plan.verdicts),
        forged=plan.forged,
        cut=dict(plan.cuts),
        dropped=tuple(sorted(plan.drops)),
        chars_dropped=plan.chars_dropped + dropped_chars,
        aborted=plan.aborted,
        outcomes=tuple(plan.outcomes),
    )


def guard_chat_completion(
    completion: Any,
    *,
    dialect: str | Dialect = "harmony",
    policy: Policy | None = None,
    on_leak: OnLeak = "truncate",
    abort: AbortMode = "raise",
) -> tuple[Any, GuardResult]:
    """Check a complete chat completion (dict or SDK object) and apply ``on_leak``.

    Returns the completion to deliver (the same object when nothing changes, otherwise a
    changed deep copy) and the :class:`GuardResult`. Visible text and reasoning are cut at the
    cut; a tool call whose name or arguments leak is dropped (``finish_reason`` becomes
    ``stop`` when no call is left); a forged tool result is cut, never raised.

    Raises:
        LeakAborted: ``on_leak="abort"``, ``abort="raise"`` and a part leaks.
    """
    settings = _settings(dialect, policy, on_leak)
    plan = _plan(_chat_parts(completion), settings, abort)
    if not (plan.cuts or plan.drops):
        return completion, _result(plan, 0)
    out = copy.deepcopy(completion)
    parts = _chat_parts(out)
    dropped = _apply(parts, plan)
    _finish_choices(parts, plan)
    return out, _result(plan, dropped)


def guard_response(
    response: Any,
    *,
    dialect: str | Dialect = "harmony",
    policy: Policy | None = None,
    on_leak: OnLeak = "truncate",
    abort: AbortMode = "raise",
) -> tuple[Any, GuardResult]:
    """Check a complete Responses API response (dict or SDK object) and apply ``on_leak``:
    output text and reasoning are cut at the cut, a leaking ``function_call`` item is dropped,
    a forged tool result is cut. With ``abort="filter"`` an aborting leak marks the response
    ``incomplete`` (reason ``content_filter``)."""
    settings = _settings(dialect, policy, on_leak)
    plan = _plan(_response_parts(response), settings, abort)
    if not (plan.cuts or plan.drops):
        return response, _result(plan, 0)
    out = copy.deepcopy(response)
    dropped = _apply(_response_parts(out), plan)
    if plan.aborted:
        _set(out, "status", "incomplete")
        _set(out, "incomplete_details", {"reason": "content_filter"})
    return out, _result(plan, dropped)


# ---------------------------------------------------------------------------------------------
# Responses API streams: events mapped to chunk shapes the stream middleware reads

_TEXT_EVENTS = {
    "response.output_text.delta": "content",
    "response.refusal.delta": "content",
    "response.reasoning_text.delta": "reasoning_content",
    "response.reasoning_summary_text.delta": "reasoning_content",
}
_CALL_ITEMS = ("function_call", "custom_tool_call")
_CALL_DELTAS = ("response.function_call_arguments.delta", "response.custom_tool_call_input.delta")


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return cast(dict[str, Any], dump(mode="json", by_alias=True, exclude_unset=True))
    return {}


def _with(event: Any, **update: Any) -> Any:
    if isinstance(event, Mapping):
        return {**event, **update}
    return event.model_copy(update=update)


@dataclass
class _ItemState:
    added: Any
    done: Any = None
    text: dict[int, str] = field(default_factory=dict)


class _EventBridge:
    """Turns each Responses event into a chunk-shaped dict for the stream engine (output item
    ``i`` is choice ``i``; a function call is call 0 of its choice and completes with its
    ``output_item.done``) and turns what the engine delivers back into events."""

    def __init__(self) -> None:
        self.serial = 0
        self.pending: dict[int, tuple[Any, dict[str, Any]]] = {}
        self.sdk: bool | None = None
        self.snapshot: Any = None
        self.sequence = -1
        self.items: dict[int, _ItemState] = {}

    def chunk(self, event: Any) -> dict[str, Any]:
        if self.sdk is None:
            self.sdk = not isinstance(event, Mapping)
        self.serial += 1
        kind = _get(event, "type")
        index = _get(event, "output_index")
        index = index if isinstance(index, int) else 0
        delta: dict[str, Any] | None = None
        finish = None
        if kind in _TEXT_EVENTS:
            delta = {_TEXT_EVENTS[kind]: _get(event, "delta")}
        elif kind in _CALL_DELTAS:
            delta = {"tool_calls": [{"index": 0, "function": {"arguments": _get(event, "delta")}}]}
        elif kind in ("response.output_item.added", "response.output_item.done"):
            item = _get(event, "item")
            if _get(item, "type") in _CALL_ITEMS:
                if kind.endswith(".added"):
                    function = {"name": _get(item, "name")}
                    delta = {"tool_calls": [{"index": 0, "function": function}]}
                else:
                    delta, finish = {}, "tool_calls"
        choices = (
            [] if delta is None else [{"index": index, "delta": delta, "finish_reason": finish}]
        )
        synthetic = {"_guard_serial": self.serial, "choices": choices}
        self.pending[self.serial] = (event, synthetic)
        return synthetic

    def event(self, chunk: Any) -> Any:
        """The event to deliver for what the engine yielded (``None``: nothing)."""
        serial = _get(chunk, "_guard_serial")
        entry = self.pending.get(serial) if isinstance(serial, int) else None
        if entry is None:
            return None
        event, synthetic = entry
        choices = _get(chunk, "choices") or []
        if chunk is synthetic:
            del self.pending[serial]
            self._note(event)
            return event
        if any(_get(c, "finish_reason") is not None for c in choices):
            return None  # the engine's closing chunk: Responses streams end with an event
        del self.pending[serial]
        kind = _get(event, "type")
        if kind not in _TEXT_EVENTS or not choices:
            return None  # a tool call cut short is never delivered
        text = _get(_get(choices[0], "delta"), _TEXT_EVENTS[kind])
        if not text:
            return None
        event = _with(event, delta=text)
        self._note(event)
        return event

    def _note(self, event: Any) -> None:
        kind = _get(event, "type")
        sequence = _get(event, "sequence_number")
        if isinstance(sequence, int):
            self.sequence = max(self.sequence, sequence)
        index = _get(event, "output_index")
        if kind in ("response.created", "response.in_progress"):
            self.snapshot = _get(event, "response")
        elif kind == "response.output_item.added" and isinstance(index, int):
            self.items[index] = _ItemState(added=_get(event, "item"))
        elif kind == "response.output_item.done" and isinstance(index, int):
            self.items.setdefault(index, _ItemState(added=_get(event, "item"))).done = _get(
                event, "item"
            )
        elif kind == "response.output_text.delta" and isinstance(index, int):
            state = self.items.get(index)
            part = _get(event, "content_index") or 0
            if state is not None:
                state.text[part] = state.text.get(part, "") + (_get(event, "delta") or "")

    def terminal(self, aborted: bool) -> list[Any]:
        """The events that end a stream guard stopped: each message item left open, done with
        the text delivered, then ``response.completed`` (or ``response.incomplete``, reason
        ``content_filter``, for an aborting leak) listing what was delivered."""
        events: list[dict[str, Any]] = []
        output: list[dict[str, Any]] = []
        for index in sorted(self.items):
            state = self.items[index]
            if state.done is not None:
                output.append(_as_dict(state.done))
                continue
            item = _as_dict(state.added)
            if item.get("type") != "message" or not state.text:
                continue  # an unfinished call or reasoning item is not delivered
            item["content"] = [
                {"type": "output_text", "text": state.text[k], "annotations": []}
                for k in sorted(state.text)
            ]
            item["status"] = "incomplete" if aborted else "completed"
            events.append(
                self._numbered(
                    {"type": "response.output_item.done", "output_index": index, "item": item}
                )
            )
            output.append(item)
        if self.snapshot is not None:
            response = _as_dict(self.snapshot)
            response["status"] = "incomplete" if aborted else "completed"
            response["incomplete_details"] = {"reason": "content_filter"} if aborted else None
            response["output"] = output
            kind = "response.incomplete" if aborted else "response.completed"
            events.append(self._numbered({"type": kind, "response": response}))
        return [self._convert(e) for e in events]

    def _numbered(self, event: dict[str, Any]) -> dict[str, Any]:
        self.sequence += 1
        event["sequence_number"] = self.sequence
        return event

    def _convert(self, event: dict[str, Any]) -> Any:
        if not self.sdk:
            return event
        from openai.types.responses import ResponseStreamEvent

        try:
            from openai._models import construct_type
        except ImportError:  # pragma: no cover - every supported SDK has it
            from pydantic import TypeAdapter

            return TypeAdapter(ResponseStreamEvent).validate_python(event)
        return construct_type(type_=ResponseStreamEvent, value=event)


def _close_sync(target: Any) -> None:
    closer = getattr(target, "close", None)
    if callable(closer):
        closer()


async def _close_async(target: Any) -> None:
    closer = getattr(target, "aclose", None) or getattr(target, "close", None)
    if callable(closer):
        result = closer()
        if inspect.isawaitable(result):
            await result


class _StreamInfo:
    """The guard attributes every guarded stream wrapper exposes."""

    _guarded: GuardedStream | AsyncGuardedStream

    @property
    def verdicts(self) -> list[Verdict]:
        return self._guarded.verdicts

    @property
    def forged(self) -> bool:
        return self._guarded.forged

    @property
    def cut(self) -> dict[str, int]:
        return self._guarded.cut

    @property
    def chars_dropped(self) -> int:
        return self._guarded.chars_dropped

    @property
    def upstream_closed(self) -> bool:
        return self._guarded.upstream_closed

    @property
    def outcomes(self) -> list[Outcome]:
        return self._guarded.outcomes


class _ResponseStreamInfo(_StreamInfo):
    _bridge: _EventBridge
    _upstream: Any
    #: an aborting leak ended the stream (``abort="filter"``)
    aborted: bool

    @property
    def last_sequence(self) -> int:
        """The highest ``sequence_number`` delivered so far (-1 before any)."""
        return self._bridge.sequence

    @property
    def response(self) -> Any:
        """The upstream HTTP response (as on the SDK's stream)."""
        return getattr(self._upstream, "response", None)


class GuardedResponseStream(_ResponseStreamInfo):
    """A guarded sync stream of Responses API events (dicts or SDK objects)."""

    _guarded: GuardedStream

    def __init__(self, upstream: Iterable[Any], settings: _Settings, abort: AbortMode) -> None:
        self._upstream = upstream
        self._bridge = _EventBridge()
        self._abort = abort
        self.aborted = False
        self._guarded = cast(
            GuardedStream,
            guard_stream(
                self._chunks(),
                dialect=settings.dialect,
                policy=settings.policy,
                on_leak=settings.on_leak,
                raw=False,
            ),
        )
        self._iterator = self._run()

    def _chunks(self) -> Iterator[dict[str, Any]]:
        try:
            for event in self._upstream:
                yield self._bridge.chunk(event)
        finally:
            _close_sync(self._upstream)

    def _run(self) -> Generator[Any, None, None]:
        try:
            for chunk in self._guarded:
                event = self._bridge.event(chunk)
                if event is not None:
                    yield event
        except LeakAborted:
            if self._abort == "raise":
                raise
            self.aborted = True
        if self.aborted or self._guarded.forged or self._guarded.cut:
            yield from self._bridge.terminal(self.aborted)

    def __iter__(self) -> Iterator[Any]:
        yield from self._iterator

    def __next__(self) -> Any:
        return next(self._iterator)

    def close(self) -> None:
        """Close the upstream (the HTTP response) and end the stream."""
        self._guarded.close()
        self._iterator.close()

    def __enter__(self) -> GuardedResponseStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncGuardedResponseStream(_ResponseStreamInfo):
    """A guarded async stream of Responses API events (dicts or SDK objects)."""

    _guarded: AsyncGuardedStream

    def __init__(self, upstream: AsyncIterable[Any], settings: _Settings, abort: AbortMode) -> None:
        self._upstream = upstream
        self._bridge = _EventBridge()
        self._abort = abort
        self.aborted = False
        self._guarded = cast(
            AsyncGuardedStream,
            guard_stream(
                self._chunks(),
                dialect=settings.dialect,
                policy=settings.policy,
                on_leak=settings.on_leak,
                raw=False,
            ),
        )
        self._iterator = self._run()

    async def _chunks(self) -> AsyncIterator[dict[str, Any]]:
        try:
            async for event in self._upstream:
                yield self._bridge.chunk(event)
        finally:
            await _close_async(self._upstream)

    async def _run(self) -> AsyncGenerator[Any, None]:
        try:
            async for chunk in self._guarded:
                event = self._bridge.event(chunk)
                if event is not None:
                    yield event
        except LeakAborted:
            if self._abort == "raise":
                raise
            self.aborted = True
        if self.aborted or self._guarded.forged or self._guarded.cut:
            for event in self._bridge.terminal(self.aborted):
                yield event

    async def __aiter__(self) -> AsyncIterator[Any]:
        async for event in self._iterator:
            yield event

    async def __anext__(self) -> Any:
        return await self._iterator.__anext__()

    async def close(self) -> None:
        """Close the upstream (the HTTP response) and end the stream."""
        await self._guarded.aclose()
        await self._iterator.aclose()

    aclose = close

    async def __aenter__(self) -> AsyncGuardedResponseStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def guard_response_events(
    source: Iterable[Any] | AsyncIterable[Any],
    *,
    dialect: str | Dialect = "harmony",
    policy: Policy | None = None,
    on_leak: OnLeak = "truncate",
    abort: AbortMode = "raise",
) -> GuardedResponseStream | AsyncGuardedResponseStream:
    """Guard a stream of Responses API events (sync or async; dicts or SDK objects): output
    text and reasoning deltas are judged as in :func:`guard.guard_stream`, a function call is
    delivered only once complete, and a stream guard stops ends with the open message items
    done and ``response.completed`` (``response.incomplete`` when an aborting leak is
    filtered) listing what was delivered."""
    settings = _settings(dialect, policy, on_leak)
    if hasattr(source, "__aiter__"):
        return AsyncGuardedResponseStream(cast(AsyncIterable[Any], source), settings, abort)
    return GuardedResponseStream(source, settings, abort)


# ---------------------------------------------------------------------------------------------
# chat completion streams from the SDK


class GuardedChatStream(_StreamInfo):
    """The guarded form of the SDK's ``Stream[ChatCompletionChunk]``: iterate it (or call
    ``next``), use it in ``with``; ``close()`` closes the HTTP response."""

    _guarded: GuardedStream

    def __init__(self, upstream: Any, settings: _Settings) -> None:
        self._upstream = upstream
        self._guarded = cast(
            GuardedStream,
            guard_stream(
                upstream,
                dialect=settings.dialect,
                policy=settings.policy,
                on_leak=settings.on_leak,
                raw=False,
            ),
        )
        self._iterator = iter(self._guarded)

    @property
    def response(self) -> Any:
        """The upstream HTTP response (as on the SDK's stream)."""
        return getattr(self._upstream, "response", None)

    def __iter__(self) -> Iterator[Any]:
        yield from self._iterator

    def __next__(self) -> Any:
        return next(self._iterator)

    def close(self) -> None:
        self._guarded.close()
        closer = getattr(self._iterator, "close", None)
        if callable(closer):
            closer()

    def __enter__(self) -> GuardedChatStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncGuardedChatStream(_StreamInfo):
    """The guarded form of the SDK's ``AsyncStream[ChatCompletionChunk]``: ``async for`` it,
    use it in ``async with``; ``await close()`` closes the HTTP response."""

    _guarded: AsyncGuardedStream

    def __init__(self, upstream: Any, settings: _Settings) -> None:
        self._upstream = upstream
        self._guarded = cast(
            AsyncGuardedStream,
            guard_stream(
                upstream,
                dialect=settings.dialect,
                policy=settings.policy,
                on_leak=settings.on_leak,
                raw=False,
            ),
        )
        self._iterator = aiter(self._guarded)

    @property
    def response(self) -> Any:
        return getattr(self._upstream, "response", None)

    async def __aiter__(self) -> AsyncIterator[Any]:
        async for item in self._iterator:
            yield item

    async def __anext__(self) -> Any:
        return await anext(self._iterator)

    async def close(self) -> None:
        await self._guarded.aclose()
        await _close_async(self._iterator)

    aclose = close

    async def __aenter__(self) -> AsyncGuardedChatStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


# ---------------------------------------------------------------------------------------------
# the client wrapper


def _is_async(client: Any) -> bool:
    try:
        from openai import AsyncOpenAI
    except ImportError:  # pragma: no cover - the wrapper is used with the SDK installed
        AsyncOpenAI = None  # type: ignore[assignment,misc]
    if AsyncOpenAI is not None and isinstance(client, AsyncOpenAI):
        return True
    create = getattr(getattr(getattr(client, "chat", None), "completions", None), "create", None)
    return create is not None and inspect.iscoroutinefunction(inspect.unwrap(create))


class _Resource:
    """Passes every attribute through to the wrapped SDK resource."""

    def __init__(self, inner: Any, settings: _Settings, is_async: bool) -> None:
        self._inner = inner
        self._settings = settings
        self._async = is_async

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _Completions(_Resource):
    def create(self, *args: Any, **params: Any) -> Any:
        """``chat.completions.create`` with escaped messages and tools and a guarded result."""
        settings = self._settings
        if settings.escape_inputs:
            params = escape_chat_request(params, settings.dialect)
        stream = params.get("stream") is True
        if self._async:
            return self._acreate(args, params, stream)
        return self._wrap(self._inner.create(*args, **params), stream)

    async def _acreate(self, args: tuple[Any, ...], params: dict[str, Any], stream: bool) -> Any:
        result = await self._inner.create(*args, **params)
        if stream:
            return AsyncGuardedChatStream(result, self._settings)
        return self._complete(result)

    def _wrap(self, result: Any, stream: bool) -> Any:
        if stream:
            return GuardedChatStream(result, self._settings)
        return self._complete(result)

    def _complete(self, result: Any) -> Any:
        s = self._settings
        out, found = guard_chat_completion(
            result, dialect=s.dialect, policy=s.policy, on_leak=s.on_leak
        )
        _remember(out, found)
        return out


class _Chat(_Resource):
    @property
    def completions(self) -> _Completions:
        return _Completions(self._inner.completions, self._settings, self._async)


class _Responses(_Resource):
    def create(self, *args: Any, **params: Any) -> Any:
        """``responses.create`` with escaped input, instructions and tools and a guarded
        result."""
        settings = self._settings
        if settings.escape_inputs:
            params = escape_responses_request(params, settings.dialect)
        stream = params.get("stream") is True
        if self._async:
            return self._acreate(args, params, stream)
        result = self._inner.create(*args, **params)
        if stream:
            return GuardedResponseStream(result, settings, "raise")
        return self._complete(result)

    async def _acreate(self, args: tuple[Any, ...], params: dict[str, Any], stream: bool) -> Any:
        result = await self._inner.create(*args, **params)
        if stream:
            return AsyncGuardedResponseStream(result, self._settings, "raise")
        return self._complete(result)

    def _complete(self, result: Any) -> Any:
        s = self._settings
        out, found = guard_response(result, dialect=s.dialect, policy=s.policy, on_leak=s.on_leak)
        _remember(out, found)
        return out


class GuardedClient:
    """An OpenAI client whose ``chat.completions.create`` and ``responses.create`` are guarded;
    every other attribute is the wrapped client's. ``unwrapped`` is the client itself."""

    def __init__(self, client: Any, settings: _Settings) -> None:
        self._client = client
        self._settings = settings
        self._async = _is_async(client)

    @property
    def unwrapped(self) -> Any:
        return self._client

    @property
    def chat(self) -> _Chat:
        return _Chat(self._client.chat, self._settings, self._async)

    @property
    def responses(self) -> _Responses:
        return _Responses(self._client.responses, self._settings, self._async)

    def with_options(self, *args: Any, **kwargs: Any) -> GuardedClient:
        return GuardedClient(self._client.with_options(*args, **kwargs), self._settings)

    def copy(self, *args: Any, **kwargs: Any) -> GuardedClient:
        return GuardedClient(self._client.copy(*args, **kwargs), self._settings)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __enter__(self) -> GuardedClient:
        self._client.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._client.__exit__(*exc)

    async def __aenter__(self) -> GuardedClient:
        await self._client.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._client.__aexit__(*exc)

    def __repr__(self) -> str:
        return f"guard_client({self._client!r}, dialect={self._settings.dialect.name!r})"


def guard_client(
    client: ClientT,
    *,
    dialect: str | Dialect = "harmony",
    policy: Policy | None = None,
    on_leak: OnLeak = "truncate",
    escape_inputs: bool = True,
) -> ClientT:
    """Wrap an ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client (see the module docstring).

    Args:
        client: the SDK client (sync or async).
        dialect: the wire format of the model behind it (escaping and detection).
        policy: the gate's rules (default: SPEC.md 4.4).
        on_leak: ``truncate`` (default), ``abort`` (raise :class:`guard.LeakAborted`),
            ``recover`` or ``report``.
        escape_inputs: escape messages, input items, instructions and tool definitions.

    Returns:
        A :class:`GuardedClient` with the client's interface (typed as the client).
    """
    settings = _settings(dialect, policy, on_leak, escape_inputs)
    return cast(ClientT, GuardedClient(client, settings))
