"""The framework integrations' tests run offline: LiteLLM reads its bundled model cost map
instead of fetching one, and the OpenAI Agents SDK sends no traces. Set before any test module
imports a framework."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
