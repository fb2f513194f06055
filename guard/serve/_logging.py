"""Logging for ``guard serve``: one access record per request, and JSON lines on stderr.

Records carry what happened (method, path, status, duration, upstream status, chunks, forged,
..., and the ``outcome`` in the words of :mod:`guard.serve._outcome`), never request or response
bodies.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from guard._log import get_logger
from guard.serve._outcome import outcome_of

__all__ = [
    "OBSERVATION",
    "AccessRecord",
    "JSONLinesFormatter",
    "Observation",
    "configure_logging",
    "log",
]

#: the logger of every ``guard serve`` event
log = get_logger("guard.serve")


@dataclass
class Observation:
    """What metrics and traces learn of one request (:mod:`guard.serve._metrics`): the access
    record's status, path and fields, and the verdicts behind them (never logged)."""

    status: int | None = None
    #: the status of the response start, for requests that emit no access record
    started: int | None = None
    path: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    verdicts: list[Any] = field(default_factory=list)


#: the observation of the request being handled (set by ``_metrics.Observe``)
OBSERVATION: contextvars.ContextVar[Observation | None] = contextvars.ContextVar(
    "guard_serve_observation", default=None
)


@dataclass
class AccessRecord:
    """The access log record of one request: fields gathered while it runs, emitted once as
    ``guard.serve.request``."""

    method: str
    path: str
    start: float = field(default_factory=time.perf_counter)
    fields: dict[str, Any] = field(default_factory=dict)
    #: the verdicts behind ``leak`` / ``forged`` (for metrics; never logged)
    verdicts: list[Any] = field(default_factory=list)

    def emit(self, status: int) -> None:
        """Log the record, with its ``outcome`` (the same word the metrics count)."""
        self.fields["outcome"] = outcome_of(status, self.fields)
        observation = OBSERVATION.get()
        if observation is not None:
            observation.status = status
            observation.path = self.path
            observation.fields = dict(self.fields)
            observation.verdicts = list(self.verdicts)
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
