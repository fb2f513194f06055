"""The choices of ``guard audit``'s options, kept free of imports: the command line builds its
``--help`` from them without loading the audit."""

from __future__ import annotations

__all__ = ["FAIL_ON", "FORMATS", "MAX_LINE_BYTES"]

#: Transcript formats ``guard audit`` reads; ``auto`` sniffs each file.
FORMATS = ("auto", "openai", "responses", "harmony", "chatglm3", "sharegpt", "raw", "text")
#: ``--fail-on`` choices, from most to least severe threshold.
FAIL_ON = ("leak", "injection", "none")
#: The default cap on one line of a transcript file (``--max-line-bytes``): a longer line is an
#: error entry and is never held whole.
MAX_LINE_BYTES = 64 << 20
