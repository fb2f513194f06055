"""Parts named as the answer names them. The stream middleware names a part by its surface
(``text``, ``tool_arg[0]``); an SDK's answer by its field (``content``,
``tool_calls[0].function.arguments``, ``content[2].input``). Verdicts, cuts and an aborting
leak's verdict are renamed here, one way for every wrapper."""

from __future__ import annotations

from collections.abc import Callable

from guard.errors import LeakAborted
from guard.models import Verdict

__all__ = ["Rename", "renamed", "renamed_abort", "renamed_cut", "same"]

Rename = Callable[[str], str]


def same(name: str) -> str:
    return name


def renamed(verdicts: list[Verdict], rename: Rename) -> list[Verdict]:
    return [v.model_copy(update={"part": rename(v.part or "")}) for v in verdicts]


def renamed_cut(
    cut: dict[str, int], rename: Rename, offsets: type[dict[str, int]] = dict
) -> dict[str, int]:
    """``cut`` keyed by the renamed parts, as an ``offsets`` mapping."""
    return offsets({rename(k): v for k, v in cut.items()})


def renamed_abort(exc: LeakAborted, rename: Rename) -> LeakAborted:
    """The error of an aborting leak, its part renamed."""
    return LeakAborted(renamed([exc.verdict], rename)[0], exc.withheld)
