"""Library-friendly structured logging.

guard logs through structlog as events with stable names (``guard.escape``, ``guard.leak``, ...).
A library must stay silent unless the application asks for output, but an unconfigured structlog
prints to stdout. So: when the application has configured structlog, events go to structlog; when
it has not, they go to the stdlib logger of the same name (which carries a ``NullHandler``), as a
``logging`` record whose message is the event name and whose ``extra`` holds the fields. Either
way the application decides. Fields never carry raw user or model text: use :func:`preview`.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

__all__ = ["Logger", "get_logger", "preview"]

logging.getLogger("guard").addHandler(logging.NullHandler())

_PREVIEW_CHARS = 24


def preview(text: str, limit: int = _PREVIEW_CHARS) -> str:
    """A short redacted preview: the first characters with letters and digits masked.

    Punctuation and control-token shape survive (they are what a reader needs to see);
    words and numbers, which may be personal data, do not.
    """
    head = text[:limit]
    masked = "".join("x" if ch.isalnum() else ch for ch in head)
    return masked + ("..." if len(text) > limit else "")


class Logger:
    """A tiny facade with structlog's call shape: ``log.info("event.name", key=value)``."""

    __slots__ = ("_name", "_stdlib")

    def __init__(self, name: str) -> None:
        self._name = name
        self._stdlib = logging.getLogger(name)

    def _emit(self, level: int, event: str, fields: dict[str, Any]) -> None:
        # structlog is not imported here: an application that configured it has imported it,
        # and one that has not pays nothing for it (it also imports asyncio: start-up time)
        structlog = sys.modules.get("structlog")
        if structlog is not None and structlog.is_configured():
            structlog.get_logger(self._name).log(level, event, **fields)
        elif self._stdlib.isEnabledFor(level):
            self._stdlib.log(level, event, extra={"guard_event": event, "guard_fields": fields})

    def debug(self, event: str, **fields: Any) -> None:
        self._emit(logging.DEBUG, event, fields)

    def info(self, event: str, **fields: Any) -> None:
        self._emit(logging.INFO, event, fields)

    def warning(self, event: str, **fields: Any) -> None:
        self._emit(logging.WARNING, event, fields)

    def error(self, event: str, **fields: Any) -> None:
        self._emit(logging.ERROR, event, fields)


def get_logger(name: str) -> Logger:
    return Logger(name)
