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

from typing import TYPE_CHECKING as _TYPE_CHECKING

from guard._lazy import lazy_exports as _lazy_exports

if _TYPE_CHECKING:
    from guard.integrations.ray._dataset import FINDING_COLUMNS as FINDING_COLUMNS
    from guard.integrations.ray._dataset import audit_dataset as audit_dataset
    from guard.integrations.ray._paths import audit_paths as audit_paths
    from guard.integrations.ray._setup import RayMissingError as RayMissingError
    from guard.integrations.ray._setup import actor_resources as actor_resources

__getattr__, __dir__ = _lazy_exports(__name__, globals())
