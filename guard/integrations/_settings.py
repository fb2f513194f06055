"""The settings of a framework integration, per request: one dialect for every model, or each
model's own (:func:`guard.dialects.dialect_for_model`), checked once and cached."""

from __future__ import annotations

from collections.abc import Mapping

from guard.dialects import Dialect, dialect_for_model
from guard.gate import Policy
from guard.integrations.openai.protocol import GuardSettings
from guard.stream import OnLeak

__all__ = ["ModelSettings"]


class ModelSettings:
    """``dialect`` fixed, or ``None``: each request's from its model name (``dialects`` keys
    first, then :data:`guard.dialects.MODEL_DIALECTS`). Bad values fail here, not per
    request."""

    def __init__(
        self,
        dialect: str | Dialect | None = None,
        dialects: Mapping[str, str] | None = None,
        policy: Policy | None = None,
        on_leak: OnLeak = "truncate",
        escape_inputs: bool = True,
    ) -> None:
        self.dialect = dialect
        self.dialects = dict(dialects or {})
        self.policy = policy
        self.on_leak = on_leak
        self.escape_inputs = escape_inputs
        self._cache: dict[str, GuardSettings] = {}
        if dialect is not None:
            self._resolved(dialect)
        else:
            for name in {*self.dialects.values(), dialect_for_model(None)}:
                self._resolved(name)

    def _resolved(self, name: str | Dialect) -> GuardSettings:
        key = name if isinstance(name, str) else name.name
        settings = self._cache.get(key)
        if settings is None:
            settings = GuardSettings.resolve(name, self.policy, self.on_leak, self.escape_inputs)
            self._cache[key] = settings
        return settings

    def for_model(self, model: object) -> GuardSettings:
        """The settings for a request to ``model`` (a name; anything else counts as unknown)."""
        if self.dialect is not None:
            return self._resolved(self.dialect)
        name = model if isinstance(model, str) else None
        return self._resolved(dialect_for_model(name, self.dialects))

    def describe(self) -> str:
        """The dialect as a repr shows it."""
        if self.dialect is None:
            return "by model"
        return self.dialect if isinstance(self.dialect, str) else self.dialect.name
