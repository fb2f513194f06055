"""Logging for ``guard serve``: one access record per request, and JSON lines on stderr.

Records carry what happened (method, path, status, duration, upstream status, chunks, forged,
...), never request or response bodies.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from guard._log import get_logger

__all__ = ["AccessRecord", "JSONLinesFormatter", "configure_logging", "log"]

#: the logger of every ``guard serve`` event
log = get_logger("guard.serve")


@dataclass
class AccessRecord:
    """The access log record of one request: fields gathered while it runs, emitted once as
    ``guard.serve.request``."""

    method: str
    path: str
    start: float = field(default_factory=time.perf_counter)
    fields: dict[str, Any] = field(default_factory=dict)

    def emit(self, status: int) -> None:
        log.info(
            "guard.serve.request",
            method=self.method,
            path=self.path,
            status=status,
            duration_ms=round((time.perf_counter() - self.start) * 1000, 2),
            **self.fields,
        )


class JSONLinesFormatter(logging.Formatter):
    """One JSON object per log record: time, level, event name and the event's fields."""

    def format(self, record: logging.LogRecord) -> str:
        event = getattr(record, "guard_event", None) or record.getMessage()
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "event": event,
        }
        out.update(getattr(record, "guard_fields", {}) or {})
        return json.dumps(out, ensure_ascii=False, default=str)


def configure_logging(stream: Any = None, level: int = logging.INFO) -> None:
    """Send guard's structured events to ``stream`` (stderr) as JSON lines."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JSONLinesFormatter())
    logger = logging.getLogger("guard")
    logger.addHandler(handler)
    logger.setLevel(level)
