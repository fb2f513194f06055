"""ChatGLM3 (THUDM ChatGLM3-6B): docs/wire-formats.md, "ChatGLM3"."""

from __future__ import annotations

from guard.dialects._load import builtin

CHATGLM3 = builtin("chatglm3").record
