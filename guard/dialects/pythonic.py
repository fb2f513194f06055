"""Pythonic tool calls: Llama 4 and Gemma 3 write ``[f(a=1), g(b="x")]`` as the whole reply.

The call syntax is a Python list of calls with literal keyword arguments (Llama 4 chat template,
Gemma 3 function-calling guide; vLLM ``pythonic`` / ``llama4_pythonic`` and SGLang
``pythonic`` parsers). It is text to the tokenizer. The reserved spellings are the envelope
tokens of the families that use it: Llama 4 (``<|header_start|>`` turns) and Gemma 3
(``<start_of_turn>`` turns).
"""

from __future__ import annotations

from guard.dialects._load import builtin

_DATA = builtin("pythonic")
PYTHONIC = _DATA.record
#: Llama 4 named special tokens (meta-llama/llama-models models/llama4/tokenizer.py).
LLAMA4 = _DATA.sets["llama4"]
#: Gemma 3 chat-template tokens, and the `<tool_response>` wrapper that the pythonic Gemma 3
#: tool template (vLLM examples/tool_chat_template_gemma3_pythonic.jinja) puts around results.
GEMMA3 = _DATA.sets["gemma3"]
