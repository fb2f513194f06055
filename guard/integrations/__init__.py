"""Provider integrations: guard wrapped around a provider's own client.

* :mod:`guard.integrations.openai`: :func:`~guard.integrations.openai.guard_client` wraps an
  ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client (install ``inband-guard[openai]``). Its
  wire-protocol half, :mod:`guard.integrations.openai.protocol` (request escaping, response and
  event judging), imports no SDK and is what ``guard serve`` uses on plain JSON.
"""

from __future__ import annotations

__all__: list[str] = []
