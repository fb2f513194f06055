"""Public detection API: :func:`detect` for one text, :func:`detect_message` for an assistant
message with all its surfaces."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from guard._fields import get_field
from guard.dialects import get_dialect
from guard.errors import UnknownNameError
from guard.gate import Detector, Policy, resolve_detector
from guard.models import Dialect, Surface, Verdict

__all__ = ["detect", "detect_message", "tool_names"]

_SURFACES = ", ".join(s.value for s in Surface)


def _surface(value: object) -> Surface:
    if isinstance(value, Surface):
        return value
    if not isinstance(value, str):
        raise TypeError(f"surface must be a str, got {type(value).__name__}")
    try:
        return Surface(value)
    except ValueError:
        raise UnknownNameError(f"unknown surface {value!r}; expected one of: {_SURFACES}") from None


def tool_names(tools: Any) -> frozenset[str] | None:
    """The declared tool names from ``tools``: ``None`` (unknown), or an iterable of names
    (``"get_weather"``) and tool definitions (OpenAI chat ``{"type": "function", "function":
    {"name": ...}}``, Responses/Anthropic style ``{"name": ...}``, as dicts or SDK objects)."""
    if tools is None:
        return None
    if isinstance(tools, str | bytes) or not isinstance(tools, Iterable):
        raise TypeError(
            f"tools must be a list of tool names or tool definitions, got {type(tools).__name__}"
        )
    names: set[str] = set()
    for i, tool in enumerate(tools):
        if isinstance(tool, str):
            names.add(tool)
            continue
        function = get_field(tool, "function")
        name = get_field(function, "name") if function is not None else get_field(tool, "name")
        if not isinstance(name, str):
            raise TypeError(
                f"tools[{i}]: expected a tool name or a definition with function.name or name,"
                f" got {type(tool).__name__}"
            )
        names.add(name)
    return frozenset(names)


def detect(
    text: str,
    surface: Surface | str = "text",
    dialect: str | Dialect = "harmony",
    policy: Policy | None = None,
    parsed_end: int | None = None,
    tool_name: str | None = None,
    *,
    tools: Any = None,
    reasoning: bool | None = None,
    detector: Detector | None = None,
) -> Verdict:
    """Judge one piece of model output (or untrusted input) on one surface.

    Args:
        text: the text to judge.
        surface: ``text``, ``thinking``, ``tool_arg``, ``tool_name`` (model output) or ``user``,
            ``tool_result`` (input: an injection finding, never a leak).
        dialect: the wire format the model speaks (name, alias or record).
        policy: the gate's rules; default: docs/detection.md, "Default policy".
        parsed_end: for ``tool_arg``, where the valid arguments end; computed by the policy's
            boundary function for ``tool_name`` (JSON by default) when omitted.
        tool_name: the tool the arguments belong to.
        tools: the tools the request declared (names or OpenAI tool definitions); ``None``
            when unknown. With them, a tool name that is not declared is a leak (U) and a tool
            call written as text counts when it names a declared tool (J).
        reasoning: whether the message this text belongs to carried a reasoning part
            (``None``: unknown). An answer without one that opens in the reasoning voice is a
            leak (V).
        detector: the :class:`~guard.gate.Detector` that judges (its signals, and its policy
            unless ``policy`` is given); default: the registered signals.

    Raises:
        TypeError: ``text`` is not a string, or another argument has the wrong type.
        ValueError: unknown surface or dialect, or a negative ``parsed_end``.
    """
    if not isinstance(text, str):
        raise TypeError(f"detect() expects text as str, got {type(text).__name__}")
    surface_ = _surface(surface)
    dialect_ = get_dialect(dialect)
    judge = resolve_detector(detector, policy)
    if parsed_end is not None:
        if not isinstance(parsed_end, int) or isinstance(parsed_end, bool):
            raise TypeError(f"parsed_end must be an int or None, got {type(parsed_end).__name__}")
        if parsed_end < 0:
            raise ValueError(f"parsed_end must be >= 0, got {parsed_end}")
    if tool_name is not None and not isinstance(tool_name, str):
        raise TypeError(f"tool_name must be a str or None, got {type(tool_name).__name__}")
    if reasoning is not None and not isinstance(reasoning, bool):
        raise TypeError(f"reasoning must be a bool or None, got {type(reasoning).__name__}")
    return judge.evaluate(
        text,
        surface_,
        dialect_,
        parsed_end=parsed_end,
        tool_name=tool_name,
        reasoning=reasoning,
        tools=tool_names(tools),
    )


def detect_message(
    message: Any,
    dialect: str | Dialect = "harmony",
    policy: Policy | None = None,
    *,
    tools: Any = None,
    detector: Detector | None = None,
) -> list[Verdict]:
    """One verdict per surface part of an OpenAI-style assistant message (a dict or an SDK
    object): ``content`` (a string or text parts) as ``text``, ``reasoning_content`` /
    ``reasoning`` as ``thinking``, and for each ``tool_calls[i]`` its ``function.name`` as
    ``tool_name`` and ``function.arguments`` as ``tool_arg``. Each verdict's ``part`` names
    where it came from (``content``, ``content[1]``, ``tool_calls[0].function.arguments``, ...).

    ``tools`` are the request's declared tools (names or definitions). For a dialect of
    reasoning models (one with reasoning markers, such as Harmony) the message's reasoning part
    is context: content that opens in the reasoning voice while the message has no reasoning
    part is a leak (V). ``detector`` is as for :func:`detect`.
    """
    if message is None or isinstance(message, str | bytes | int | float):
        raise TypeError(
            f"detect_message() expects a message mapping or object, got {type(message).__name__}"
        )
    declared = tool_names(tools)
    dialect_ = get_dialect(dialect)
    verdicts: list[Verdict] = []
    has_reasoning = any(
        isinstance(get_field(message, key), str) and get_field(message, key).strip()
        for key in ("reasoning_content", "reasoning")
    )
    reasoning = has_reasoning if dialect_.thinking else None

    def judge(text: Any, surface: str, part: str, tool_name: str | None = None) -> None:
        if isinstance(text, str):
            v = detect(
                text,
                surface,
                dialect_,
                policy,
                tool_name=tool_name,
                tools=declared,
                reasoning=reasoning if surface == "text" else None,
                detector=detector,
            )
            verdicts.append(v.model_copy(update={"part": part}))

    content = get_field(message, "content")
    if isinstance(content, str):
        judge(content, "text", "content")
    elif isinstance(content, list):
        for i, item in enumerate(content):
            judge(
                item if isinstance(item, str) else get_field(item, "text"), "text", f"content[{i}]"
            )
    for key in ("reasoning_content", "reasoning"):
        judge(get_field(message, key), "thinking", key)
    for i, call in enumerate(get_field(message, "tool_calls") or ()):
        function = get_field(call, "function")
        if function is None:
            continue
        name = get_field(function, "name")
        judge(name, "tool_name", f"tool_calls[{i}].function.name")
        judge(
            get_field(function, "arguments"),
            "tool_arg",
            f"tool_calls[{i}].function.arguments",
            tool_name=name if isinstance(name, str) else None,
        )
    return verdicts
