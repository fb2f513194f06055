"""Provider and framework integrations: guard wrapped around a client or plugged into a
framework, each an extra of its own.

* :mod:`guard.integrations.openai`: :func:`~guard.integrations.openai.guard_client` wraps an
  ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client (``inband-guard[openai]``). Its
  wire-protocol half, :mod:`guard.integrations.openai.protocol` (request escaping, response and
  event judging), imports no SDK and is what ``guard serve`` uses on plain JSON.
* :mod:`guard.integrations.anthropic`: :func:`~guard.integrations.anthropic.guard_client` wraps
  an ``anthropic.Anthropic`` or ``AsyncAnthropic`` client (``inband-guard[anthropic]``), with
  :mod:`guard.integrations.anthropic.protocol` as its SDK-free half (``/v1/messages`` in
  ``guard serve``).
* :mod:`guard.integrations.litellm`: a LiteLLM proxy guardrail (``inband-guard[litellm]``).
* :mod:`guard.integrations.agents`: OpenAI Agents SDK guardrails (``inband-guard[agents]``).
* :mod:`guard.integrations.langchain`: LangChain agent middleware
  (``inband-guard[langchain]``).

The last three import their framework when imported and name the extra when it is missing.
"""

from __future__ import annotations

__all__: list[str] = []
