"""guard: keep in-band tool-calling streams safe.

The public surface is re-exported here; everything else lives in private modules.
"""

from __future__ import annotations

from .audit import AuditReport, audit
from .detect import detect, detect_message
from .dialects import DIALECTS, Dialect, get_dialect
from .escape import escape, escape_json, escape_messages, escape_tools, unescape, unescape_json
from .models import Hit, ScanContext, Surface, Verdict
from .policy import DEFAULT_POLICY, Policy, PolicyError, SurfaceRule
from .scanning import register_scanner, scanner
from .stream import AsyncGuardedStream, GuardedStream, GuardError, LeakAborted, guard_stream

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_POLICY",
    "DIALECTS",
    "AsyncGuardedStream",
    "AuditReport",
    "Dialect",
    "GuardError",
    "GuardedStream",
    "Hit",
    "LeakAborted",
    "Policy",
    "PolicyError",
    "ScanContext",
    "Surface",
    "SurfaceRule",
    "Verdict",
    "__version__",
    "audit",
    "detect",
    "detect_message",
    "escape",
    "escape_json",
    "escape_messages",
    "escape_tools",
    "get_dialect",
    "guard_stream",
    "register_scanner",
    "scanner",
    "unescape",
    "unescape_json",
]
