"""The checked settings a guarded client, call or stream works with."""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

from guard._detect import detect
from guard._fields import get_field
from guard.dialects import Dialect, get_dialect
from guard.gate import Policy, check_policy
from guard.models import Verdict
from guard.stream import AsyncGuardedStream, GuardedStream, OnLeak, check_on_leak, guard_stream

if TYPE_CHECKING:
    from guard.integrations.openai.protocol._parts import Part

__all__ = ["AbortMode", "GuardSettings", "check_abort", "declared_tools", "request_tools"]

AbortMode = Literal["raise", "filter"]
"""What an aborting leak does to a complete response or a Responses stream: ``raise``
:class:`guard.LeakAborted` (the client wrapper) or ``filter``: cut it and mark it
``content_filter`` (the proxy)."""


def check_abort(value: object) -> AbortMode:
    """``value`` as an abort mode, or ``ValueError`` naming the modes (as ``guard.transport``
    words it)."""
    if value not in get_args(AbortMode):
        raise ValueError(f"abort must be 'raise' or 'filter', got {value!r}")
    return cast(AbortMode, value)


def declared_tools(tools: Any) -> frozenset[str] | None:
    """The names of the tools a request declares, read leniently from its ``tools`` (or legacy
    ``functions``) list: OpenAI chat definitions (``function.name``), Responses and Anthropic
    ones (``name``), plain names. Entries without a name (built-in tools such as
    ``{"type": "web_search"}``, whose calls are not function calls) are skipped. ``None``
    (unknown: the undeclared-tool check stays off) when there is no list or no name in it."""
    if tools is None or isinstance(tools, str | bytes | Mapping) or not isinstance(tools, Iterable):
        return None
    names: set[str] = set()
    for tool in tools:
        if isinstance(tool, str):
            names.add(tool)
            continue
        function = get_field(tool, "function")
        name = get_field(function, "name") if function is not None else get_field(tool, "name")
        if isinstance(name, str):
            names.add(name)
    return frozenset(names) or None


def request_tools(params: Mapping[str, Any]) -> frozenset[str] | None:
    """:func:`declared_tools` of a request body (chat, Responses or Anthropic Messages): its
    ``tools``, else its legacy ``functions``."""
    tools = params.get("tools")
    return declared_tools(params.get("functions") if tools is None else tools)


@dataclass(frozen=True)
class GuardSettings:
    """Dialect, policy and ``on_leak`` mode, checked once; ``escape_inputs`` says whether
    requests are escaped (the client wrapper's option); ``tools`` are the declared tool names
    of the request being judged (``None``: unknown), see :meth:`for_request`."""

    dialect: Dialect
    policy: Policy
    on_leak: OnLeak
    escape_inputs: bool = True
    tools: frozenset[str] | None = None

    @classmethod
    def resolve(
        cls,
        dialect: str | Dialect = "harmony",
        policy: Policy | None = None,
        on_leak: object = "truncate",
        escape_inputs: bool = True,
        tools: Any = None,
    ) -> GuardSettings:
        """Check the arguments (``ValueError`` for an unknown ``on_leak`` or dialect,
        ``TypeError`` for a policy that is not a :class:`guard.Policy`); ``tools`` as
        :func:`declared_tools` reads them."""
        mode = check_on_leak(on_leak)
        rules = check_policy(policy)
        return cls(get_dialect(dialect), rules, mode, escape_inputs, declared_tools(tools))

    def for_request(self, params: Mapping[str, Any]) -> GuardSettings:
        """These settings for one request: its declared tools (``tools``, else ``functions``)
        become the context of the response's judge (``docs/detection.md``, "Context")."""
        declared = request_tools(params)
        return self if declared == self.tools else replace(self, tools=declared)

    def judge(self, part: Part, reasoning: bool | None = None) -> Verdict:
        """The verdict on one part of a response (named by it); ``reasoning``: whether its
        message carried a reasoning part (``None``: unknown)."""
        return detect(
            part.text,
            part.surface,
            self.dialect,
            self.policy,
            tool_name=part.tool_name,
            tools=self.tools,
            reasoning=reasoning,
        ).model_copy(update={"part": part.name})

    def guard_chunks(
        self, source: Iterable[Any] | AsyncIterable[Any]
    ) -> GuardedStream | AsyncGuardedStream:
        """:func:`guard.guard_stream` over chat-completion-shaped chunks with these settings."""
        return guard_stream(
            source,
            dialect=self.dialect,
            policy=self.policy,
            on_leak=self.on_leak,
            raw=False,
            tools=self.tools,
        )
