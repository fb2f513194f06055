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

from guard.errors import GuardError, LeakAborted
from guard.stream._chunks import ChunkReader
from guard.stream._decisions import ON_LEAK, OnLeak, check_on_leak
from guard.stream._drivers import AsyncGuardedStream, GuardedStream, guard_stream
from guard.stream._engine import Engine
from guard.stream._forward import Forwarded
from guard.stream._queue import Call, CallSet

# ``Engine``, ``ChunkReader``, ``Call`` and ``CallSet``: the sans-IO engine under the drivers,
# for the wire engine's one-engine-per-choice chat guard (guard.wire); ``Forwarded``: a finding
# read off the object that holds it, for the wrappers around a guarded stream

__all__ = [
    "ON_LEAK",
    "AsyncGuardedStream",
    "Call",
    "CallSet",
    "ChunkReader",
    "Engine",
    "Forwarded",
    "GuardError",
    "GuardedStream",
    "LeakAborted",
    "OnLeak",
    "check_on_leak",
    "guard_stream",
]
