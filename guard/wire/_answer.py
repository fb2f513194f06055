"""Complete answers, deny by default: after the protocol judge has read the surfaces it knows
(content, reasoning, tool calls, ...), every other string the model wrote is judged as text.

The strings read are those under each chat ``choices[]``, each Responses ``output[]`` item and
each Messages ``content[]`` block, at any depth; the fields of :data:`EXEMPT_KEYS` (ids, enums,
opaque signatures) are skipped while they look like one (:mod:`guard.wire._exempt`), and so are
the fields the protocol judge already read. A leaking string is cut at the verdict's cut
(``on_leak="report"``: only reported). Logprobs of a chat
choice whose text was cut are cut with it.

:func:`guard_action` names what was done in the terms of the ``x-guard-action`` header.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from guard._depth import check_depth
from guard._detect import detect
from guard.dialects import Dialect
from guard.errors import LeakAborted, NestingError
from guard.gate import Policy
from guard.integrations.anthropic.protocol import guard_message, message_parts
from guard.integrations.openai.protocol import (
    AbortMode,
    GuardResult,
    Part,
    chat_parts,
    guard_chat_completion,
    guard_response,
    response_parts,
)
from guard.models import Surface, Verdict
from guard.wire._exempt import EXEMPT_KEYS, skipped

__all__ = [
    "EXEMPT_KEYS",
    "BadAnswer",
    "ExtraResult",
    "JudgedAnswer",
    "guard_action",
    "judge_answer",
    "judge_other_strings",
]

_WALKS: dict[str, tuple[str, Callable[[Any], list[Part]]]] = {
    "chat": ("choices", chat_parts),
    "responses": ("output", response_parts),
    "messages": ("content", message_parts),
}


@dataclass
class ExtraResult:
    """What the judge of the other strings found: verdicts that leak, and the paths it cut."""

    verdicts: list[Verdict] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)


def _strings(node: Any, path: str) -> Iterator[tuple[Any, Any, str, str]]:
    """(owner, key, text, path) of every string under ``node``, exempt keys skipped."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str) and skipped(key, value):
                continue
            here = f"{path}.{key}"
            if isinstance(value, str):
                yield node, key, value, here
            else:
                yield from _strings(value, here)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            here = f"{path}[{i}]"
            if isinstance(value, str):
                yield node, i, value, here
            else:
                yield from _strings(value, here)


def _cut_logprobs(choice: Any, message_key: str = "message") -> None:
    """Keep a choice's logprob tokens only as far as its (cut) text reaches."""
    logprobs = choice.get("logprobs")
    message = choice.get(message_key)
    if not isinstance(logprobs, dict) or not isinstance(message, dict):
        return
    for key in ("content", "refusal"):
        tokens = logprobs.get(key)
        if not isinstance(tokens, list):
            continue
        text = message.get(key)
        room = len(text) if isinstance(text, str) else 0
        kept = []
        for token in tokens:
            piece = token.get("token") if isinstance(token, dict) else None
            if not isinstance(piece, str) or len(piece) > room:
                break
            room -= len(piece)
            kept.append(token)
        if len(kept) < len(tokens):
            logprobs[key] = kept


def judge_other_strings(
    out: dict[str, Any],
    kind: str,
    dialect: str | Dialect,
    policy: Policy | None,
    on_leak: str,
    cut_choices: bool,
) -> ExtraResult:
    """Judge (and, unless ``on_leak="report"``, cut in place) every string of ``out`` the
    protocol judge does not read. ``out`` must be the caller's own copy. ``cut_choices``: the
    protocol judge changed the answer, so chat logprobs are re-fitted to the kept text."""
    list_key, walk = _WALKS[kind]
    known = {(id(p.owner), p.key) for p in walk(out)}
    result = ExtraResult()
    items = out.get(list_key)
    if not isinstance(items, list):
        return result
    for i, item in enumerate(items):
        changed = False
        for owner, key, text, path in list(_strings(item, f"{list_key}[{i}]")):
            if (id(owner), key) in known or not text.strip():
                continue
            verdict = detect(text, Surface.TEXT, dialect, policy)
            if not verdict.leak:
                continue
            result.verdicts.append(verdict.model_copy(update={"part": path}))
            if on_leak == "report":
                continue
            owner[key] = text[: verdict.cut or 0]
            result.cut.append(path)
            changed = True
        if kind == "chat" and isinstance(item, dict) and (changed or cut_choices):
            _cut_logprobs(item)
    return result


def guard_action(result: GuardResult, extra: ExtraResult, on_leak: str) -> str | None:
    """The ``x-guard-action`` of a judged JSON answer: ``aborted``, ``forged``, ``truncated``
    (cut or dropped), ``reported`` (a leak let through by ``on_leak="report"``), or none."""
    if result.aborted:
        return "aborted"
    if result.forged:
        return "forged"
    if result.changed or extra.cut:
        return "truncated"
    if result.leak or extra.verdicts:
        return "reported" if on_leak == "report" else "truncated"
    return None


_JUDGES: dict[str, Callable[..., tuple[Any, GuardResult]]] = {
    "chat": guard_chat_completion,
    "responses": guard_response,
    "messages": guard_message,
}


class BadAnswer(ValueError):
    """A complete answer the judge cannot read: not a JSON object, nested too deep, or of a
    shape the judge cannot read (deny by default: it is never relayed unjudged). The message
    completes "upstream sent ..."; ``cause`` names what was found (an error type, the type of a
    JSON value, or ``unreadable_shape``)."""

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message)
        self.cause = cause


@dataclass
class JudgedAnswer:
    """A complete answer judged: ``out`` the answer to give (``data`` itself when nothing
    changed), ``data`` the parsed one, what the protocol judge (``result``) and the judge of
    the other strings (``extra``) found, and the ``x-guard-action`` (None: nothing to say)."""

    out: Any
    data: dict[str, Any]
    result: GuardResult
    extra: ExtraResult
    action: str | None
    #: the error of an aborting leak (the answer itself is filtered), else None
    abort: LeakAborted | None = None

    @property
    def changed(self) -> bool:
        return self.out is not self.data

    @property
    def leak(self) -> bool:
        return self.result.leak or bool(self.extra.verdicts)

    @property
    def verdicts(self) -> list[Verdict]:
        """The leaking verdicts, the protocol judge's then the others'."""
        return [v for v in self.result.verdicts if v.leak] + self.extra.verdicts


#: errors a judge raises on a shape it cannot read (not :class:`guard.LeakAborted`)
_SHAPE_ERRORS = (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError)


def _unreadable(kind: str, why: str) -> str:
    return f"a {kind} answer whose shape guard cannot read ({why}); it is not relayed unjudged"


#: per API: the list of a complete answer that holds what the model wrote, and the key of the
#: object in each of its items that holds the text (which must be an object or a list of objects)
_ANSWER_SHAPES = {
    "chat": ("choices", "message", dict),
    "responses": ("output", "content", list),
    "messages": ("content", None, None),
}


def _unreadable_shape(kind: str, data: dict[str, Any]) -> str:
    """Why the judge cannot read a complete answer's shape ("" when it can): the list of
    choices, output items or content blocks missing or not a list of objects, or a choice's
    message / an output item's content of another type."""
    top, inner, inner_type = _ANSWER_SHAPES[kind]
    items = data.get(top)
    if not isinstance(items, list):
        return f"{top} is {type(items).__name__ if top in data else 'missing'}, not a list"
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            return f"{top}[{i}] is {type(item).__name__}, not an object"
        if inner is None or inner_type is None or item.get(inner) is None:
            continue
        value = item[inner]
        if not isinstance(value, inner_type):
            return f"{top}[{i}].{inner} is {type(value).__name__}"
        if inner_type is list and not all(isinstance(part, dict) for part in value):
            return f"{top}[{i}].{inner} holds an item that is not an object"
    return ""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # a Python frame per object: the interpreter may hand its lock to another thread here
    return dict(pairs)


def loads_yielding(data: bytes | str) -> Any:
    """``json.loads`` (duplicate keys: the last wins, as there) that lets other threads run
    between objects: one C call on a 16 MiB body would hold the interpreter's lock ~0.1 s
    (a proxy judging on a worker thread keeps its event loop answering)."""
    return json.loads(data, object_pairs_hook=_object)


def judge_answer(
    body: bytes,
    kind: str,
    dialect: str | Dialect,
    policy: Policy | None,
    on_leak: str,
    tools: frozenset[str] | None = None,
    abort: AbortMode = "filter",
) -> JudgedAnswer:
    """Judge the complete answer ``body`` of a route of ``kind`` (``chat``, ``responses``,
    ``messages``): the protocol judge, then every other string the model wrote (deny by
    default). Raises :class:`BadAnswer` for a body that is not a JSON object or nests too
    deep, and :class:`guard.LeakAborted` for an aborting leak with ``abort="raise"``."""
    try:
        data = loads_yielding(body)
        if isinstance(data, dict):
            check_depth(data, "upstream body")
    except (NestingError, RecursionError) as exc:
        raise BadAnswer("a body that is nested too deep", type(exc).__name__) from None
    except ValueError as exc:
        raise BadAnswer("a body that is not a JSON object", type(exc).__name__) from None
    if not isinstance(data, dict):
        raise BadAnswer("a body that is not a JSON object", type(data).__name__)
    unreadable = _unreadable_shape(kind, data)
    if unreadable:
        raise BadAnswer(_unreadable(kind, unreadable), "unreadable_shape")
    try:
        out, result = _JUDGES[kind](
            data, dialect=dialect, policy=policy, on_leak=on_leak, abort=abort, tools=tools
        )
    except _SHAPE_ERRORS as exc:  # a shape the judge cannot read (``choices[0].delta`` a list)
        raise BadAnswer(_unreadable(kind, type(exc).__name__), type(exc).__name__) from None
    mine = copy.deepcopy(out) if out is data else out
    extra = judge_other_strings(mine, kind, dialect, policy, on_leak, result.changed)
    if extra.cut or mine is out:
        out = mine
    error = None
    if result.aborted:  # the error a caller in the same process may raise: judged again
        try:
            _JUDGES[kind](data, dialect=dialect, policy=policy, on_leak=on_leak, tools=tools)
        except LeakAborted as exc:
            error = exc
    return JudgedAnswer(out, data, result, extra, guard_action(result, extra, on_leak), error)
