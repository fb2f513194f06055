"""Stream middleware: guard a provider stream while it flows (docs/streaming.md).

:func:`guard_stream` wraps a sync ``Iterable`` or an ``AsyncIterable`` of either raw wire-text
deltas (``str``, read through the dialect's scanner) or OpenAI-style chat completion chunks
(dicts or SDK objects: ``delta.content`` is ``text``, ``delta.reasoning_content`` /
``delta.reasoning`` is ``thinking``, ``delta.tool_calls[k].function.name`` / ``.arguments`` are
``tool_name`` / ``tool_arg`` of call ``k``). It yields the same kind of items, minus what must not
reach the caller:

* a forged tool result (docs/streaming.md, "Forgery") ends the stream at once: everything before
  it is delivered, nothing from it on, complete calls are kept, an unfinished call is dropped,
  and the upstream is closed so no more tokens are paid for;
* a leak is acted on in the chunk that makes it certain, by ``on_leak``: ``abort`` closes the
  upstream and raises :class:`LeakAborted`; ``truncate`` ends the stream cleanly at the cut;
  ``recover`` ends it the same way and records the policy's recovery outcome; ``report`` passes
  everything through and records verdicts.

Text is withheld only while a decision is pending: a tail that could still complete a tripping
spelling, text from a hit that trips unless a still-open code fence or span encloses it, and a
tool call until it is complete (so a call is never delivered with partial arguments). Chunks are
yielded unchanged except the one that is cut, and a well-formed final chunk ends a cut stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from typing import Any, Literal, cast

from guard.dialects import Dialect, get_dialect
from guard.errors import GuardError, LeakAborted
from guard.gate import Policy, check_policy
from guard.stream._drivers import AsyncGuardedStream, GuardedStream
from guard.stream._engine import Engine

__all__ = [
    "ON_LEAK",
    "AsyncGuardedStream",
    "GuardError",
    "GuardedStream",
    "LeakAborted",
    "OnLeak",
    "check_on_leak",
    "guard_stream",
]

OnLeak = Literal["abort", "truncate", "recover", "report"]
#: What a guarded stream may do on a leak (see the module docstring).
ON_LEAK: tuple[OnLeak, ...] = ("abort", "truncate", "recover", "report")


def check_on_leak(value: object) -> OnLeak:
    """``value`` as an ``on_leak`` mode, or ``ValueError`` naming the modes."""
    if value not in ON_LEAK:
        raise ValueError(f"on_leak must be one of {', '.join(ON_LEAK)}; got {value!r}")
    return value


def guard_stream(
    source: Iterable[Any] | AsyncIterable[Any],
    *,
    dialect: str | Dialect = "harmony",
    policy: Policy | None = None,
    on_leak: OnLeak = "abort",
    recovery: Any = None,
    raw: bool | None = None,
) -> GuardedStream | AsyncGuardedStream:
    """Wrap a provider stream; see the module docstring.

    Args:
        source: a sync iterable or an async iterable of ``str`` deltas or chat completion chunks.
        dialect: the wire format (raw text is read with this dialect's scanner).
        policy: the gate's rules (default: docs/detection.md, "Default policy").
        on_leak: ``abort``, ``truncate``, ``recover`` or ``report``.
        recovery: a strategy object for ``recover`` (default: the one the policy names).
        raw: force raw-text (True) or chunk (False) handling; default: decided by the first item.

    Returns:
        A :class:`GuardedStream` for a sync source, an :class:`AsyncGuardedStream` for an async
        one; both expose ``verdicts``, ``forged``, ``cut``, ``chars_dropped``, ``outcomes`` and
        ``upstream_closed`` during and after iteration.
    """
    engine = Engine(
        get_dialect(dialect), check_policy(policy), check_on_leak(on_leak), recovery, raw
    )
    if hasattr(source, "__aiter__"):
        return AsyncGuardedStream(cast(AsyncIterable[Any], source), engine)
    if hasattr(source, "__iter__") and not isinstance(source, str | bytes):
        return GuardedStream(source, engine)
    raise TypeError(
        f"guard_stream() expects an iterable or async iterable, got {type(source).__name__}"
    )
