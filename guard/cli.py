"""The ``guard`` command line.

Each subcommand is a small function that takes parsed arguments and returns an exit code.
Exit codes: 0 success, 1 findings (for commands that look for them), 2 unusable input or usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from . import __version__
from .dialects import DIALECTS
from .escape import escape, escape_json, unescape, unescape_json

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_UNUSABLE = 2


class InputError(ValueError):
    """Input the command cannot use (unreadable file, invalid UTF-8, invalid JSON)."""


def _read_text(source: str, stdin: BinaryIO) -> str:
    if source == "-":
        data = stdin.read()
        label = "<stdin>"
    else:
        try:
            data = Path(source).read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read {source}: {exc.strerror or exc}") from None
        label = source
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{label}: expected UTF-8 text, got an invalid byte 0x{data[exc.start]:02x}"
            f" at offset {exc.start}"
        ) from None


def _cmd_escape(args: argparse.Namespace, *, reverse: bool) -> int:
    sources = args.files or ["-"]
    out = sys.stdout.buffer
    for source in sources:
        text = _read_text(source, sys.stdin.buffer)
        if args.json:
            try:
                result = (unescape_json if reverse else escape_json)(text, args.dialect)
            except ValueError as exc:
                raise InputError(f"{source if source != '-' else '<stdin>'}: {exc}") from None
        else:
            result = (unescape if reverse else escape)(text, args.dialect)
        out.write(result.encode("utf-8"))
    out.flush()
    return EXIT_OK


def _add_escape_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str) -> None:
    verb = "Undo escaping of" if name == "unescape" else "Escape"
    p = sub.add_parser(
        name,
        help=f"{verb} reserved spellings in untrusted text (stdin or files to stdout)",
        description=(
            f"{verb} every reserved control spelling of the dialect in the input. Input is read"
            " as UTF-8 from the files given (or stdin, also as '-') and written to stdout"
            " byte for byte otherwise unchanged."
        ),
    )
    p.add_argument("files", nargs="*", help="input files (default: stdin)")
    p.add_argument(
        "--dialect",
        default="harmony",
        help=f"dialect whose reserved set applies: {', '.join(DIALECTS)}, or all",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="treat each input as a JSON document and escape its string leaves and keys",
    )
    p.set_defaults(handler=lambda a: _cmd_escape(a, reverse=name == "unescape"))


def _cmd_eval(args: argparse.Namespace) -> int:
    from .evaluation import CORPUS_DIR, evaluate_cases, load_cases, render
    from .policy import Policy

    policy = Policy.load(args.policy) if args.policy else None
    paths = args.paths or [CORPUS_DIR]
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise InputError(f"no such file or directory: {', '.join(map(str, missing))}")
    cases, errors = load_cases(paths)
    report = evaluate_cases(cases, policy)
    report.errors[:0] = errors
    if args.json:
        sys.stdout.write(report.model_dump_json(indent=2) + "\n")
    else:
        sys.stdout.write(render(report) + "\n")
    if report.cases == 0:
        return EXIT_UNUSABLE
    return EXIT_OK if report.ok else EXIT_FINDINGS


def _add_eval_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "eval",
        help="measure the detector on labelled corpora (default: the shipped ones)",
        description=(
            "Run detection on labelled JSONL cases and print precision, recall and false"
            " positives per surface and per signal, and every case that disagrees with its"
            " label. Exit code 1 when any case disagrees, 2 when no case could be read."
        ),
    )
    p.add_argument("paths", nargs="*", help="JSONL files or directories (default: corpora/detect)")
    p.add_argument("--policy", help="a policy file (.toml or .json)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(handler=_cmd_eval)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="guard",
        description="Keep in-band tool-calling streams safe: escape, detect, evaluate.",
    )
    parser.add_argument("--version", action="version", version=f"guard {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_escape_parser(sub, "escape")
    _add_escape_parser(sub, "unescape")
    _add_eval_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return EXIT_UNUSABLE
    try:
        return int(handler(args))
    except InputError as exc:
        print(f"guard {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    except ValueError as exc:  # unknown dialect and other bad arguments
        print(f"guard {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
