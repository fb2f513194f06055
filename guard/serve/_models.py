"""Model names no dialect claims: ``guard serve`` warns once per name which rules it got.

A request's dialect comes from its ``model`` name (the policy file's ``[serve.dialects]``, then
the built-in table, :data:`guard.dialects.MODEL_DIALECTS`) unless ``--dialect`` forces one. A
name neither table claims is escaped and judged for every dialect at once (the union of their
spellings): safe, but it may cut ordinary text that another family reserves, and the operator
should know. The names already warned about are kept in a set of at most
:data:`MAX_NAMES`; past it, one last event says so and no more are warned about (memory stays
bounded whatever names clients send).
"""

from __future__ import annotations

from collections.abc import Mapping

from guard.dialects import ALL, dialect_for_model
from guard.serve._logging import log

__all__ = ["MAX_NAMES", "UnknownModels"]

#: how many distinct unknown names are warned about (and remembered)
MAX_NAMES = 1024
#: how much of a name the warning shows
_SHOWN = 120


class UnknownModels:
    """Warns (``guard.serve.unknown_model``) the first time a model name no table claims is
    seen; ``table`` is the operator's ``[serve.dialects]``."""

    def __init__(self, table: Mapping[str, str] | None = None, limit: int = MAX_NAMES) -> None:
        self.table = dict(table or {})
        self.limit = limit
        self.seen: set[str] = set()
        self.capped = False

    def claimed(self, model: str) -> bool:
        """Does a key of the operator's table or the built-in one match ``model``?"""
        return dialect_for_model(model, self.table, default="") != ""

    def note(self, model: str | None, dialect: str) -> bool:
        """Warn if ``model`` is a name no table claims, seen for the first time; ``dialect``
        is the name of the rules it got. True when it warned."""
        if not model or model in self.seen or self.capped or self.claimed(model):
            return False
        if len(self.seen) >= self.limit:
            self.capped = True
            log.warning("guard.serve.unknown_model_capped", limit=self.limit)
            return False
        self.seen.add(model)
        rules = (
            "escaped and judged for every dialect at once (their union)"
            if dialect == ALL
            else f"escaped and judged for {dialect}"
        )
        log.warning(
            "guard.serve.unknown_model",
            model=model[:_SHOWN],
            dialect=dialect,
            rules=rules + "; map the name in the policy file's [serve.dialects] to choose",
        )
        return True
