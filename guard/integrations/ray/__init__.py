"""Audit transcripts at scale on Ray (the ``inband-guard[ray]`` extra).

* :func:`audit_dataset`: a Ray Dataset of transcripts in, a Ray Dataset of findings out (one
  row per finding or error entry), built on ``map_batches`` with one
  :class:`~guard.audit.RowAuditor` per actor (policy and compiled signals loaded once).
* :func:`audit_paths`: what ``guard audit --engine ray`` runs: files, directories and URIs
  planned exactly as the local engine plans them (same walking, sniffing, units and error
  entries), the units judged by Ray actors, the same report; Parquet read by Ray Data.

Importing this package does not import Ray; each function does, and says which extra to
install when it is missing.
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

if _TYPE_CHECKING:
    from guard.integrations.ray._dataset import FINDING_COLUMNS as FINDING_COLUMNS
    from guard.integrations.ray._dataset import audit_dataset as audit_dataset
    from guard.integrations.ray._paths import audit_paths as audit_paths
    from guard.integrations.ray._setup import RayMissingError as RayMissingError
    from guard.integrations.ray._setup import actor_resources as actor_resources

_EXPORTS: dict[str, str] = {
    "FINDING_COLUMNS": "guard.integrations.ray._dataset",
    "RayMissingError": "guard.integrations.ray._setup",
    "actor_resources": "guard.integrations.ray._setup",
    "audit_dataset": "guard.integrations.ray._dataset",
    "audit_paths": "guard.integrations.ray._paths",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> _Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'guard.integrations.ray' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS} - {"annotations"})
