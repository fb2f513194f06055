"""Qwen3-Coder scanner.

Qwen3-Coder speaks ChatML with XML-style calls (Qwen3-Coder chat template; vLLM and SGLang
``qwen3_coder`` parsers)::

    <tool_call>
    <function=NAME>
    <parameter=KEY>
    VALUE
    </parameter>
    </function>
    </tool_call>

The scanner is the ChatML scanner (:mod:`guard.scanners.chatml`: thinking, JSON and XML call
bodies, forgery on ``<tool_response>`` / ``<|im_start|>``, stops) that also takes a
``<function=...>`` call written without the ``<tool_call>`` wrapper, as vLLM's parser does. A
value is the text up to its ``</parameter>`` less one leading and one trailing newline; it stays
a string unless the ``tools`` schemas type it.
"""

from __future__ import annotations

from guard.scanners.chatml import ChatMLScanner

__all__ = [
    "Qwen3CoderScanner",
]


class Qwen3CoderScanner(ChatMLScanner):
    """Scanner for Qwen3-Coder output (see the module docstring)."""

    BARE_FUNCTIONS = True
