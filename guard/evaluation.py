"""Evaluation of the detector on labelled corpora (``guard eval``).

A case (schema in ``corpora/README.md``) agrees with its label when:

* ``leak``: the verdict is a leak, every expected signal is among the signals of the verdict's
  hits, and, when the case gives ``cut``, the verdict's cut equals it;
* ``benign``: the verdict is not a leak and (on input surfaces) finds nothing to escape;
* ``injection`` (input surfaces): the verdict lists at least one reserved spelling.

Precision, recall and false positives are reported per surface, per signal and per dialect
family (the cases' ``family``, else their ``dialect``); every disagreement is listed.

Named sets (:data:`SETS`) are folders of ``corpora/``: ``detect`` is the tuning corpus
``guard eval`` runs by default; ``arguments``, ``voice`` and ``heldout`` are kept apart from
it and run only when asked for (``guard eval --set heldout``). A ``dialect`` override judges
every case as if served with that dialect (``"all"``: the model is unknown).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from guard._detect import detect
from guard.gate import Policy
from guard.models import Surface, Verdict

__all__ = [
    "SETS",
    "Case",
    "EvalReport",
    "Miss",
    "Score",
    "evaluate_cases",
    "load_cases",
    "set_dir",
]

_CORPORA = Path(__file__).resolve().parent.parent / "corpora"

#: the named corpora sets: ``detect`` (tuning, the default), ``arguments`` (tool arguments that
#: carry markup), ``voice`` (ordinary answers that hold the reasoning voice's words, and
#: reasoning leaked around a real answer) and every ``heldout*`` folder of the checkout's
#: corpora (held-apart evaluation sets, never used for tuning; the folder name is the set name)
_HELDOUT = sorted(p.name for p in _CORPORA.glob("heldout*") if p.is_dir())
SETS: tuple[str, ...] = ("detect", "arguments", "voice", *_HELDOUT)


def set_dir(name: str) -> Path:
    """The folder of a named set: the checkout's ``corpora/NAME`` when running from a source
    tree, else the copy installed with the package (``guard.corpora``; only ``detect`` ships)."""
    if name not in SETS:
        raise ValueError(f"unknown set {name!r}; expected one of: {', '.join(SETS)}")
    source = _CORPORA / name
    if source.is_dir():
        return source
    return Path(str(resources.files("guard.corpora") / name))


CORPUS_DIR = set_dir("detect")


class Case(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    text: str
    surface: Surface
    dialect: str = "harmony"
    label: Literal["leak", "benign", "injection"]
    signals: tuple[str, ...] = ()
    source: str
    note: str
    parsed_end: int | None = Field(default=None, ge=0)
    tool_name: str | None = None
    cut: int | None = Field(default=None, ge=0)
    #: the request's declared tool names (``None``: unknown)
    tools: tuple[str, ...] | None = None
    #: whether the message carried a reasoning part (``None``: unknown)
    reasoning: bool | None = None
    #: the dialect family the case belongs to (``kimi`` for ``kimi`` and ``kimi_k3``, ...);
    #: scores are grouped by it, else by ``dialect``
    family: str | None = None


class Miss(BaseModel):
    id: str
    path: str
    surface: Surface
    label: str
    problem: str
    reason: str


class Score(BaseModel):
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


class EvalReport(BaseModel):
    cases: int = 0
    by_label: dict[str, int] = Field(default_factory=dict)
    by_surface: dict[str, Score] = Field(default_factory=dict)
    by_signal: dict[str, Score] = Field(default_factory=dict)
    by_family: dict[str, Score] = Field(default_factory=dict)
    #: the dialect every case was judged with, when overridden
    dialect: str | None = None
    misses: list[Miss] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.misses and not self.errors and self.cases > 0


def _files(paths: Iterable[str | Path]) -> Iterator[Path]:
    for p in paths:
        path = Path(p)
        if path.is_dir():
            yield from sorted(path.rglob("*.jsonl"))
        else:
            yield path


_SHOWN = 40


def case_problems(exc: ValidationError) -> str:
    """What is wrong with a case, field by field: ``field 'label': expected one of 'leak',
    'benign' or 'injection', got 'maybe'; field 'note': missing``."""
    problems: list[str] = []
    for error in exc.errors(include_url=False):
        field = ".".join(str(part) for part in error["loc"]) or "(the line)"
        kind = error["type"]
        if kind == "missing":
            problems.append(f"field {field!r}: missing (required)")
            continue
        if kind == "extra_forbidden":
            problems.append(f"field {field!r}: not a field of a case")
            continue
        got = repr(error.get("input"))
        if len(got) > _SHOWN:
            got = got[: _SHOWN - 3] + "..."
        msg = error["msg"]
        want = msg[0].lower() + msg[1:] if msg else "invalid"
        problems.append(f"field {field!r}: {want}, got {got}")
    return "; ".join(problems)


def load_cases(paths: Iterable[str | Path]) -> tuple[list[tuple[str, Case]], list[str]]:
    """Read cases from JSONL files or directories; bad lines become error strings."""
    cases: list[tuple[str, Case]] = []
    errors: list[str] = []
    seen: set[str] = set()
    for path in _files(paths):
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            errors.append(f"{path}: cannot read: {exc}")
            continue
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                case = Case.model_validate(json.loads(line))
            except json.JSONDecodeError as exc:
                errors.append(
                    f"{path}:{number}: invalid case: not JSON: {exc.msg} (column {exc.colno})"
                )
                continue
            except ValidationError as exc:
                errors.append(f"{path}:{number}: invalid case: {case_problems(exc)}")
                continue
            if case.id in seen:
                errors.append(f"{path}:{number}: duplicate id {case.id!r}")
                continue
            seen.add(case.id)
            cases.append((f"{path}:{number}", case))
    return cases, errors


def _hit_signals(verdict: Verdict) -> set[str]:
    return {code for hit in verdict.hits for code in hit.signals}


def _problem(case: Case, verdict: Verdict) -> str | None:
    if case.label == "leak":
        if not verdict.leak:
            return "missed leak"
        missing = set(case.signals) - _hit_signals(verdict)
        if missing:
            return f"expected signals {sorted(missing)} not found"
        if case.cut is not None and verdict.cut != case.cut:
            return f"cut {verdict.cut}, expected {case.cut}"
        return None
    if case.label == "injection":
        return None if verdict.injection else "missed injection"
    if verdict.leak:
        return "false positive"
    if verdict.injection:
        return "false injection"
    return None


def evaluate_cases(
    cases: Iterable[tuple[str, Case]], policy: Policy | None = None, dialect: str | None = None
) -> EvalReport:
    """Judge every case; ``dialect`` overrides each case's own (``"all"``: model unknown)."""
    report = EvalReport(dialect=dialect)
    for where, case in cases:
        report.cases += 1
        report.by_label[case.label] = report.by_label.get(case.label, 0) + 1
        try:
            verdict = detect(
                case.text,
                case.surface,
                dialect or case.dialect,
                policy,
                parsed_end=case.parsed_end,
                tool_name=case.tool_name,
                tools=case.tools,
                reasoning=case.reasoning,
            )
        except (TypeError, ValueError) as exc:
            report.errors.append(f"{where}: {case.id}: {exc}")
            continue
        positive = case.label != "benign"
        found = verdict.leak or bool(verdict.injection)
        for score in (
            report.by_surface.setdefault(case.surface.value, Score()),
            report.by_family.setdefault(case.family or case.dialect, Score()),
        ):
            if positive and found:
                score.tp += 1
            elif positive:
                score.fn += 1
            elif found:
                score.fp += 1
            else:
                score.tn += 1
        tripping = set(verdict.signals)
        for code in sorted(set(case.signals) | tripping):
            s = report.by_signal.setdefault(code, Score())
            if code in case.signals and positive:
                if found and code in _hit_signals(verdict):
                    s.tp += 1
                else:
                    s.fn += 1
            elif not positive and code in tripping:
                s.fp += 1
        problem = _problem(case, verdict)
        if problem:
            report.misses.append(
                Miss(
                    id=case.id,
                    path=where,
                    surface=case.surface,
                    label=case.label,
                    problem=problem,
                    reason=verdict.reason,
                )
            )
    return report


def render(report: EvalReport) -> str:
    """The human summary ``guard eval`` prints."""
    lines = [
        f"cases: {report.cases} ("
        + ", ".join(f"{k} {v}" for k, v in sorted(report.by_label.items()))
        + ")"
        + (f"; every case judged with dialect {report.dialect!r}" if report.dialect else ""),
        "",
        "| surface | precision | recall | false positives | tp | fn | tn |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, s in sorted(report.by_surface.items()):
        lines.append(
            f"| {name} | {s.precision:.3f} | {s.recall:.3f} | {s.fp} | {s.tp} | {s.fn} | {s.tn} |"
        )
    lines += [
        "",
        "| signal | precision | recall | false positives | tp | fn |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for code, s in sorted(report.by_signal.items()):
        lines.append(f"| {code} | {s.precision:.3f} | {s.recall:.3f} | {s.fp} | {s.tp} | {s.fn} |")
    if len(report.by_family) > 1:
        lines += [
            "",
            "| family | precision | recall | false positives | tp | fn | tn |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for name, s in sorted(report.by_family.items()):
            lines.append(
                f"| {name} | {s.precision:.3f} | {s.recall:.3f} | {s.fp} | {s.tp} | {s.fn}"
                f" | {s.tn} |"
            )
    lines.append("")
    if report.misses:
        lines.append(f"misses: {len(report.misses)}")
        lines += [
            f"  {m.path} {m.id} [{m.label}/{m.surface.value}]: {m.problem} — {m.reason}"
            for m in report.misses
        ]
    else:
        lines.append("misses: 0")
    for error in report.errors:
        lines.append(f"error: {error}")
    return "\n".join(lines)
