"""The report as a SARIF 2.1.0 log, for code-scanning UIs."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from guard.audit.report import AuditReport, Finding

__all__ = ["SRCROOT", "STDIN_URI", "to_sarif"]

#: finding kind -> its rule: (name, level, short description, full description, help)
_RULE_TEXTS: dict[str, tuple[str, str, str, str, str]] = {
    "leak": (
        "WireFormatLeak",
        "error",
        "Model output leaks wire-format structure",
        "Visible text, thinking, tool arguments or a tool name carry control tokens,"
        " stripped envelopes or routing headers of the model's wire format: a server"
        " failed to parse the output or the model wrote structure as text.",
        "Treat the message from the cut on as untrusted; see the signals for the"
        " evidence (guard README, 'Detecting leaks').",
    ),
    "injection": (
        "ReservedSpellingInInput",
        "warning",
        "Untrusted input carries reserved control spellings",
        "A user message or tool result contains exact reserved spellings of the"
        " dialect; sent unescaped, a server rejects the prompt or reads them as structure.",
        "Escape untrusted text before it reaches the model (guard.escape).",
    ),
    "forgery": (
        "ForgedToolResult",
        "error",
        "A tool result written where the assistant was writing",
        "In a raw transcript, a tool-authored message starts inside an unfinished"
        " assistant message or follows an assistant message that did not end with the"
        " tool-call stop token: the model forged the host's tool result.",
        "Stop generation at the forged result; never execute or show it.",
    ),
}
_RULES: list[dict[str, Any]] = [
    {
        "id": f"guard/{kind}",
        "name": name,
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "help": {"text": help_},
        "defaultConfiguration": {"level": level},
    }
    for kind, (name, level, short, full, help_) in _RULE_TEXTS.items()
]
_RULE_INDEX = {kind: k for k, kind in enumerate(_RULE_TEXTS)}
_LEVEL = {kind: rule[1] for kind, rule in _RULE_TEXTS.items()}


#: the base every repository-relative URI is resolved against (GitHub maps it to the checkout)
SRCROOT = "%SRCROOT%"
#: the artifact URI of standard input unless ``stdin_uri`` renames it
STDIN_URI = "stdin"


class _Locator:
    """Artifact locations: paths under ``root`` relative to ``%SRCROOT%``, others absolute
    ``file:`` URIs; stdin is ``stdin_uri``, an in-memory transcript ``memory`` (both relative
    to ``%SRCROOT%``, as code scanning accepts only files under the checkout)."""

    def __init__(self, root: str | os.PathLike[str] | None, stdin_uri: str) -> None:
        self.root = Path(root if root is not None else os.getcwd()).resolve()
        self.stdin_uri = stdin_uri

    def artifact(self, path: str) -> dict[str, str]:
        if path == "<stdin>":
            return {"uri": _quote(self.stdin_uri), "uriBaseId": SRCROOT}
        if path.startswith("<") and path.endswith(">"):
            return {"uri": _quote(path[1:-1].replace(" ", "-")), "uriBaseId": SRCROOT}
        p = Path(path)
        absolute = p if p.is_absolute() else Path(os.getcwd()) / p
        try:
            relative = Path(os.path.normpath(absolute)).relative_to(self.root)
        except ValueError:
            return {"uri": Path(os.path.normpath(absolute)).as_uri()}
        return {"uri": _quote(relative.as_posix()), "uriBaseId": SRCROOT}

    def location(self, path: str, line: int | None, logical: str | None = None) -> dict[str, Any]:
        physical: dict[str, Any] = {"artifactLocation": self.artifact(path)}
        if line is not None:
            physical["region"] = {"startLine": line}
        location: dict[str, Any] = {"physicalLocation": physical}
        if logical is not None:
            location["logicalLocations"] = [{"name": logical, "kind": "element"}]
        return location

    def base_ids(self) -> dict[str, Any]:
        return {
            SRCROOT: {
                "uri": self.root.as_uri().rstrip("/") + "/",
                "description": {
                    "text": "the root of the relative URIs (--sarif-root, default: the working"
                    " directory)"
                },
            }
        }


def _quote(posix_path: str) -> str:
    return quote(posix_path.replace(os.sep, "/"), safe="/")


def _fingerprint(f: Finding, uri: str) -> str:
    """Stable across runs and machines: the repository-relative URI (not the absolute path),
    where in the file, what kind, and the evidence."""
    key = "\x1f".join(
        [uri, str(f.line), str(f.message), f.part or "", f.kind, f.surface.value, f.evidence]
    )
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def to_sarif(
    report: AuditReport,
    *,
    root: str | os.PathLike[str] | None = None,
    stdin_uri: str = STDIN_URI,
) -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log (a JSON-ready dict): one result per finding, one tool
    execution notification per error (level ``error``) and per skipped path (``note``).

    Every result has a physical location, as GitHub code scanning requires: paths under
    ``root`` (default: the working directory) become URIs relative to ``%SRCROOT%``
    (``originalUriBaseIds``), other paths absolute ``file:`` URIs, standard input
    ``stdin_uri`` (default ``stdin``). ``partialFingerprints`` depend on the relative URI, the
    finding's place and its evidence, not on where the checkout lies."""
    from guard import __version__

    if not stdin_uri or stdin_uri.startswith("/") or "://" in stdin_uri:
        raise ValueError(f"stdin_uri must be a relative path, got {stdin_uri!r}")
    locator = _Locator(root, stdin_uri)
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
                "locations": [locator.location(f.path, f.line, where)],
                "partialFingerprints": {
                    "guardFinding/v1": _fingerprint(f, locator.artifact(f.path)["uri"])
                },
                "properties": {
                    "surface": f.surface.value,
                    "kind": f.kind,
                    "signals": list(f.signals),
                    "cut": f.cut,
                    "role": f.role,
                    "message": f.message,
                    "part": f.part,
                    "toolName": f.tool_name,
                    "evidence": f.evidence,
                    "context": f.context,
                    "preview": f.preview,
                },
            }
        )
    notifications = [
        {
            "level": "error",
            "message": {"text": e.error},
            "locations": [locator.location(e.path, e.line)],
        }
        for e in report.errors
    ]
    notifications += [
        {
            "level": "note",
            "message": {"text": f"skipped: {skipped.reason}"},
            "locations": [locator.location(skipped.path, None)],
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
                "originalUriBaseIds": locator.base_ids(),
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
