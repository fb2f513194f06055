"""guard: keep in-band tool-calling streams safe.

The public surface is re-exported here, lazily (PEP 562): ``import guard`` loads only this
module and the version, and each name loads its own module the first time it is used, so a
program that only escapes text never imports the audit, the proxy or an integration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING as _TYPE_CHECKING

from guard._lazy import lazy_exports as _lazy_exports
from guard._version import __version__ as __version__

if _TYPE_CHECKING:
    from guard._detect import detect as detect
    from guard._detect import detect_message as detect_message
    from guard._escape import escape as escape
    from guard._escape import escape_json as escape_json
    from guard._escape import escape_messages as escape_messages
    from guard._escape import escape_tools as escape_tools
    from guard._escape import unescape as unescape
    from guard._escape import unescape_json as unescape_json
    from guard.audit import AuditReport as AuditReport
    from guard.audit import RowAuditor as RowAuditor
    from guard.audit import audit as audit
    from guard.audit import audit_rows as audit_rows
    from guard.dialects import DIALECTS as DIALECTS
    from guard.dialects import Dialect as Dialect
    from guard.dialects import get_dialect as get_dialect
    from guard.errors import GuardError as GuardError
    from guard.errors import LeakAborted as LeakAborted
    from guard.errors import PolicyError as PolicyError
    from guard.gate import DEFAULT_POLICY as DEFAULT_POLICY
    from guard.gate import Policy as Policy
    from guard.gate import SurfaceRule as SurfaceRule
    from guard.models import Hit as Hit
    from guard.models import ScanContext as ScanContext
    from guard.models import Surface as Surface
    from guard.models import Verdict as Verdict
    from guard.scanners import register_scanner as register_scanner
    from guard.scanners import scanner as scanner
    from guard.stream import AsyncGuardedStream as AsyncGuardedStream
    from guard.stream import GuardedStream as GuardedStream
    from guard.stream import guard_stream as guard_stream
    from guard.transport import async_http_client as async_http_client
    from guard.transport import http_client as http_client

# Each name is cached on first use. Loading `audit` imports `guard.audit`, which binds the
# subpackage to the name here first; caching then rebinds the name to the function, which is
# what `guard.audit(...)` means (the subpackage forwards calls too).
__getattr__, __dir__ = _lazy_exports(__name__, globals())
