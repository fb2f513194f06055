"""The ``guard`` command line.

Each subcommand is a small function that takes parsed arguments and returns an exit code.
Exit codes: 0 success, 1 findings (for commands that look for them), 2 unusable input or usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from guard import __version__
from guard.errors import InputError

if TYPE_CHECKING:
    from guard.audit import AuditReport

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_UNUSABLE = 2
EXIT_INTERNAL = 3


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
    from guard import escape, escape_json, unescape, unescape_json

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
    from guard.dialects import DIALECTS

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
    from guard.dialects import get_dialect
    from guard.evaluation import evaluate_cases, load_cases, render, set_dir
    from guard.gate import Policy

    policy = Policy.load(args.policy) if args.policy else None
    if args.set and args.paths:
        raise InputError("give paths or --set, not both")
    if args.dialect:
        get_dialect(args.dialect)
    try:
        paths = args.paths or [set_dir(args.set or "detect")]
    except ValueError as exc:
        raise InputError(str(exc)) from None
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise InputError(f"no such file or directory: {', '.join(map(str, missing))}")
    cases, errors = load_cases(paths)
    report = evaluate_cases(cases, policy, dialect=args.dialect)
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
    p.add_argument(
        "--set",
        metavar="NAME",
        help="a named corpora set instead of paths: detect (the tuning corpus, the default),"
        " arguments, or a held-apart evaluation set (heldout, heldout2, heldout3, ...: a"
        " corpora/heldout* folder; never mixed into detect)",
    )
    p.add_argument(
        "--dialect",
        help="judge every case with this dialect instead of its own ('all': model unknown)",
    )
    p.add_argument("--policy", help="a policy file (.toml or .json)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(handler=_cmd_eval)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _fail_on(text: str) -> str:
    """A ``--fail-on`` value, checked (``leak,error``), in its canonical spelling."""
    from guard.audit import FAIL_ON, parse_fail_on

    try:
        conditions = parse_fail_on(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated names from {', '.join(FAIL_ON)} (none alone), got {text!r}"
        ) from None
    return ",".join(c for c in FAIL_ON if c in conditions) or "none"


def _cmd_audit(args: argparse.Namespace) -> int:
    import json

    from guard.audit import ProgressBar, audit, input_bytes, load_tools_option, render

    if args.json and args.sarif == "-":
        raise InputError("--json and --sarif - both write to stdout: choose one")
    tools = None if args.tools is None else load_tools_option(args.tools)
    progress = ProgressBar.for_terminal(sys.stderr, input_bytes(args.paths))
    try:
        if args.engine == "ray":
            report = _audit_on_ray(args, progress, tools)
        elif args.ray_address is not None or args.ray_cpus is not None:
            raise InputError("--ray-address and --ray-cpus need --engine ray")
        else:
            report = audit(
                args.paths,
                format=args.format,
                dialect=args.dialect,
                policy=args.policy,
                workers=args.workers,
                progress=progress,
                max_line_bytes=args.max_line_bytes,
                tools=tools,
            )
    except (InputError, ValueError, TypeError):
        raise  # unusable arguments: exit 2
    except Exception as exc:  # a fault of guard outside any one input: no report at all
        print(
            f"guard audit: internal error ({type(exc).__name__}): no report; please report this",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
    finally:
        if progress is not None:
            progress.close()
    if args.show_text:
        report = report.with_text()
    if args.sarif:
        located = report.sarif(root=args.sarif_root, stdin_uri=args.sarif_uri)
        sarif = json.dumps(located, indent=2, ensure_ascii=False) + "\n"
        if args.sarif == "-":
            sys.stdout.write(sarif)
        else:
            try:
                Path(args.sarif).write_text(sarif, encoding="utf-8")
            except OSError as exc:
                raise InputError(f"cannot write {args.sarif}: {exc.strerror or exc}") from None
    if args.json:
        sys.stdout.write(report.model_dump_json(indent=2) + "\n")
    elif args.sarif != "-":
        rendered = render(report, summary=args.summary, fail_on=args.fail_on, style=args.style)
        sys.stdout.write(rendered + "\n")
    code, why = report.failure(args.fail_on)
    if report.summary.internal_errors:
        print(
            f"guard audit: error: {report.summary.internal_errors} internal error(s): the report"
            " is incomplete (see the errors marked internal)",
            file=sys.stderr,
        )
    elif code == EXIT_UNUSABLE:
        print(f"guard audit: error: {why}", file=sys.stderr)
    return code


def _audit_on_ray(args: argparse.Namespace, progress: Any, tools: Any) -> AuditReport:
    """``--engine ray``: the same report, the units judged on Ray (guard.integrations.ray)."""
    import logging

    from guard.integrations.ray import RayMissingError, audit_paths

    if args.workers != 1:
        raise InputError(
            "--workers sizes the local engine: with --engine ray, Ray's CPUs set the number of"
            " actors (--ray-cpus for a local Ray)"
        )
    try:  # the report is the output, not Ray's progress logs
        import ray.data

        ray.data.DataContext.get_current().enable_progress_bars = False
    except ImportError:
        pass  # audit_paths says which extra is missing
    for name in ("ray", "ray.data"):
        logging.getLogger(name).setLevel(logging.WARNING)
    try:
        return audit_paths(
            args.paths,
            format=args.format,
            dialect=args.dialect,
            policy=args.policy,
            max_line_bytes=args.max_line_bytes,
            address=args.ray_address,
            cpus=args.ray_cpus,
            progress=progress,
            tools=tools,
        )
    except RayMissingError as exc:
        raise InputError(str(exc)) from None


def _add_audit_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from guard.audit import DEFAULT_FAIL_ON, FORMATS, MAX_LINE_BYTES
    from guard.dialects import DIALECTS

    p = sub.add_parser(
        "audit",
        help="audit stored transcripts for leaks, injections and forged tool results",
        description=(
            "Run every message of every transcript through detection: model output gets leak"
            " verdicts, user input and tool results injection findings, and in raw"
            " transcripts a tool result written by the assistant is a forgery. Reads JSONL"
            " (OpenAI chat, Responses items, ChatGLM3 histories), raw Harmony text, raw"
            " transcripts of the other dialects (--format raw), plain model output"
            " (--format text), .gz files, directories (recursed) and '-' (stdin)."
            " Bad lines, undecodable lines and lines over --max-line-bytes are reported as"
            " errors with file and line; the rest is still audited. Exit codes: 0 nothing that"
            " --fail-on names; 1 something --fail-on names (by default a leak, a forgery or an"
            " error entry); 2 an input not read: a path missing or unreadable, an empty file,"
            " a file of a forced --format that yielded no transcript, no transcript at all, or"
            " unusable arguments; 3 internal error: guard itself failed on some input (an"
            " unexpected exception, a worker process lost), the report is incomplete (3 wins"
            " over 2, 2 over 1). A failing run's report opens with a line that says what failed."
        ),
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, directories, or - for stdin")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="auto",
        help="transcript format (default: auto, sniffed per file and shown in the report)",
    )
    p.add_argument(
        "--dialect",
        help=f"dialect to judge against: {', '.join(DIALECTS)}, or all"
        " (default: chatglm3 for ChatGLM3 histories, the sniffed dialect for raw"
        " transcripts, harmony otherwise)",
    )
    p.add_argument("--policy", help="a policy file (.toml or .json)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON document")
    p.add_argument("--sarif", metavar="FILE", help="also write SARIF 2.1.0 to FILE (- for stdout)")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="processes to audit files and chunks of large files in (same report for any N)",
    )
    p.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: this machine's processes (--workers); ray: Ray actors, same report"
        " (needs the ray extra; also reads Parquet and the URIs of Ray's filesystems)",
    )
    p.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="--engine ray: an existing Ray cluster (auto, ray://host:10001); default: a local Ray",
    )
    p.add_argument(
        "--ray-cpus",
        type=_positive_int,
        metavar="N",
        help="--engine ray: CPUs of the local Ray (default: all)",
    )
    p.add_argument(
        "--max-line-bytes",
        type=_positive_int,
        default=MAX_LINE_BYTES,
        metavar="N",
        help="a longer line (or --format text file) is an error entry, never read whole"
        f" (default: {MAX_LINE_BYTES:,} = 64 MiB)",
    )
    p.add_argument(
        "--tools",
        metavar="T",
        help="declared tools for records without a tools list: comma-separated names or a JSON"
        " file of tool definitions (a call of another tool is a leak)",
    )
    p.add_argument(
        "--fail-on",
        type=_fail_on,
        default=DEFAULT_FAIL_ON,
        metavar="WHAT",
        help="exit 1 on any of (comma-separated): leak (leaks and forgeries), injection (any"
        " finding), error (a line or message that could not be read); none: never."
        f" Default: {DEFAULT_FAIL_ON}. To let unreadable lines pass, leave error out"
        " (--fail-on leak). Inputs not read at all exit 2 whatever --fail-on says",
    )
    from guard._audit_cli import add_report_options

    add_report_options(p)
    p.set_defaults(handler=_cmd_audit)


def build_parser() -> argparse.ArgumentParser:
    # the subcommands' modules (and the dialect records their choices come from) are imported
    # here, not with this module: `guard --version` needs none of them
    from guard._detect_cli import add_detect_parser
    from guard._serve_cli import add_serve_parser

    parser = argparse.ArgumentParser(
        prog="guard",
        description="Keep in-band tool-calling streams safe: escape, detect, audit, eval, serve.",
    )
    parser.add_argument("--version", action="version", version=f"guard {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_escape_parser(sub, "escape")
    _add_escape_parser(sub, "unescape")
    add_detect_parser(sub)
    _add_eval_parser(sub)
    _add_audit_parser(sub)
    add_serve_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words[:1] == ["--version"]:
        # what the parser's --version prints, without building the parser
        print(f"guard {__version__}")
        return EXIT_OK
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
