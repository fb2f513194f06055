"""Provider integrations: guard wrapped around a provider's own client.

* :mod:`guard.integrations.openai`: :func:`~guard.integrations.openai.guard_client` wraps an
  ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client (install ``inband-guard[openai]``). The module
  itself imports no SDK, so ``guard serve`` reuses its request escaping and response checks on
  plain JSON.
"""

from __future__ import annotations

__all__: list[str] = []
