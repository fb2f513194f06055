"""guard as a NeMo Guardrails output rail (install ``inband-guard[nemo]``).

:func:`guard_leak_check` is an action that judges the bot message (``text``, else the
``bot_message`` of the rail's context) as model text and answers NeMo's ``RailOutcome``:
``block`` on a leak verdict (its ``reason`` and ``cut`` in the metadata, never the text),
``allow`` otherwise. :data:`FLOWS` is the Colang (1.0) subflow that calls it,
``guard leak check output``; name it under ``rails.output.flows`` and register the action with
:func:`register`.

With ``rails.output.streaming.enabled``, NeMo runs output rails on windows of the streamed
message (``chunk_size`` tokens, each window also holding the ``context_size`` tokens before
it), so the check sees a control token split across two chunks of the model's stream. Set
``stream_first: false``: with NeMo's default (``true``) a window's tokens reach the client
before the rail has judged them, so a leak would be delivered before the block.

The dialect is ``dialect`` (an action parameter, e.g. ``execute guard_leak_check(
text=$bot_message, dialect="glm")``), else the one :func:`register` was given, else every
dialect's spellings (``all``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from guard.integrations._extras import missing_extra

try:
    from nemoguardrails.actions import action
    from nemoguardrails.actions.rail_outcome import RailOutcome
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_extra(__name__, "NeMo Guardrails", "nemo") from exc

from guard._detect import detect
from guard._log import get_logger
from guard.dialects import get_dialect
from guard.gate import Policy
from guard.models import Surface

__all__ = ["ACTION_NAME", "FLOWS", "guard_leak_check", "register"]

_log = get_logger("guard.integrations.nemo")

#: the action's name in Colang
ACTION_NAME = "guard_leak_check"

#: the output rail (Colang 1.0): name ``guard leak check output`` in ``rails.output.flows``
FLOWS = '''
define bot refuse to respond
  "I'm sorry, I can't respond to that."

define subflow guard leak check output
  """Block a bot message that carries in-band control text (inband-guard)."""
  $response = execute guard_leak_check(text=$bot_message)

  if $response.is_blocked
    bot refuse to respond
    stop
'''

_DEFAULTS: dict[str, Any] = {"dialect": "all", "policy": None}

_Fn = TypeVar("_Fn", bound=Callable[..., Any])
#: NeMo's action decorator (it only marks the function), typed
_system_action = cast(Callable[[_Fn], _Fn], action(is_system_action=True, name=ACTION_NAME))


@_system_action
async def guard_leak_check(
    text: str | None = None,
    context: dict[str, Any] | None = None,
    dialect: str | None = None,
    **kwargs: Any,
) -> RailOutcome:
    """``block`` when the bot message leaks in-band structure, else ``allow``. A message that
    is not text is blocked (nothing is passed unjudged)."""
    if text is None and context is not None:
        text = context.get("bot_message")
    if text is None:
        text = ""
    if not isinstance(text, str):
        _log.error("guard.nemo.unreadable", type=type(text).__name__)
        return RailOutcome.block(reason="guard: the bot message is not text")
    chosen = get_dialect(dialect or _DEFAULTS["dialect"])
    verdict = detect(text, Surface.TEXT, chosen, _DEFAULTS["policy"])
    if not verdict.leak:
        return RailOutcome.allow()
    _log.warning("guard.nemo.blocked", reason=verdict.reason, cut=verdict.cut)
    return RailOutcome.block(
        reason=f"guard: {verdict.reason}",
        metadata={"cut": verdict.cut, "dialect": chosen.name},
    )


def register(rails: Any, *, dialect: str | None = None, policy: Policy | None = None) -> None:
    """Register :func:`guard_leak_check` on an ``LLMRails`` (its default ``dialect`` and
    ``policy`` set here; ``dialect`` checked now)."""
    if dialect is not None:
        _DEFAULTS["dialect"] = get_dialect(dialect).name
    _DEFAULTS["policy"] = policy
    rails.register_action(guard_leak_check, name=ACTION_NAME)
