"""Guarded Responses and Messages event streams, read through a bridge into the chunk shape the
guard reads (:mod:`guard.wire._stream`)."""

from __future__ import annotations

from typing import Any

from guard.dialects import Dialect
from guard.gate import Policy
from guard.integrations.anthropic.protocol import MessageEventBridge, block_part
from guard.integrations.openai.protocol import ResponseEventBridge
from guard.models import Verdict
from guard.stream import OnLeak
from guard.wire._endings import (
    fit_delta_logprobs,
    guard_object,
    messages_ending,
    responses_ending,
)
from guard.wire._events import EventJudge
from guard.wire._sse import encode
from guard.wire._streamed import (
    _DONE,
    StreamedAnswer,
    _dumps,
    _encode,
)

__all__ = ["MessagesAnswer", "ResponsesAnswer"]


class _BridgedAnswer(StreamedAnswer):
    """A provider event stream read through a bridge into the chunk shape the guard reads.

    Deny by default: each event first goes through an :class:`~guard.wire._events.EventJudge`,
    which judges every string the bridge and the guard do not read; a leak there ends the
    stream after the event (what the judge keeps of it). A stream guard stopped ends in the
    API's own terms with a top-level ``"guard"`` object (:mod:`guard.wire._endings`)."""

    bridge: ResponseEventBridge | MessageEventBridge
    kind = ""

    def _begin(self, dialect: str | Dialect, policy: Policy | None, on_leak: OnLeak) -> None:
        self.judge = EventJudge(self.kind, dialect, policy, on_leak)
        #: the judge ended the stream (``"truncated"`` or ``"aborted"``), else None
        self.judge_stop: str | None = None

    def _push(self, item: dict[str, Any]) -> list[Any]:
        judged = self.judge.judge(item)
        if judged.stop or judged.choices:
            self.judge_stop = "aborted" if judged.aborted else "truncated"
            item = judged.item
        bridge = self.bridge
        out = self.guarded.push(bridge.chunk(item))
        return [self._rewrite(e) for e in map(bridge.event, out) if e is not None]

    def _stopping(self) -> bool:
        return self.guarded.stopped or self.judge_stop is not None

    def _stop(self) -> None:
        super()._stop()
        self.aborted = self.aborted or self.judge_stop == "aborted"

    def _end(self) -> list[Any]:
        bridge = self.bridge
        return [self._rewrite(e) for e in map(bridge.event, self.guarded.end()) if e is not None]

    def _acted(self) -> bool:
        """Whether guard stopped the stream (so far)."""
        guarded = self.guarded
        return bool(self.aborted or guarded.forged or guarded.cut or self.judge_stop)

    def _action(self) -> str:
        if self.aborted or self.guarded.abort is not None or self.judge_stop == "aborted":
            return "aborted"
        return "forged" if self.guarded.forged else "truncated"

    def _guard_object(self) -> dict[str, Any]:
        return guard_object(self._action(), self.verdicts)

    # the base reads verdicts and cut off the guard (Forwarded); here the judge's are added
    @property
    def verdicts(self) -> list[Verdict]:  # type: ignore[override]
        """The guard's verdicts, then the event judge's (each named by its place)."""
        return self._guard_verdicts() + self.judge.verdicts

    def _guard_verdicts(self) -> list[Verdict]:
        return self.guarded.verdicts

    @property
    def cut(self) -> dict[str, int]:  # type: ignore[override]
        """The parts cut: the guard's, then the event judge's places."""
        out = self._guard_cut()
        for name in self.judge.cut:
            out.setdefault(name, 0)
        return out

    def _guard_cut(self) -> dict[str, int]:
        return dict(self.guarded.cut)

    def _rewrite(self, item: Any) -> Any:
        """An item on its way out as the client gets it."""
        return item

    def _terminal(self) -> list[bytes]:
        """The bridge's terminal events when guard stopped the stream, else none."""
        if self._acted():
            return [
                _encode(self._rewrite(e), self.raws) for e in self.bridge.terminal(self.aborted)
            ]
        return []


class ResponsesAnswer(_BridgedAnswer):
    """A Responses API event stream: guard's stop ends it with the bridge's terminal events,
    the last one carrying a top-level ``"guard"`` object (an aborting leak's is
    ``response.incomplete``, reason ``content_filter``)."""

    bridge: ResponseEventBridge
    kind = "responses"

    def _begin(self, dialect: str | Dialect, policy: Policy | None, on_leak: OnLeak) -> None:
        super()._begin(dialect, policy, on_leak)
        self.bridge: ResponseEventBridge = ResponseEventBridge()

    def _ending(self) -> list[bytes]:
        return [*self._terminal(), *([_DONE] if self.done else [])]

    def _rewrite(self, item: Any) -> Any:
        if type(item) is not dict:
            return item
        kind = item.get("type")
        if kind == "response.output_text.delta" and id(item) not in self.raws:
            return fit_delta_logprobs(item)  # a cut delta keeps only its own tokens
        if kind in ("response.completed", "response.incomplete") and self._acted():
            if self.aborted:
                return responses_ending(item, self._guard_object())
            # a cut or forged answer ends ``completed`` (SDK stream helpers, the Agents SDK's
            # run loop, raise on ``incomplete``): the "guard" object tells the client
            return {**item, "guard": self._guard_object()}
        return item

    def failure(self, message: str) -> bytes:
        error = {
            "type": "error",
            "code": "upstream_error",
            "message": message,
            "param": None,
            "sequence_number": self.bridge.sequence + 1,
        }
        return encode(_dumps(error), "error")


class MessagesAnswer(_BridgedAnswer):
    """An Anthropic Messages event stream: guard's stop ends it with the open block stopped,
    ``message_delta`` (stop reason ``refusal``) and ``message_stop`` with ``"guard"``."""

    kind = "messages"

    def _begin(self, dialect: str | Dialect, policy: Policy | None, on_leak: OnLeak) -> None:
        super()._begin(dialect, policy, on_leak)
        self.bridge = MessageEventBridge()

    def _guard_verdicts(self) -> list[Verdict]:
        """One verdict per part seen, named by content block (``content[1]``)."""
        return [
            v.model_copy(update={"part": block_part(v.part or "")}) for v in self.guarded.verdicts
        ]

    def _guard_cut(self) -> dict[str, int]:
        return {block_part(k): v for k, v in self.guarded.cut.items()}

    def _ending(self) -> list[bytes]:
        return self._terminal()  # a Messages stream ends with its own events

    def _rewrite(self, item: Any) -> Any:
        kind = item.get("type") if type(item) is dict else None
        if kind in ("message_delta", "message_stop") and self._acted():
            return messages_ending(item, self._guard_object())
        return item

    def failure(self, message: str) -> bytes:
        error = {"type": "error", "error": {"type": "api_error", "message": message}}
        return encode(_dumps(error), "error")
