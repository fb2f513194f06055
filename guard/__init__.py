"""guard: keep in-band tool-calling streams safe.

The public surface is re-exported here; everything else lives in private modules.
"""

from __future__ import annotations

from .dialects import DIALECTS, Dialect, get_dialect
from .escape import escape, escape_json, escape_messages, escape_tools, unescape, unescape_json

__version__ = "0.1.0"

__all__ = [
    "DIALECTS",
    "Dialect",
    "__version__",
    "escape",
    "escape_json",
    "escape_messages",
    "escape_tools",
    "get_dialect",
    "unescape",
    "unescape_json",
]
