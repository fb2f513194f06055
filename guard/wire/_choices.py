"""The guard of a chat completion chunk stream, one choice at a time, as a sans-IO object.

:class:`ChoiceGuard` is what :class:`guard.wire._stream.ChatAnswer` pushes parsed chunks to (in
place of one stream guard for the whole answer): :meth:`~ChoiceGuard.push` each parsed upstream
chunk and send the chunks it returns, in order; call :meth:`~ChoiceGuard.end` when the upstream
ended and send those too; once :attr:`~ChoiceGuard.stopped` is true, close the upstream (every
choice has ended) and send nothing more but :meth:`~ChoiceGuard.guard_event`, when it is not
None, before ``data: [DONE]``.

Every chunk is first read by the :class:`~guard.wire._events.EventJudge` (every string the
stream engine does not read), then each choice goes to its own stream engine
(:class:`guard.stream._engine.Engine`): a chunk of several choices is split into one chunk per
choice (as OpenAI itself streams ``n>1``). A leak in one choice ends only that choice: its text
is cut, a chunk with its ``finish_reason: "content_filter"`` follows, and its later chunks are
dropped; the other choices go on whole, and so do choices still to come: the stream is stopped
(the upstream closed) only once every choice the request asked for (``n``) has ended. A cut
chunk keeps only the logprob tokens its text still holds. A leak outside any choice ends every
choice, those still to come included.
"""

from __future__ import annotations

from typing import Any

from guard._detect import tool_names
from guard.dialects import Dialect, get_dialect
from guard.errors import LeakAborted
from guard.gate import Policy, check_policy
from guard.models import Outcome, Verdict
from guard.stream import CallSet, ChunkReader, Engine, check_on_leak
from guard.wire._answer import _cut_logprobs
from guard.wire._endings import guard_object
from guard.wire._events import EventJudge, UnreadableEvent

__all__ = ["ChoiceGuard"]


class _ChoiceReader(ChunkReader):
    """The chunk reader of one choice's engine: :class:`ChoiceGuard` writes the chunk that ends
    a choice guard stopped (``content_filter``), not the engine."""

    __slots__ = ()

    def final_chunks(self, delivered: CallSet) -> list[Any]:
        return []


class ChoiceGuard:
    """One guarded chat chunk stream; see the module docstring. ``tools``: the request's
    declared tool names or definitions (``None``: unknown)."""

    def __init__(
        self,
        dialect: str | Dialect,
        policy: Policy | None = None,
        on_leak: str = "truncate",
        tools: Any = None,
        *,
        choices: int = 1,
    ) -> None:
        if type(choices) is not int or choices < 1:
            raise ValueError(f"choices must be a positive integer, got {choices!r}")
        self.dialect = get_dialect(dialect)
        #: how many choices the request asked for (its ``n``): the stream is stopped only once
        #: each of them, and every choice that came, has ended
        self.choices = choices
        self.policy = check_policy(policy)
        self.on_leak = check_on_leak(on_leak)
        self.tools = tool_names(tools)
        self.judge = EventJudge("chat", self.dialect, self.policy, self.on_leak)
        #: one engine per choice index, made when the choice first comes
        self.engines: dict[int, Engine] = {}
        #: choices guard ended -> what it did (``truncated``, ``aborted``, ``forged``)
        self.ended: dict[int, str] = {}
        #: choices the upstream ended (a ``finish_reason`` came)
        self.finished: set[int] = set()
        #: every choice has ended (guard ended them, or the upstream ended)
        self.stopped = False
        self._finished = False
        #: the last chunk with choices (the shape of a choice's final chunk)
        self._template: dict[str, Any] | None = None

    # --- what a transport reads ----------------------------------------------------------------

    @property
    def verdicts(self) -> list[Verdict]:
        out = [v for e in self.engines.values() for v in e.verdicts()]
        return out + self.judge.verdicts

    @property
    def forged(self) -> bool:
        return any(e.forged for e in self.engines.values())

    @property
    def cut(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for engine in self.engines.values():
            out.update(engine.cut)
        for name in self.judge.cut:
            out.setdefault(name, 0)
        return out

    @property
    def abort(self) -> LeakAborted | None:
        """An aborting leak's error when guard aborted a choice (the stream still ends well)."""
        for engine in self.engines.values():
            if engine.abort is not None:
                return engine.abort
        if "aborted" in self.ended.values():
            leaks = [v for v in self.judge.verdicts if v.leak]
            if leaks:
                return LeakAborted(leaks[-1], "")
        return None

    @property
    def outcomes(self) -> list[Outcome]:
        """Recovery outcomes (``on_leak="recover"``), choice by choice."""
        return [o for e in self.engines.values() for o in e.outcomes]

    @property
    def chars_dropped(self) -> int:
        return sum(e.chars_dropped for e in self.engines.values())

    @property
    def acted(self) -> bool:
        """Whether guard cut, aborted or ended any choice."""
        return bool(self.ended) or self.forged or bool(self.cut)

    def guard_event(self) -> dict[str, Any] | None:
        """The chunk that tells the client what guard did (``choices: []`` and a top-level
        ``"guard"`` object), or None when guard did nothing to the stream."""
        if not self.acted:
            return None
        actions = set(self.ended.values())
        action = (
            "aborted"
            if "aborted" in actions
            else "forged"
            if "forged" in actions or self.forged
            else "truncated"
        )
        top = self._top()
        top["choices"] = []
        top["guard"] = guard_object(action, self.verdicts, sorted(self.ended))
        return top

    # --- driving it ----------------------------------------------------------------------------

    def close(self) -> None:
        """The driver closed the upstream (nothing to release: the choices' engines hold no
        source)."""

    def push(self, item: Any) -> list[Any]:
        """Take one upstream chunk; return the chunks that may be sent now, in order."""
        if self.stopped:
            return []
        if self.judge.quiet_chat(item):
            return self._push_one(item, item["choices"][0])
        _check_chunk(item)
        judged = self.judge.judge(item)
        if judged.item is not item:
            _fit_logprobs(judged.item)  # a cut string keeps only its own tokens
        item = judged.item
        choices = item.get("choices") if type(item) is dict else None
        if type(choices) is list and len(choices) > 1:
            out: list[Any] = []
            for choice in choices:
                out += self._push_one({**item, "choices": [choice]}, choice)
        else:
            out = self._push_one(item, choices[0] if choices else None)
        action = "aborted" if judged.aborted else "truncated"
        for index in sorted(judged.choices):
            out += self._end_choice(index, action)
        if judged.stop:
            for index in sorted(self.engines.keys() | range(self.choices)):
                out += self._end_choice(index, action)
        return out

    def end(self) -> list[Any]:
        """The upstream ended (or failed): return what may still be sent."""
        if self._finished:
            return []
        self._finished = True
        out: list[Any] = []
        for held in self.judge.release():  # what the judge held of choices still going
            index = held["choices"][0]["index"]
            if index not in self.ended:
                out.append(held)
        for index, engine in self.engines.items():
            if index in self.ended:
                continue
            delivered = engine.end()
            if engine.abort is not None or engine.cut or engine.forged:
                out += self._stopped(index, engine, delivered)
            else:
                out += delivered
        self.stopped = True
        return out

    # --- the choices ---------------------------------------------------------------------------

    def _engine(self, index: int) -> Engine:
        engine = self.engines.get(index)
        if engine is None:
            engine = Engine(self.dialect, self.policy, self.on_leak, None, False, None, self.tools)
            engine.reader = engine.chunks = _ChoiceReader()
            self.engines[index] = engine
        return engine

    def _push_one(self, item: Any, choice: Any) -> list[Any]:
        if type(choice) is dict:
            index = choice.get("index")
            index = index if type(index) is int else 0
            if index in self.ended:
                return []  # guard ended this choice: the rest of it is dropped
            if choice.get("finish_reason"):
                self.finished.add(index)
            if self._template is None or self._template is not item:
                self._template = item
        else:
            # a chunk without choices (usage...): in order with the first choice still going
            live = [i for i in self.engines if i not in self.ended]
            index = live[0] if live else 0
        engine = self._engine(index)
        delivered = engine.push(item)
        if engine.stopped:
            return self._stopped(index, engine, delivered)
        if len(delivered) == 1 and delivered[0] is item:
            return delivered
        return [_fit_logprobs(one) if one is not item else one for one in delivered]

    def _stopped(self, index: int, engine: Engine, delivered: list[Any]) -> list[Any]:
        """A choice's engine stopped: what it delivered, then the chunk ending the choice."""
        action = "aborted" if engine.abort is not None else "forged" if engine.forged else None
        out = [_fit_logprobs(one) for one in delivered]
        return out + self._final(index, action or "truncated")

    def _end_choice(self, index: int, action: str) -> list[Any]:
        """End a choice the event judge found leaking (its cut chunk was pushed already)."""
        if index in self.ended:
            return []
        engine = self._engine(index)
        delivered = [] if engine.stopped else engine.end()
        out = [_fit_logprobs(one) for one in delivered]
        return out + self._final(index, action)

    def _final(self, index: int, action: str) -> list[Any]:
        self.ended[index] = action
        self._check_stopped()
        chunk = self._top()
        # an aborting leak ends the choice ``content_filter``; a cut or forged one ends
        # ``stop`` (SDK helpers raise on ``content_filter``): the "guard" chunk says which
        reason = "content_filter" if action == "aborted" else "stop"
        chunk["choices"] = [
            {"index": index, "delta": {}, "finish_reason": reason, "logprobs": None}
        ]
        return [chunk]

    def _top(self) -> dict[str, Any]:
        template = self._template or {}
        return {k: v for k, v in template.items() if k not in ("choices", "usage", "guard")}

    def _check_stopped(self) -> None:
        """Stopped once every choice asked for and every choice that came has ended (guard
        ended it, or the upstream did), guard having ended one: a choice still to come (servers
        that stream ``n`` choices one after another) keeps the stream going."""
        over = self.ended.keys() | self.finished
        if not all(i in over for i in self.engines):
            return
        if sum(1 for i in over if 0 <= i < self.choices) == self.choices:
            self.stopped = True


def _check_chunk(item: Any) -> None:
    """Refuse a chunk whose text fields the engine could not read (:class:`UnreadableEvent`)."""
    if type(item) is not dict:
        raise UnreadableEvent(f"a chat chunk must be a JSON object, got {type(item).__name__}")
    choices = item.get("choices")
    if choices is None:
        return
    if type(choices) is not list:
        raise UnreadableEvent(f"a chunk's choices must be a list, got {type(choices).__name__}")
    for choice in choices:
        if type(choice) is not dict:
            raise UnreadableEvent(
                f"a chunk's choice must be an object, got {type(choice).__name__}"
            )
        index = choice.get("index")
        if index is not None and type(index) is not int:
            raise UnreadableEvent(
                f"a choice's index must be an integer, got {type(index).__name__}"
            )
        delta = choice.get("delta")
        if delta is None:
            continue
        if type(delta) is not dict:
            raise UnreadableEvent(f"a choice's delta must be an object, got {type(delta).__name__}")
        calls = delta.get("tool_calls")
        if calls is None or (type(calls) is list and not calls):
            continue
        if type(calls) is not list:
            raise UnreadableEvent(
                f"a delta's tool_calls must be a list, got {type(calls).__name__}"
            )
        for call in calls:
            if type(call) is not dict:
                raise UnreadableEvent("a tool call must be an object")
            k = call.get("index")
            if k is not None and type(k) is not int:
                raise UnreadableEvent(
                    f"a tool call's index must be an integer, got {type(k).__name__}"
                )
            function = call.get("function")
            if function is not None and type(function) is not dict:
                raise UnreadableEvent("a tool call's function must be an object")


def _fit_logprobs(chunk: Any) -> Any:
    """A cut chunk keeps only the logprob tokens its (cut) text still holds."""
    if type(chunk) is dict:
        for choice in chunk.get("choices") or ():
            if type(choice) is dict and choice.get("logprobs"):
                _cut_logprobs(choice, "delta")
    return chunk
