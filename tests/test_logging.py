"""Logging: structured events with stable names, silent by default, no raw text."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest
import structlog
from structlog.testing import capture_logs

import guard

SECRET = "Patient Alice Smith"


def test_library_prints_nothing_when_structlog_is_not_configured() -> None:
    code = (
        "import guard; guard.escape('<|start|>'); "
        f"guard.detect('{SECRET} analysis to=functions.edit code 大发')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "" and out.stderr == ""


def test_leak_event_is_structured_and_redacted() -> None:
    structlog.configure(processors=[])
    try:
        with capture_logs() as logs:
            guard.detect(f"{SECRET} analysis to=functions.edit code 大发官网")
    finally:
        structlog.reset_defaults()
    events = [e for e in logs if e["event"] == "guard.leak"]
    assert len(events) == 1
    event = events[0]
    assert event["surface"] == "text" and event["signals"] == ["M", "C", "S"]
    # the cut starts at the channel word before the marker (docs/detection.md, "Gate")
    assert event["cut"] == len(SECRET) + len(" ")
    assert "Alice" not in repr(event) and "edit" not in repr(event)


def test_escape_event_has_counts_not_text() -> None:
    structlog.configure(processors=[])
    try:
        with capture_logs() as logs:
            guard.escape(f"{SECRET} <|start|><|end|>")
            guard.escape("clean text")  # nothing changed: no event
    finally:
        structlog.reset_defaults()
    assert [e["event"] for e in logs] == ["guard.escape"]
    assert logs[0]["spellings"] == 2 and "Alice" not in repr(logs[0])


def test_stdlib_logging_receives_events_when_structlog_is_not_configured(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.DEBUG, logger="guard"):
        guard.escape("<|call|>")
    records = [r for r in caplog.records if r.getMessage() == "guard.escape"]
    assert records and records[0].guard_fields["spellings"] == 1  # type: ignore[attr-defined]
