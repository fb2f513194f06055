"""Render the official chat templates in ``tests/data/templates`` the way Hugging Face
``transformers`` does, and cut one assistant turn out of a rendered conversation."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import jinja2
import jinja2.ext
import jinja2.sandbox

from support.paths import DATA

__all__ = ["TEMPLATES", "assistant_turn", "render"]

TEMPLATES = DATA / "templates"


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    # transformers' filter: plain json.dumps, not jinja2's HTML-safe one.
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def _raise(message: str) -> None:
    raise jinja2.TemplateError(message)


@cache
def _template(name: str) -> jinja2.Template:
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise
    return env.from_string((TEMPLATES / name).read_text(encoding="utf-8"))


def render(
    name: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    add_generation_prompt: bool = False,
    **variables: Any,
) -> str:
    """The template ``name`` applied to ``messages`` (no tools)."""
    return _template(name).render(
        messages=list(messages), add_generation_prompt=add_generation_prompt, **variables
    )


def assistant_turn(
    name: str,
    messages: Sequence[Mapping[str, Any]],
    k: int,
    opener: str,
    **variables: Any,
) -> tuple[str, str]:
    """``(before, output)``: what the template writes before assistant message ``k`` and the
    model output it writes for it (the turn without its role ``opener``, when present).

    Some templates write earlier turns differently once a final answer follows (Kimi K2 drops
    their reasoning); then the turn is what follows the last ``opener``."""
    before = render(name, messages[:k], **variables)
    full = render(name, messages[: k + 1], **variables)
    if not full.startswith(before):
        assert opener, f"{name}: rendering message {k} changed what came before"
        cut = full.rindex(opener)
        return full[: cut + len(opener)], full[cut + len(opener) :]
    turn = full[len(before) :]
    if turn.startswith(opener):
        before += opener
        turn = turn[len(opener) :]
    return before, turn
