"""The gate's policy: per surface, which evidence makes a leak, as data
(docs/detection.md, "Gate").

A :class:`Policy` loads from TOML or JSON, so a user can tighten or loosen the gate without code::

    [surfaces.text]
    trip_alone = ["H", "Q", "W", "K", "O", "V", "L", "D", "J", "F", "Y"]
    anchors = ["M"]
    co_signals = ["C", "G", "S", "B", "R", "A"]

    [surfaces.tool_arg]
    require = ["T"]
    trip_with = [["M", "C", "E"]]

    [boundaries]
    apply_patch = "none"
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from guard.errors import PolicyError
from guard.models import Hit, Signal, Surface
from guard.signals import load_signals

__all__ = [
    "DEFAULT_POLICY",
    "Policy",
    "PolicyError",
    "SurfaceRule",
    "check_policy",
    "check_policy_or_path",
    "read_policy_file",
]

#: top-level tables of a policy file that configure other components, not the gate
OTHER_TABLES = frozenset({"serve"})

_LEAK_CO = frozenset({"C", "G", "S", "B", "R", "A"})


class SurfaceRule(BaseModel):
    """How the gate judges one surface.

    A hit trips when it is not exempt as code, carries every signal in ``require``, and either
    was found by a signal in ``trip_alone`` or was found by an ``anchors`` signal and carries at
    least one of ``co_signals``. A hit that is not exempt as code also trips when it carries
    every code of one of the ``trip_with`` combinations (they ignore ``require``: on
    ``tool_arg`` they let the strongest leaks inside a JSON string trip before the parse
    boundary). A hit that carries any code of ``unless`` never trips: a co-signal there says
    the hit is not what it looks like (I: a token named in a sentence of prose).
    ``mode="injection"`` (input surfaces) never reports a leak; it lists the reserved spellings
    found instead.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: Literal["leak", "injection"] = "leak"
    trip_alone: frozenset[str] = frozenset({"H", "Q", "W", "K", "O", "V", "L", "D", "J", "F", "Y"})
    anchors: frozenset[str] = frozenset({"M"})
    co_signals: frozenset[str] = _LEAK_CO
    require: frozenset[str] = frozenset()
    trip_with: tuple[frozenset[str], ...] = ()
    unless: frozenset[str] = frozenset({"I"})
    code_exempt: bool = True


def _default_surfaces() -> dict[Surface, SurfaceRule]:
    leak = SurfaceRule()
    return {
        Surface.TEXT: leak,
        Surface.THINKING: leak,
        Surface.TOOL_ARG: SurfaceRule(
            trip_alone=frozenset({"H", "K", "V", "L", "D", "J", "F", "X", "Z"}),
            require=frozenset({"T"}),
            trip_with=(frozenset({"M", "C", "E"}), frozenset({"H", "P"}), frozenset({"X", "P"})),
            code_exempt=False,
        ),
        Surface.TOOL_NAME: SurfaceRule(
            trip_alone=frozenset({"H", "N", "U"}),
            anchors=frozenset(),
            co_signals=frozenset(),
            code_exempt=False,
        ),
        Surface.USER: SurfaceRule(mode="injection", code_exempt=False),
        Surface.TOOL_RESULT: SurfaceRule(mode="injection", code_exempt=False),
    }


#: the hits a verdict keeps unless the policy says otherwise (``Policy.max_hits``)
DEFAULT_MAX_HITS = 1000


#: Policy.effective_weights' answers by the identities of the signal set and of a policy's
#: weights (both kept in the entry, so an identity is never reused while it is here);
#: callers only read the dicts
_WEIGHTS: dict[tuple[int, int], tuple[object, dict[str, float], dict[str, float]]] = {}
_WEIGHTS_CAP = 64


class Policy(BaseModel):
    """Per-surface rules, signal weights, and per-tool parse boundaries.

    ``boundaries`` maps a tool name to a boundary function registered in
    :mod:`guard.boundary` (``json``, ``none``, ``whole`` or your own); tools not listed use
    ``default_boundary``. ``disabled`` switches signals off everywhere. The score of a verdict is
    the sum of the weights of the signals of its tripping hits: each signal's own ``weight``,
    unless ``weights`` sets another for its code.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    surfaces: dict[Surface, SurfaceRule] = Field(default_factory=_default_surfaces)
    weights: dict[str, float] = Field(default_factory=dict)
    boundaries: dict[str, str] = Field(default_factory=dict)
    default_boundary: str = "json"
    disabled: frozenset[str] = frozenset()
    #: recovery strategy per tool name (for ``tool_arg`` leaks), e.g. ``apply_patch =
    #: "truncate_abort"``; tools not listed use ``tool_recovery``.
    recovery: dict[str, str] = Field(default_factory=dict)
    #: the most hits one verdict keeps (the earliest, and always the first tripping one); the
    #: decision still weighs every hit, and ``Verdict.hits_total`` counts them. Bounds the memory
    #: a text dense with spellings costs.
    max_hits: int = Field(default=DEFAULT_MAX_HITS, ge=1)
    tool_recovery: str = "retry"
    text_recovery: str = "strip_tail"
    thinking_recovery: str = "strip_tail"
    #: a tripping hit that carries every one of these codes is a forged tool result (a result's
    #: opening written in model output): a stream ends before it whatever ``on_leak`` says, and
    #: the verdict says so (``Verdict.forged``). Empty: no hit is a forgery.
    forgery: frozenset[str] = frozenset({"H", "R"})
    #: the co-signal that marks evidence past a tool argument's parse boundary: a stream, which
    #: learns the boundary late, adds it to a hit once the boundary is known
    boundary_signal: str = "T"
    #: on ``mode="injection"`` surfaces, the anchor signals whose hits are reserved spellings
    #: (the only ones run there)
    reserved_signals: frozenset[str] = frozenset({"H"})

    @model_validator(mode="before")
    @classmethod
    def _without_other_tables(cls, data: Any) -> Any:
        # A policy file may carry the tables of other components (``[serve]``); they are not
        # the gate's rules (see read_policy_file), and a mapping that still holds one loads.
        if isinstance(data, dict) and OTHER_TABLES.intersection(data):
            return {k: v for k, v in data.items() if k not in OTHER_TABLES}
        return data

    @field_validator("surfaces")
    @classmethod
    def _every_surface(cls, value: dict[Surface, SurfaceRule]) -> dict[Surface, SurfaceRule]:
        # A file may set only the surfaces it changes; the rest keep the defaults.
        return {**_default_surfaces(), **value}

    def rule(self, surface: Surface) -> SurfaceRule:
        return self.surfaces[surface]

    def effective_weights(self, signals: Iterable[Signal] | None = None) -> dict[str, float]:
        """Every signal's weight (of ``signals``, default every registered signal): its own
        default, or this policy's override."""
        every = load_signals() if signals is None else signals
        # asked once per stream monitor (two per tool call): remembered by the identity of the
        # signal set and of this policy's weights (a copy with other weights is told apart)
        own = self.weights
        key = (id(every), id(own))
        known = _WEIGHTS.get(key)
        if known is not None and known[0] is every and known[1] is own:
            return known[2]
        weights = {**{s.code: s.weight for s in every}, **own}
        if len(_WEIGHTS) >= _WEIGHTS_CAP:
            _WEIGHTS.clear()
        _WEIGHTS[key] = (every, own, weights)
        return weights

    def recovery_for(self, surface: Surface, tool_name: str | None = None) -> str:
        """The recovery strategy the policy names for a leak on ``surface``."""
        if surface is Surface.TOOL_ARG or surface is Surface.TOOL_NAME:
            if tool_name is not None and tool_name in self.recovery:
                return self.recovery[tool_name]
            return self.tool_recovery
        if surface is Surface.THINKING:
            return self.thinking_recovery
        return self.text_recovery

    def forges(self, hit: Hit) -> bool:
        """Whether ``hit`` (a tripping one) is a forged tool result (see :attr:`forgery`)."""
        return bool(self.forgery) and self.forgery.issubset(hit.signals)

    def boundary_for(self, tool_name: str | None) -> str:
        if tool_name is not None and tool_name in self.boundaries:
            return self.boundaries[tool_name]
        return self.default_boundary

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> Policy:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise PolicyError(f"invalid policy: {exc}") from None

    @classmethod
    def load(cls, path: str | Path) -> Policy:
        """Load a policy from a ``.toml`` or ``.json`` file (its tables for other components,
        such as ``[serve]``, are left to them: see :func:`read_policy_file`)."""
        return read_policy_file(path)[0]


def read_policy_file(path: str | Path) -> tuple[Policy, dict[str, dict[str, Any]]]:
    """Read a ``.toml`` or ``.json`` policy file: the :class:`Policy`, and the tables that
    configure other components (``OTHER_TABLES``: ``serve``, read by ``guard serve``) by name,
    each a mapping. One file serves the proxy, ``guard audit`` and ``guard eval`` alike."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise PolicyError(f"policy {path}: expected a .toml or .json file, got {suffix!r}")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PolicyError(f"cannot read policy {path}: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8")) if suffix == ".toml" else json.loads(raw)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise PolicyError(f"policy {path} is not valid {path.suffix[1:]}: {exc}") from None
    if not isinstance(data, dict):
        raise PolicyError(f"policy {path}: expected a table at the top level")
    others: dict[str, dict[str, Any]] = {}
    for name in OTHER_TABLES:
        if name in data:
            table = data.pop(name)
            if not isinstance(table, dict):
                raise PolicyError(
                    f"policy {path}: [{name}] must be a table, got {type(table).__name__}"
                )
            others[name] = table
    return Policy.from_mapping(data), others


DEFAULT_POLICY = Policy()


def check_policy(value: object) -> Policy:
    """``value`` as a policy: ``None`` is the default policy; anything but a :class:`Policy`
    raises ``TypeError`` saying what came."""
    if value is None:
        return DEFAULT_POLICY
    if isinstance(value, Policy):
        return value
    raise TypeError(f"policy must be a guard.Policy or None, got {type(value).__name__}")


def check_policy_or_path(value: object) -> Policy:
    """``value`` as a policy, where a policy file may stand for one: a :class:`Policy`, a path
    to a ``.toml`` or ``.json`` policy file (loaded with :meth:`Policy.load`), or ``None`` (the
    default policy). Anything else raises ``TypeError`` saying what came."""
    if isinstance(value, str | os.PathLike):
        return Policy.load(os.fspath(value))
    if value is None or isinstance(value, Policy):
        return check_policy(value)
    raise TypeError(f"policy must be a guard.Policy, a path or None, got {type(value).__name__}")
