"""The local engine's building blocks, for engines that run units elsewhere.

``guard audit --engine ray`` (:mod:`guard.integrations.ray`) plans with the local engine's own
planner, registers inputs in the same report builder, judges each unit with the same function
and hands its executor (Ray actors instead of worker processes) to the same :func:`run`, so its
report is the local engine's by construction; only where units run differs.
These names are that contract, re-exported from the private modules that define them. They
are for executors inside guard, not a stable API.
"""

from __future__ import annotations

from guard.audit._builder import ReportBuilder
from guard.audit._choices import check_count, check_format
from guard.audit._context import declared_tools
from guard.audit._engine import internal_error
from guard.audit._formats import FORMAT_DIALECT, JSON_FORMATS, classify
from guard.audit._planner import Planner
from guard.audit._run import run
from guard.audit._sources import describe_read_error
from guard.audit._units import (
    Unit,
    UnitResult,
    error_unit,
    init_worker,
    lost_result,
    run_in_worker,
    run_unit,
)

__all__ = [
    "FORMAT_DIALECT",
    "JSON_FORMATS",
    "Planner",
    "ReportBuilder",
    "Unit",
    "UnitResult",
    "check_count",
    "check_format",
    "classify",
    "declared_tools",
    "describe_read_error",
    "error_unit",
    "init_worker",
    "internal_error",
    "lost_result",
    "run",
    "run_in_worker",
    "run_unit",
]
