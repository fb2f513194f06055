"""Recovery outcomes and the strategy protocol."""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from guard.models._evidence import Verdict

__all__ = [
    "Abort",
    "CallSplit",
    "Outcome",
    "Recovered",
    "RecoveredCall",
    "Recovery",
    "Retry",
    "Split",
]


class Split(BaseModel):
    """Text and thinking separated again (what thinking-repair recovers)."""

    model_config = ConfigDict(frozen=True)

    text: str
    thinking: str


class RecoveredCall(BaseModel):
    """A tool call recovered from text: the tool's name and its arguments as a JSON object."""

    model_config = ConfigDict(frozen=True)

    name: str
    arguments: str


class CallSplit(BaseModel):
    """Text and the tool calls written in it, separated (what text-tool-call recovers)."""

    model_config = ConfigDict(frozen=True)

    text: str
    calls: tuple[RecoveredCall, ...]


class Recovered(BaseModel):
    """The strategy produced a value the caller can use in place of the contaminated one."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["recovered"] = "recovered"
    value: str | Split | CallSplit
    strategy: str
    detail: str = ""


class Retry(BaseModel):
    """Re-sample the turn (guard never calls a provider itself); ``attempt`` counts from 1."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["retry"] = "retry"
    reason: str
    attempt: int = Field(ge=1)
    max_attempts: int = Field(ge=1)
    strategy: str


class Abort(BaseModel):
    """Nothing usable can be recovered: fail the turn."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["abort"] = "abort"
    reason: str
    strategy: str


Outcome = Recovered | Retry | Abort


class Recovery(Protocol):
    """A recovery strategy (docs/detection.md, "Recovery"): pure, returns a typed outcome."""

    name: str

    def apply(self, value: str, verdict: Verdict, *, attempt: int = 0) -> Outcome: ...
