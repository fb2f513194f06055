"""The gate: evidence from the signals becomes a verdict.

* :func:`evaluate` judges a whole text (what :func:`guard.detect` calls);
* :class:`SurfaceMonitor` judges a text that arrives in deltas, with the same final verdict;
* code exemption (:class:`CodeTracker`, :func:`code_ranges`) and parse boundaries
  (:func:`json_end` and the boundary registry) decide which hits count;
* :class:`Policy` is the gate's rules, as data;
* a :class:`Detector` holds a policy and a signal set, and judges with them.
"""

from __future__ import annotations

from guard.gate._boundary import (
    BOUNDARIES,
    Boundary,
    JsonEnd,
    get_boundary,
    json_end,
    register_boundary,
)
from guard.gate._code import CodeRanges, CodeTracker, code_ranges
from guard.gate._detector import DEFAULT_DETECTOR, Detector, resolve_detector
from guard.gate._holds import bracket_hold
from guard.gate._monitor import SurfaceMonitor
from guard.gate._plan import StreamPlan, stream_plan
from guard.gate._policy import (
    DEFAULT_POLICY,
    Policy,
    SurfaceRule,
    check_policy,
    check_policy_or_path,
    read_policy_file,
)
from guard.gate._prefilter import Prefilter, prefilter
from guard.gate._whole import (
    could_hit,
    decide,
    evaluate,
    find_hits,
    injection_verdict,
    make_verdict,
)

__all__ = [
    "BOUNDARIES",
    "DEFAULT_DETECTOR",
    "DEFAULT_POLICY",
    "Boundary",
    "CodeRanges",
    "CodeTracker",
    "Detector",
    "JsonEnd",
    "Policy",
    "Prefilter",
    "StreamPlan",
    "SurfaceMonitor",
    "SurfaceRule",
    "bracket_hold",
    "check_policy",
    "check_policy_or_path",
    "code_ranges",
    "could_hit",
    "decide",
    "evaluate",
    "find_hits",
    "get_boundary",
    "injection_verdict",
    "json_end",
    "make_verdict",
    "prefilter",
    "read_policy_file",
    "register_boundary",
    "resolve_detector",
    "stream_plan",
]
