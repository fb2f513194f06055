"""Tencent Hunyuan-A13B: a reply written as ``<think>...</think>`` then ``<answer>...</answer>``,
tool calls as a JSON list in ``<tool_calls>``; summarised in docs/wire-formats.md, "Other
dialects".

The record alone runs it: its calls are read by the generic grammar scanner (``call_body=
"json"``), with no scanner class of its own. Its text and turn tokens are also reserved in
``chatml``, where stacks that do not know Hunyuan serve it.
"""

from __future__ import annotations

from guard.dialects._load import builtin

HUNYUAN = builtin("hunyuan").record
