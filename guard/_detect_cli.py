"""``guard detect``: judge one answer (or one per line) and explain the verdict.

The verdict is :func:`guard.detect`'s; the explanation reuses the audit's finding (cut,
evidence, masked context) and its table, so that ``guard detect`` and ``guard audit`` show a
finding the same way.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from guard.dialects import DIALECTS
from guard.models import Surface

__all__ = ["add_detect_parser"]

_OUTPUT = {Surface.TEXT, Surface.THINKING, Surface.TOOL_ARG, Surface.TOOL_NAME}
_ROLE = {Surface.USER: "user", Surface.TOOL_RESULT: "tool"}


def _answers(text: str, lines: bool) -> list[tuple[int, str]]:
    """The answers to judge with their 1-based line numbers: the whole text, or each line (a
    trailing ``\\r`` of a CRLF line is not part of it; the empty piece after a final line
    break is not a line)."""
    if not lines:
        return [(1, text)]
    pieces = text.split("\n")
    if pieces and pieces[-1] == "":
        pieces.pop()
    return [(n, p.removesuffix("\r")) for n, p in enumerate(pieces, 1)]


def _explain(verdict: Any, finding: Any, label: str) -> list[str]:
    from guard.audit import finding_rows

    where = f"dialect {verdict.dialect}, surface {verdict.surface.value}"
    if finding is None:
        return [f"{label}: clean ({where})"]
    word = "LEAK" if finding.kind == "leak" else "INJECTION"
    lines = [f"{label}: {word} ({where}): {verdict.reason}"]
    lines.append(
        f"  signals {'+'.join(verdict.signals) or '-'}, cut {finding.cut}, score"
        f" {verdict.score:g}, hits {verdict.hits_total}"
    )
    lines += finding_rows([finding])
    for hit in verdict.hits:
        mark = " trips" if hit.trips else ""
        code = " in code" if hit.in_code else ""
        lines.append(
            f"    hit {hit.label} at {hit.start}-{hit.end}{mark}{code}:"
            f" {json.dumps(hit.evidence, ensure_ascii=False)}"
            + (f" ({hit.detail})" if hit.detail else "")
        )
    return lines


def _cmd_detect(args: argparse.Namespace) -> int:
    from guard import detect
    from guard._detect import _surface
    from guard.audit import finding_for
    from guard.cli import EXIT_FINDINGS, EXIT_OK, _read_text
    from guard.dialects import get_dialect
    from guard.gate import Policy

    surface = _surface(args.surface)
    dialect = get_dialect(args.dialect)
    policy = Policy.load(args.policy) if args.policy else None
    tools = (
        [t.strip() for t in args.tools.split(",") if t.strip()] if args.tools is not None else None
    )
    text = _read_text(args.file, sys.stdin.buffer)
    label = "<stdin>" if args.file == "-" else args.file
    role = "assistant" if surface in _OUTPUT else _ROLE[surface]
    results: list[dict[str, Any]] = []
    out: list[str] = []
    found = 0
    answers = _answers(text, args.lines)
    for line, answer in answers:
        verdict = detect(answer, surface, dialect, policy, tools=tools)
        finding = finding_for(verdict, answer, path=label, line=line, role=role)
        if finding is not None and args.show_text:
            finding = finding.model_copy(update={"context": finding.context_text})
        found += finding is not None
        where = f"{label}:{line}" if args.lines else label
        if args.json:
            results.append(
                {
                    "line": line,
                    "verdict": verdict.model_dump(mode="json"),
                    "finding": None if finding is None else finding.model_dump(mode="json"),
                }
            )
        elif finding is not None or not args.lines:
            out += _explain(verdict, finding, where)
    if args.json:
        document = {"dialect": dialect.name, "surface": surface.value, "answers": results}
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        if args.lines:
            n = len(answers)
            out.append(f"{n:,} answer{'' if n == 1 else 's'}, {found:,} with a finding")
        sys.stdout.write("\n".join(out) + "\n")
    return EXIT_FINDINGS if found else EXIT_OK


def add_detect_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "detect",
        help="judge one answer (or one per line) and explain the verdict",
        description=(
            "Judge model output read as UTF-8 from FILE (or stdin, also as '-') with the same"
            " detection as guard.detect and guard audit, and explain the verdict: the signals,"
            " the cut (the offset from which the text is untrusted), the evidence with its"
            " context (masked unless --show-text) and every hit. On the input surfaces (user,"
            " tool_result) a finding is an injection: reserved spellings to escape. Exit codes:"
            " 0 clean, 1 a leak (or an injection on an input surface), 2 bad input (a file"
            " that cannot be read, text that is not UTF-8) or unusable arguments."
        ),
    )
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="the answer (default: -)")
    p.add_argument(
        "--dialect",
        default="harmony",
        help=f"dialect the model speaks: {', '.join(DIALECTS)}, or all (default: harmony)",
    )
    p.add_argument(
        "--surface",
        default=Surface.TEXT.value,
        help="where the text sits: text (default), thinking, tool_arg, tool_name (model"
        " output), user, tool_result (input)",
    )
    p.add_argument(
        "--lines",
        action="store_true",
        help="judge each line as one answer; only answers with a finding are explained",
    )
    p.add_argument("--policy", help="a policy file (.toml or .json)")
    p.add_argument(
        "--tools",
        metavar="NAMES",
        help="the tools the request declared, comma-separated (a call of another tool is a leak)",
    )
    p.add_argument("--json", action="store_true", help="print verdicts and findings as JSON")
    p.add_argument(
        "--show-text",
        action="store_true",
        help="show the text around the evidence unmasked (by default letters and digits are"
        " masked and only the matched spelling shows as is)",
    )
    p.set_defaults(handler=_cmd_detect)
