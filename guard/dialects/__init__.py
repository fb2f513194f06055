"""Dialect records: every in-band tool-calling wire format guard knows, as data.

``DIALECTS`` maps each canonical name to its :class:`Dialect`; :func:`get_dialect` also resolves
aliases and the pseudo-dialect ``"all"`` (the union of every reserved set, for when the model
behind an endpoint is unknown). :func:`register` adds a dialect at run time (and the
``guard.dialects`` entry point group at install time), and :func:`load_dialect` reads a record
from a TOML file, as the built-in records are read from ``guard/dialects/data``;
docs/dialects.md, "Adding a dialect".
"""

from __future__ import annotations

from guard.dialects._load import DialectFileError, load_dialect
from guard.dialects._model_names import FALLBACK_DIALECT, MODEL_DIALECTS, dialect_for_model
from guard.dialects._record import Dialect
from guard.dialects._table import (
    ALL,
    DIALECTS,
    ENTRY_POINT_GROUP,
    get_dialect,
    register,
    registered_dialects,
    registered_models,
    table_version,
    unregister,
)

__all__ = [
    "ALL",
    "DIALECTS",
    "ENTRY_POINT_GROUP",
    "FALLBACK_DIALECT",
    "MODEL_DIALECTS",
    "Dialect",
    "DialectFileError",
    "dialect_for_model",
    "get_dialect",
    "load_dialect",
    "register",
    "registered_dialects",
    "registered_models",
    "table_version",
    "unregister",
]
