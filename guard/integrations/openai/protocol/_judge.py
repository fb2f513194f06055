"""Complete responses: judge every part, then cut, drop or abort by ``on_leak``.

Each part is checked as a whole with :func:`guard.detect` on its surface (``docs/detection.md``,
"Gate"). A leaking text part is cut at the verdict's cut; a leaking tool call is dropped whole
(name and arguments); a forged tool result is cut, never raised (``docs/detection.md``,
"Forgery"). The response to deliver is a changed deep copy, so the caller's object is never
mutated.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from guard._fields import get_field, set_field
from guard._log import get_logger
from guard.errors import LeakAborted
from guard.gate import Policy
from guard.integrations.openai.protocol._guards import ProtocolGuard
from guard.integrations.openai.protocol._parts import Part, chat_parts, response_parts
from guard.integrations.openai.protocol._settings import AbortMode, GuardSettings
from guard.models import Outcome, Surface, Verdict

__all__ = ["GuardResult", "guard_chat_completion", "guard_response", "judge_parts"]

_log = get_logger("guard.integrations")

#: a judged response: the one to deliver and what guard found
Judged = tuple[Any, "GuardResult"]


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


@dataclass
class _Plan:
    """What to do to a response, decided on the original before anything is copied."""

    verdicts: list[Verdict] = field(default_factory=list)
    cuts: dict[str, int] = field(default_factory=dict)
    drops: set[str] = field(default_factory=set)
    forged: bool = False
    aborted: bool = False
    chars_dropped: int = 0
    outcomes: list[Outcome] = field(default_factory=list)

    def result(self, dropped_chars: int) -> GuardResult:
        return GuardResult(
            verdicts=tuple(self.verdicts),
            forged=self.forged,
            cut=dict(self.cuts),
            dropped=tuple(sorted(self.drops)),
            chars_dropped=self.chars_dropped + dropped_chars,
            aborted=self.aborted,
            outcomes=tuple(self.outcomes),
        )


def _reasoned(parts: list[Part], settings: GuardSettings) -> set[int] | None:
    """The choices (by ``id``; a Responses response is one) whose message carried a
    non-blank reasoning part, as ``detect_message`` reads it; ``None`` for a dialect without
    reasoning markers (the context is unknown)."""
    if not settings.dialect.thinking:
        return None
    return {id(p.choice) for p in parts if p.surface is Surface.THINKING and p.text.strip()}


def _plan(parts: list[Part], settings: GuardSettings, abort: AbortMode) -> _Plan:
    plan = _Plan()
    reasoned = _reasoned(parts, settings)
    for part in parts:
        reasoning = None
        if reasoned is not None and part.surface is Surface.TEXT:
            reasoning = id(part.choice) in reasoned
        verdict = settings.judge(part, reasoning)
        plan.verdicts.append(verdict)
        if not verdict.leak or settings.on_leak == "report":
            continue
        cut = verdict.cut if verdict.cut is not None else 0
        forged = verdict.forged
        plan.forged = plan.forged or forged
        if settings.on_leak == "abort" and not forged:
            if abort == "raise":
                _log.warning("guard.response.leak", part=part.name, cut=cut, action="abort")
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
            "guard.response.forgery" if forged else "guard.response.leak",
            part=part.name,
            cut=cut,
            action="drop" if part.container is not None else "cut",
        )
    return plan


def _recover(part: Part, verdict: Verdict, policy: Policy) -> Outcome:
    from guard.recovery import get_strategy

    strategy = get_strategy(policy.recovery_for(part.surface, part.tool_name))
    return strategy.apply(part.text, verdict)


def _apply(parts: list[Part], plan: _Plan) -> int:
    """Cut and drop on a private copy's parts; returns the characters dropped with whole calls
    (name and arguments)."""
    doomed = {id(p.element) for p in parts if p.name in plan.drops}
    removed: set[int] = set()
    dropped_chars = 0
    for part in parts:
        if part.name in plan.cuts:
            set_field(part.owner, part.key, part.text[: plan.cuts[part.name]])
        if part.element is None or id(part.element) not in doomed:
            continue
        dropped_chars += len(part.text)
        if id(part.element) in removed:
            continue
        removed.add(id(part.element))
        kept = [e for e in get_field(part.container, part.list_key) or () if e is not part.element]
        if not kept and part.list_key == "tool_calls":
            set_field(part.container, part.list_key, None)  # as the API sends "no calls"
        else:
            set_field(part.container, part.list_key, kept)
    return dropped_chars


def _finish_choices(out: Any, parts: list[Part], result: GuardResult) -> None:
    """A changed choice ends ``content_filter`` (aborted) or ``stop`` (no tool call left)."""
    for part in parts:
        if part.choice is None or not (part.name in result.cut or part.name in result.dropped):
            continue
        if result.aborted:
            set_field(part.choice, "finish_reason", "content_filter")
            continue
        message = get_field(part.choice, "message")
        if get_field(part.choice, "finish_reason") == "tool_calls" and not get_field(
            message, "tool_calls"
        ):
            set_field(part.choice, "finish_reason", "stop")


def _mark_incomplete(out: Any, parts: list[Part], result: GuardResult) -> None:
    """An aborted Responses API response is ``incomplete`` (reason ``content_filter``)."""
    if result.aborted:
        set_field(out, "status", "incomplete")
        set_field(out, "incomplete_details", {"reason": "content_filter"})


def judge_parts(
    response: Any,
    walk: Callable[[Any], list[Part]],
    finish: Callable[[Any, list[Part], GuardResult], None],
    settings: GuardSettings,
    abort: AbortMode = "raise",
) -> Judged:
    """Judge a complete response of any wire protocol: ``walk`` lists its :class:`Part` s (the
    same walk on the deep copy finds the same parts), each is checked and cut or dropped by
    ``settings.on_leak``, and ``finish`` fixes up the changed copy (stop reasons) once the
    :class:`GuardResult` is known. Returns the response to deliver (the same object when nothing
    changes) and the result."""
    plan = _plan(walk(response), settings, abort)
    if not (plan.cuts or plan.drops):
        return response, plan.result(0)
    out = copy.deepcopy(response)
    parts = walk(out)
    result = plan.result(_apply(parts, plan))
    finish(out, parts, result)
    return out, result


def _judge_chat(completion: Any, settings: GuardSettings, abort: AbortMode) -> Judged:
    return judge_parts(completion, chat_parts, _finish_choices, settings, abort)


def _judge_response(response: Any, settings: GuardSettings, abort: AbortMode) -> Judged:
    return judge_parts(response, response_parts, _mark_incomplete, settings, abort)


guard_chat_completion = ProtocolGuard(
    _judge_chat,
    "guard_chat_completion",
    """Check a complete chat completion (dict or SDK object) and apply ``on_leak``; ``tools``
    are the request's declared tools (``docs/detection.md``, "Context").

    Returns the completion to deliver (the same object when nothing changes, otherwise a
    changed deep copy) and the :class:`GuardResult`. Visible text and reasoning are cut at the
    cut; a tool call whose name or arguments leak is dropped (``finish_reason`` becomes
    ``stop`` when no call is left); a forged tool result is cut, never raised.

    Raises:
        LeakAborted: ``on_leak="abort"``, ``abort="raise"`` and a part leaks.
    """,
    "completion",
)

guard_response = ProtocolGuard(
    _judge_response,
    "guard_response",
    """Check a complete Responses API response (dict or SDK object) and apply ``on_leak``
    (``tools``: the request's declared tools):
    output text and reasoning are cut at the cut, a leaking ``function_call`` item is dropped,
    a forged tool result is cut. With ``abort="filter"`` an aborting leak marks the response
    ``incomplete`` (reason ``content_filter``).""",
    "response",
)
