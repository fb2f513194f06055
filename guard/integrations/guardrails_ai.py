"""guard as a Guardrails AI validator: :class:`InbandLeak` (install
``inband-guard[guardrails]``).

``Guard().use(InbandLeak(on_fail=...))``: a string is judged as model text and fails on a leak
verdict, with the text before the cut as its fix. Guardrails AI's ``on_fail`` then says what
happens, as guard's ``on_leak`` would:

* ``fix``: the text cut at the cut (guard's ``truncate``);
* ``exception``: Guardrails AI raises its ``ValidationError`` (guard's ``abort``);
* ``noop``: the text passes unchanged and the failure is recorded (guard's ``report``).

The error message names the verdict's reason, never the text. ``dialect`` defaults to every
dialect's spellings (``all``).
"""

from __future__ import annotations

from typing import Any

from guard.integrations._extras import missing_extra

try:
    from guardrails.validator_base import (
        FailResult,
        PassResult,
        ValidationResult,
        Validator,
        register_validator,
    )
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_extra(__name__, "Guardrails AI", "guardrails") from exc

from guard._detect import detect
from guard.dialects import get_dialect
from guard.models import Surface

__all__ = ["VALIDATOR_NAME", "InbandLeak"]

#: the validator's name in Guardrails AI's registry
VALIDATOR_NAME = "inband-guard/leak"


@register_validator(name=VALIDATOR_NAME, data_type="string")
class InbandLeak(Validator):  # type: ignore[misc]
    """Fails a string that leaks in-band structure (see the module); the fix is the text before
    the cut."""

    def __init__(self, dialect: str = "all", on_fail: Any = None, **kwargs: Any) -> None:
        super().__init__(on_fail=on_fail, dialect=dialect, **kwargs)
        self.dialect = get_dialect(dialect)

    def validate(self, value: Any, metadata: dict[str, Any]) -> ValidationResult:
        if not isinstance(value, str):
            return FailResult(
                error_message=f"guard: expected text, got {type(value).__name__}", fix_value=""
            )
        verdict = detect(value, Surface.TEXT, self.dialect)
        if not verdict.leak:
            return PassResult()
        cut = verdict.cut or 0
        return FailResult(
            error_message=f"guard: in-band control text in the model's answer: {verdict.reason}",
            fix_value=value[:cut],
        )
