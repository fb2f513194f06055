"""Which requests are guarded: the API routes whose answers carry model output, read from a
request's path, and the routes known to carry none.

A guarded route is a ``POST`` whose path ends in ``chat/completions`` (``chat``), ``responses``
(``responses``) or ``messages`` (``messages``), whatever comes before (``/v1``, a provider's own
prefix). The routes of :data:`NO_MODEL_OUTPUT` pass through as they are; every other route may
carry model output, so it is refused unless the operator lets it pass unguarded.
"""

from __future__ import annotations

import fnmatch

__all__ = ["NO_MODEL_OUTPUT", "carries_no_model_output", "guarded_route"]

#: paths after the API root (globs, ``*`` within one segment) that carry no model output
NO_MODEL_OUTPUT = (
    "models",
    "models/*",
    "embeddings",
    "moderations",
    "messages/count_tokens",
    "tokenize",
    "detokenize",
)

_GUARDED = {("chat", "completions"): "chat", ("responses",): "responses", ("messages",): "messages"}


def _segments(path: str) -> list[str]:
    return [s for s in path.split("/") if s]


def guarded_route(method: str, path: str) -> str | None:
    """The kind of answer (``chat``, ``responses``, ``messages``) of a request to ``path``, or
    None when it is not a guarded route."""
    if method.upper() != "POST":
        return None
    segments = _segments(path)
    for tail, kind in _GUARDED.items():
        if tuple(segments[-len(tail) :]) == tail:
            return kind
    return None


def carries_no_model_output(path: str, *, rooted: bool = True) -> bool:
    """Whether ``path`` is a route of :data:`NO_MODEL_OUTPUT`. ``rooted``: ``path`` is what
    follows the API root (the proxy's ``/v1/``); otherwise its last segments are matched (a
    client's URL, whose root is the provider's). A model name holding ``:`` (an action such as
    ``models/x:generateContent``) is not a model route."""
    segments = _segments(path)
    for pattern in NO_MODEL_OUTPUT:
        parts = pattern.split("/")
        here = segments if rooted else segments[-len(parts) :]
        if len(here) != len(parts):
            continue
        pairs = zip(here, parts, strict=True)
        if all(fnmatch.fnmatchcase(s, p) and ":" not in s for s, p in pairs):
            return True
    return False
