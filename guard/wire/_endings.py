"""How a stream guard stopped ends in each API's own terms, as pure functions of one event, so
every transport (the proxy's relays, an SDK transport) ends it alike (``docs/serve.md``,
"The wire engine"):

- chat (not yet wired in this engine): a chunk ``finish_reason: "content_filter"`` per
  choice ended and a chunk with a top-level ``"guard"`` object;
- Responses: the terminal event carries ``"guard"``; after an aborting leak it is
  ``response.incomplete`` (reason ``content_filter``, :func:`responses_ending`), after a cut
  or a forgery it stays ``response.completed`` (SDK stream helpers raise on ``incomplete``);
- Messages: ``message_delta`` gets stop reason ``refusal`` and ``message_stop`` gets
  ``"guard"`` (:func:`messages_ending`).

A Responses text delta guard cut keeps only the logprob tokens its text still holds
(:func:`fit_delta_logprobs`).
"""

from __future__ import annotations

from typing import Any

from guard.models import Verdict

__all__ = ["fit_delta_logprobs", "guard_object", "messages_ending", "responses_ending"]


def guard_object(
    action: str, verdicts: list[Verdict], choices: list[int] | None = None
) -> dict[str, Any]:
    """The top-level ``"guard"`` object of the event that ends a stream guard acted on:
    ``action`` (``truncated``, ``aborted``, ``forged``), the leaking verdicts' ``signals`` and
    ``parts``, and for chat the ``choices`` guard ended."""
    leaks = [v for v in verdicts if v.leak]
    out: dict[str, Any] = {
        "action": action,
        "signals": sorted({s for v in leaks for s in v.signals}),
        "parts": [v.part for v in leaks if v.part],
    }
    if choices is not None:
        out["choices"] = choices
    return out


def responses_ending(event: Any, guard: dict[str, Any]) -> Any:
    """``event`` as the stopped stream's last event: a ``response.completed`` or
    ``response.incomplete`` becomes ``response.incomplete`` (``content_filter``) carrying
    ``guard``; any other event is returned as it is."""
    if type(event) is not dict or event.get("type") not in (
        "response.completed",
        "response.incomplete",
    ):
        return event
    response = dict(event.get("response") or {})
    response["status"] = "incomplete"
    response["incomplete_details"] = {"reason": "content_filter"}
    return {**event, "type": "response.incomplete", "response": response, "guard": guard}


def messages_ending(event: Any, guard: dict[str, Any]) -> Any:
    """``event`` of a stopped Messages stream: ``message_delta`` with stop reason ``refusal``,
    ``message_stop`` carrying ``guard``; any other event as it is."""
    if type(event) is not dict:
        return event
    kind = event.get("type")
    if kind == "message_delta":
        delta = dict(event.get("delta") or {})
        delta["stop_reason"] = "refusal"
        return {**event, "delta": delta}
    if kind == "message_stop":
        return {**event, "guard": guard}
    return event


def fit_delta_logprobs(event: dict[str, Any]) -> dict[str, Any]:
    """A Responses text delta guard cut, with only the logprob tokens its text still holds."""
    tokens = event.get("logprobs")
    text = event.get("delta")
    if type(tokens) is not list or not tokens or type(text) is not str:
        return event
    room = len(text)
    kept = []
    for token in tokens:
        piece = token.get("token") if type(token) is dict else None
        if type(piece) is not str or len(piece) > room:
            break
        room -= len(piece)
        kept.append(token)
    return event if len(kept) == len(tokens) else {**event, "logprobs": kept}
