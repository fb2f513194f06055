"""Streamed answers, sans-IO: the SSE bytes of a guarded route's answer go in as they are read,
the bytes the client may have come out.

:class:`StreamedAnswer` (one per answer, made by :func:`streamed_answer` for its route's kind)
holds the SSE decoder, the guard and what it learnt; it never reads or closes anything. Its
driver (the proxy's relay, the httpx transport) reads a piece of the upstream body and calls
:meth:`~StreamedAnswer.feed`, sends what it returns, and looks at three flags:

* :attr:`~StreamedAnswer.fault`: the upstream sent something that cannot be relayed (an SSE
  line over the limit, an event that is not a JSON object, one nested too deep): close the
  upstream, send what ``feed`` returned, then :meth:`~StreamedAnswer.failure`;
* :attr:`~StreamedAnswer.stopped`: guard stopped the stream (a forged tool result, a leak):
  close the upstream at once, then send :meth:`~StreamedAnswer.finish`;
* :attr:`~StreamedAnswer.ended`: the body ended or ``[DONE]`` came: read the rest for a moment
  (the connection can then be reused), close it, then send :meth:`~StreamedAnswer.finish`.

Upstream events that guard delivers unchanged go out as they came: byte for byte when the
decoder kept their bytes (whole one-line ``data:`` events), else re-encoded from their data;
changed or new ones are re-serialised. A stopped stream still ends well-formed: a chat stream
with a final chunk and ``data: [DONE]``, a Responses stream with the bridge's terminal events, an
Anthropic Messages stream with the open block stopped, ``message_delta`` and ``message_stop``.
With ``abort="raise"``, :meth:`~StreamedAnswer.finish` raises the :class:`guard.LeakAborted` of
an aborting leak instead of ending the stream so.
"""

from __future__ import annotations

from guard.dialects import Dialect
from guard.gate import Policy
from guard.integrations.openai.protocol import AbortMode
from guard.stream import OnLeak
from guard.wire._bridged_answer import MessagesAnswer, ResponsesAnswer
from guard.wire._chat_answer import ChatAnswer
from guard.wire._streamed import StreamedAnswer, UpstreamFault

__all__ = [
    "ChatAnswer",
    "MessagesAnswer",
    "ResponsesAnswer",
    "StreamedAnswer",
    "UpstreamFault",
    "streamed_answer",
]

_KINDS: dict[str, type[StreamedAnswer]] = {
    "chat": ChatAnswer,
    "responses": ResponsesAnswer,
    "messages": MessagesAnswer,
}


def streamed_answer(
    kind: str,
    dialect: str | Dialect,
    policy: Policy | None,
    on_leak: OnLeak,
    tools: frozenset[str] | None = None,
    abort: AbortMode = "filter",
    *,
    choices: int = 1,
) -> StreamedAnswer:
    """The judge of one streamed answer of a route of ``kind`` (``chat``, ``responses``,
    ``messages``); ``choices``: how many the request asked for (its ``n``, see
    :attr:`guard.wire.SentRequest.choices`)."""
    return _KINDS[kind](dialect, policy, on_leak, tools, abort, choices=choices)
