"""Evidence and answers: what a signal reports (`Hit`), what the gate answers (`Verdict`), and
what a signal is told about the text it scans (`ScanContext`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec
import msgspec.structs
from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, computed_field
from pydantic_core import core_schema

from guard.models._dialect import Dialect
from guard.models._surface import Surface

__all__ = ["ALL_SCOPES", "Hit", "ScanContext", "Verdict"]

#: every part of the signals a scan may ask for (``Detection.scope``; ``ScanContext.scopes``)
ALL_SCOPES: frozenset[str] = frozenset({"anywhere", "opening", "ending"})


class Hit(msgspec.Struct, gc=False):
    """One piece of evidence: a span of the original text and the signals that fired on it.

    ``signals`` starts with the signal that found the span (``H``, ``K``, ``M``, ...) and lists
    the co-signals that attached to it, in their ``order``. Offsets are absolute positions in the
    original text (Python string indices), even when the match was made in the normalised view.

    A ``msgspec`` struct rather than a pydantic model or a dataclass: a dense text yields
    thousands of hits, and a struct is built in C, about a tenth of a dataclass's cost, and is
    not tracked by the garbage collector (a hit never refers back to itself). Pydantic models
    that hold hits (:class:`Verdict`) validate, serialise and round-trip them like any other
    field (see ``__get_pydantic_core_schema__``); validation there refuses negative offsets, and
    the gate refuses a signal's hit with one. Treat a hit as immutable (``replace`` makes a
    changed copy): verdicts share them.
    """

    signals: tuple[str, ...]
    start: int
    end: int
    evidence: str
    detail: str = ""
    #: for a co-signal's hit: the index in ``ScanContext.anchors`` of the anchor it supports
    anchor: int | None = None
    #: for an anchor: the co-signal hits attached to it (their own spans and details)
    support: tuple[Hit, ...] = ()
    in_code: bool = False
    trips: bool = False
    score: float = 0.0
    #: where the untrusted text starts when that is before ``start``: the adjacent evidence a
    #: co-signal found (a channel word and the junk glued before it); ``None`` means ``start``
    lead: int | None = None

    def replace(self, **changes: Any) -> Hit:
        """A copy with ``changes`` applied."""
        return msgspec.structs.replace(self, **changes)

    @property
    def cut(self) -> int:
        """Where the untrusted text starts for this hit (``lead``, else ``start``)."""
        return self.start if self.lead is None else self.lead

    @property
    def code(self) -> str:
        """The signal that found this span."""
        return self.signals[0]

    @property
    def label(self) -> str:
        """``M+C+S`` style label."""
        return "+".join(self.signals)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return _hit_schema()


def _hit_schema() -> core_schema.CoreSchema:
    """Pydantic's view of a :class:`Hit`: an instance passes as it is; a mapping (a JSON
    object) is validated field by field, offsets ``>= 0``, and built; a hit serialises to the
    mapping of its fields, so a verdict round-trips."""
    cs = core_schema
    offset = cs.int_schema(ge=0)
    optional_offset = cs.nullable_schema(cs.int_schema(ge=0))

    def field(schema: cs.CoreSchema, default: Any = ...) -> cs.TypedDictField:
        if default is ...:
            return cs.typed_dict_field(schema)
        return cs.typed_dict_field(cs.with_default_schema(schema, default=default), required=False)

    shape = cs.typed_dict_schema(
        {
            "signals": field(cs.tuple_schema([cs.str_schema()], variadic_item_index=0)),
            "start": field(offset),
            "end": field(offset),
            "evidence": field(cs.str_schema()),
            "detail": field(cs.str_schema(), ""),
            "anchor": field(cs.nullable_schema(cs.int_schema()), None),
            "support": field(
                cs.tuple_schema([cs.definition_reference_schema(_HIT_REF)], variadic_item_index=0),
                (),
            ),
            "in_code": field(cs.bool_schema(), False),
            "trips": field(cs.bool_schema(), False),
            "score": field(cs.float_schema(), 0.0),
            "lead": field(optional_offset, None),
        },
        extra_behavior="forbid",
    )
    built = cs.no_info_after_validator_function(lambda fields: Hit(**fields), shape)
    hit = cs.json_or_python_schema(
        json_schema=built,
        python_schema=cs.union_schema([(cs.is_instance_schema(Hit), "Hit"), (built, "mapping")]),
        serialization=cs.plain_serializer_function_ser_schema(
            msgspec.structs.asdict, return_schema=shape
        ),
        ref=_HIT_REF,
    )
    return cs.definitions_schema(cs.definition_reference_schema(_HIT_REF), [hit])


_HIT_REF = "guard.models.Hit"


class Verdict(BaseModel):
    """The gate's answer for one piece of text on one surface.

    ``cut`` is the offset from which the text is untrusted (the earliest evidence of the first
    tripping hit: its start, or the adjacent channel word and junk before it), ``None`` when
    nothing trips. For input surfaces ``leak`` is always false and
    ``injection`` lists the reserved spellings found (escaping required).

    ``hits`` holds at most the policy's ``max_hits`` hits: the earliest ones, always including
    the first tripping hit; ``hits_total`` counts every hit found. ``signals``, ``cut``,
    ``score``, ``reason`` and ``injection`` are decided over every hit, kept or not.
    """

    model_config = ConfigDict(frozen=True)

    leak: bool
    surface: Surface
    dialect: str
    signals: tuple[str, ...] = ()
    hits: tuple[Hit, ...] = ()
    #: hits found but not kept in ``hits`` (the policy's ``max_hits`` caps what a verdict holds)
    hits_dropped: int = Field(default=0, ge=0)
    cut: int | None = None
    score: float = 0.0
    reason: str = "clean"
    injection: tuple[str, ...] = ()
    #: the first tripping hit is a forged tool result, as the policy defines one (decided by
    #: the gate; streams, proxies and metrics read it)
    forged: bool = False
    part: str | None = None
    tool_name: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def hits_total(self) -> int:
        """Every hit found: the kept ``hits`` plus the ``hits_dropped`` beyond the cap."""
        return len(self.hits) + self.hits_dropped

    def __bool__(self) -> bool:  # pragma: no cover - convenience
        return self.leak


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanContext:
    """What a signal is told about the text it scans.

    A frozen dataclass, not a pydantic model: the gate makes one or two per scanned text (two
    per streamed tool call), and the values come from the gate itself, already checked."""

    dialect: Dialect
    surface: Surface
    parsed_end: int | None = None
    tool_name: str | None = None
    #: Hits of the anchor signals (H, K, M, ...): co-signals attach to these.
    anchors: tuple[Hit, ...] = ()
    #: Where the scanned text starts in the whole text (a stream scans windows); signals that
    #: look at the start of the text (K's glued opening) fire only when this is 0.
    offset: int = 0
    #: Scratch space shared by the signals of one scan (derived data several co-signals need,
    #: such as the marker neighbourhoods); the gate gives every scan a fresh one.
    shared: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    #: The text scanned ends where the whole text ends, for good (a whole text, or a stream's
    #: final scan). Signals whose hits depend on the end of the text (a lone channel word, a
    #: trailing tool call) fire only then.
    final: bool = True
    #: Whether the message this text belongs to carried a reasoning part: ``True`` or ``False``
    #: when the caller knows (``detect_message``, streams, audit), ``None`` when unknown.
    reasoning: bool | None = None
    #: The names of the tools the request declared; ``None`` when unknown (no ``tools=``).
    tools: frozenset[str] | None = None
    #: Which parts of the signals are asked for (``anywhere``, ``opening``, ``ending``): a
    #: stream scans windows for the ``anywhere`` part and runs the ``ending`` part once at the
    #: end; a whole text is scanned for every part at once. Only a signal that publishes
    #: ``Detection.ends`` (both parts in one signal) needs to read it.
    scopes: frozenset[str] = ALL_SCOPES
    #: Indices in ``anchors`` of the anchors that lie inside closed code (``text`` and
    #: ``thinking``). Such a hit never trips and the gate drops its co-signal evidence, so a
    #: co-signal may skip them; skipping is an optimisation, never required.
    exempt: frozenset[int] = frozenset()
