"""GLM (Zhipu GLM-4.5 / 4.6 / 4.7); summarised in docs/wire-formats.md, "Other dialects"."""

from __future__ import annotations

from guard.dialects._load import builtin

GLM = builtin("glm").record
