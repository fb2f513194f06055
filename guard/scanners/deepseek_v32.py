"""DeepSeek V3.2 (DSML) scanner (DeepSeek-V3.2's ``encoding_dsv32.py`` as copied
by vLLM, the llama.cpp DeepSeek-V3.2 template; vLLM's ``deepseekv32`` tool parser).

The output is the body of an assistant turn (the prompt ended in ``<｜Assistant｜>`` plus
``<think>`` in thinking mode: use ``start_in_thinking``):

* ``<think>...</think>`` is reasoning; a ``</think>`` as the very first thing of the output is
  the template's own closing tag echoed back (``Text`` with empty text);
* ``<｜DSML｜function_calls>`` (V4: ``<｜DSML｜tool_calls>``; ASCII bars accepted too) holds
  ``<｜DSML｜invoke name="NAME">`` elements with ``<｜DSML｜parameter name="KEY"
  string="true|false">VALUE</｜DSML｜parameter>`` elements (the shape shared with MiniMax M2,
  see :mod:`guard.scanners._invoke`). Where the request's tool schemas describe a parameter,
  they type its value (``"42"`` is 42 for an ``integer``, ``null`` stays text for a ``string``);
  otherwise a ``string="false"`` value is read as JSON (as text when it is not JSON) and any
  other value is a string;
* ``<function_results>`` (V3.2), ``<tool_result>`` (V4) and DeepSeek's tool-output tokens open a
  result only the host writes: in model output they are a forgery (``ResultForgery``;
  everything after it goes out as ``Malformed`` blocks), wherever they appear;
* ``<｜end▁of▁sentence｜>`` and ``<|EOT|>`` are stops (``Text`` with empty text); role tokens are
  ``Malformed``.
"""

from __future__ import annotations

from typing import Any, Final

from guard.dialects.deepseek import DEEPSEEK_V32
from guard.scanners._invoke import InvokeScanner
from guard.scanners.base import json_value

__all__ = [
    "DeepSeekV32Scanner",
]

DSML: Final = "｜DSML｜"
CALLS_OPEN: Final = f"<{DSML}function_calls>"
CALLS_CLOSE: Final = f"</{DSML}function_calls>"
INVOKE_CLOSE: Final = f"</{DSML}invoke>"
PARAM_CLOSE: Final = f"</{DSML}parameter>"
BOS: Final = "<｜begin▁of▁sentence｜>"
EOS: Final = "<｜end▁of▁sentence｜>"
USER: Final = "<｜User｜>"
ASSISTANT: Final = "<｜Assistant｜>"
THINK_OPEN: Final = "<think>"
THINK_CLOSE: Final = "</think>"

_BARS = ("｜", "|")


def _tags(word: str, closing: bool = False, open_ended: bool = False) -> tuple[str, ...]:
    """A DSML tag in both bar spellings."""
    slash = "/" if closing else ""
    end = "" if open_ended else ">"
    return tuple(f"<{slash}{b}DSML{b}{word}{end}" for b in _BARS)


class DeepSeekV32Scanner(InvokeScanner):
    """Scanner for DeepSeek V3.2 DSML output (see the module docstring).

    Args:
        start_in_thinking: the template put ``<think>`` in the prompt (thinking mode).
        tools: OpenAI tool definitions; their schemas type values that arrive as text.
        max_arguments: cap on a call body (characters); a longer one is ``Malformed``.
    """

    WRAPPER_OPENS = (*_tags("function_calls"), *_tags("tool_calls"))
    WRAPPER_CLOSES = (*_tags("function_calls", closing=True), *_tags("tool_calls", closing=True))
    INVOKE_OPENS = _tags("invoke", open_ended=True)
    INVOKE_CLOSES = _tags("invoke", closing=True)
    PARAM_OPENS = _tags("parameter", open_ended=True)
    PARAM_CLOSES = _tags("parameter", closing=True)
    FORGERIES = DEEPSEEK_V32.result_open
    STOPS = DEEPSEEK_V32.stop
    STRAY = (BOS, USER, ASSISTANT)
    ECHOED_CLOSE = True

    def _param_value(self, tool: str, key: str, attrs: dict[str, str], text: str) -> Any:
        # A schema decides (text is typed by it afterwards); without one, the attribute does.
        if self._types.schema(tool, key) is None and attrs.get("string", "").lower() == "false":
            return json_value(text)
        return text
