"""The report as a SARIF 2.1.0 log, for code-scanning UIs."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from guard.audit.report import AuditReport, Finding

__all__ = ["to_sarif"]

_RULES: list[dict[str, Any]] = [
    {
        "id": "guard/leak",
        "name": "WireFormatLeak",
        "shortDescription": {"text": "Model output leaks wire-format structure"},
        "fullDescription": {
            "text": "Visible text, thinking, tool arguments or a tool name carry control tokens,"
            " stripped envelopes or routing headers of the model's wire format: a server"
            " failed to parse the output or the model wrote structure as text."
        },
        "help": {
            "text": "Treat the message from the cut on as untrusted; see the signals for the"
            " evidence (guard README, 'Detecting leaks')."
        },
        "defaultConfiguration": {"level": "error"},
    },
    {
        "id": "guard/injection",
        "name": "ReservedSpellingInInput",
        "shortDescription": {"text": "Untrusted input carries reserved control spellings"},
        "fullDescription": {
            "text": "A user message or tool result contains exact reserved spellings of the"
            " dialect; sent unescaped, a server rejects the prompt or reads them as structure."
        },
        "help": {"text": "Escape untrusted text before it reaches the model (guard.escape)."},
        "defaultConfiguration": {"level": "warning"},
    },
    {
        "id": "guard/forgery",
        "name": "ForgedToolResult",
        "shortDescription": {"text": "A tool result written where the assistant was writing"},
        "fullDescription": {
            "text": "In a raw transcript, a tool-authored message starts inside an unfinished"
            " assistant message or follows an assistant message that did not end with the"
            " tool-call stop token: the model forged the host's tool result."
        },
        "help": {"text": "Stop generation at the forged result; never execute or show it."},
        "defaultConfiguration": {"level": "error"},
    },
]
_RULE_INDEX = {"leak": 0, "injection": 1, "forgery": 2}
_LEVEL = {"leak": "error", "injection": "warning", "forgery": "error"}


def _uri(path: str) -> str | None:
    if path.startswith("<") and path.endswith(">"):
        return None  # stdin or in-memory input: no artifact to point at
    p = Path(path)
    if p.is_absolute():
        return p.as_uri()
    return quote(p.as_posix() if os.sep == "/" else path.replace(os.sep, "/"))


def _location(path: str, line: int | None, logical: str | None = None) -> dict[str, Any]:
    location: dict[str, Any] = {}
    uri = _uri(path)
    if uri is not None:
        physical: dict[str, Any] = {"artifactLocation": {"uri": uri}}
        if line is not None:
            physical["region"] = {"startLine": line}
        location["physicalLocation"] = physical
    if logical is not None:
        location["logicalLocations"] = [{"name": logical, "kind": "element"}]
    elif uri is None:
        location["message"] = {"text": path}
    return location


def _fingerprint(f: Finding) -> str:
    key = "\x1f".join([f.path, str(f.line), str(f.message), f.part or "", f.kind, f.surface.value])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def to_sarif(report: AuditReport) -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log (a JSON-ready dict): one result per finding, one tool
    execution notification per error (level ``error``) and per skipped path (``note``)."""
    from guard import __version__

    results = []
    for f in report.findings:
        where = f"message {f.message}" + (f" {f.part}" if f.part else "")
        results.append(
            {
                "ruleId": _RULES[_RULE_INDEX[f.kind]]["id"],
                "ruleIndex": _RULE_INDEX[f.kind],
                "level": _LEVEL[f.kind],
                "message": {
                    "text": f"{f.kind} on {f.surface.value} ({f.role}, {where}): {f.reason}"
                },
                "locations": [_location(f.path, f.line, where)],
                "partialFingerprints": {"guardFinding/v1": _fingerprint(f)},
                "properties": {
                    "surface": f.surface.value,
                    "kind": f.kind,
                    "signals": list(f.signals),
                    "cut": f.cut,
                    "role": f.role,
                    "message": f.message,
                    "part": f.part,
                    "toolName": f.tool_name,
                    "preview": f.preview,
                },
            }
        )
    notifications = [
        {
            "level": "error",
            "message": {"text": e.error},
            "locations": [_location(e.path, e.line)],
        }
        for e in report.errors
    ]
    notifications += [
        {
            "level": "note",
            "message": {"text": f"skipped: {skipped.reason}"},
            "locations": [_location(skipped.path, None)],
        }
        for skipped in report.summary.skipped
    ]
    s = report.summary
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "guard",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": _RULES,
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": s.transcripts > 0,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "columnKind": "unicodeCodePoints",
                "results": results,
                "properties": {
                    "transcripts": s.transcripts,
                    "messages": s.messages,
                    "bytes": s.bytes,
                    "leaks": s.leaks,
                    "injections": s.injections,
                    "forgeries": s.forgeries,
                    "errors": s.errors,
                },
            }
        ],
    }
