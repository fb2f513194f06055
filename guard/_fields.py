"""Field access that works on dicts and SDK objects alike (chunks, messages, responses)."""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

__all__ = ["get_field", "set_field"]


def get_field(obj: Any, key: str) -> Any:
    """``obj[key]`` for a mapping, ``obj.key`` for an object; ``None`` when absent."""
    if type(obj) is dict:  # the common case, without an ABC check
        return obj.get(key)
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def set_field(obj: Any, key: str, value: Any) -> None:
    """``obj[key] = value`` for a mapping, ``obj.key = value`` for an object."""
    if type(obj) is dict or isinstance(obj, MutableMapping):
        obj[key] = value
    else:
        setattr(obj, key, value)
