"""Importing Ray lazily, connecting to a cluster, and sizing the actor pool safely."""

from __future__ import annotations

import importlib
from types import ModuleType

from guard._log import get_logger
from guard.audit.engine import check_count
from guard.errors import GuardError

__all__ = ["RayMissingError", "actor_resources", "connect", "require_ray"]

_log = get_logger("guard.integrations.ray")


class RayMissingError(GuardError, ImportError):
    """Ray (with Ray Data) is not installed: the ``ray`` extra is needed."""


def require_ray() -> ModuleType:
    """The ``ray`` module with Ray Data, imported now (never at guard's import time)."""
    try:
        ray = importlib.import_module("ray")
        importlib.import_module("ray.data")
    except ImportError as exc:
        raise RayMissingError(
            "guard's Ray engine needs Ray Data: pip install 'inband-guard[ray]'"
            f" (import failed: {exc})"
        ) from exc
    return ray


def connect(address: str | None = None, cpus: int | None = None) -> ModuleType:
    """Ray, connected: to ``address`` (an existing cluster: ``auto``, ``ray://host:10001``,
    ``host:6379``), or to a local Ray started with ``cpus`` CPUs (default: all). A Ray already
    initialised in this process is used as it is."""
    ray = require_ray()
    if ray.is_initialized():
        return ray
    if address is not None:
        if cpus is not None:
            raise ValueError("--ray-cpus sizes a local Ray: it cannot be used with --ray-address")
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    _log.info("guard.ray.connected", local=address is None, cpus=cluster_cpus(ray))
    return ray


def cluster_cpus(ray: ModuleType) -> int:
    """The cluster's CPUs (at least 1)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def actor_resources(cpus: int) -> tuple[int, float]:
    """``(actors, CPUs per actor)`` for a pool on a cluster of ``cpus`` CPUs.

    One auditing actor per CPU, each asking for a fraction of a CPU so that the actors
    together always leave one whole CPU free: a read task (which asks for one CPU) can always
    run, and a pool as large as the cluster never starves the tasks that feed it (a deadlock).
    Auditing actors still use a whole core each: Ray's CPU counts only schedule."""
    check_count("cpus", cpus)
    return cpus, int(100 * (cpus - 1) / cpus) / 100
