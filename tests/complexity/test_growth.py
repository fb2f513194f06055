"""Issue 33: adversarial text costs linear time and, on the streaming paths, a window of
memory. Every entry point runs each adversarial family (``benchmarks/_adversarial.py``) at a
size and at 4x that size; see ``growth.py`` for the bounds.

The default run (small sizes, for CI) covers the streams and the scanner on every family and
the whole-text entry points (``detect``, ``escape``, ``guard audit``) on the families that load
them, in the Harmony dialect, and every other dialect's own markers (split at every position)
through the raw stream. ``-m slow`` runs every entry point on every family in every
dialect at larger sizes.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from growth import check_growth, costs

from benchmarks._adversarial import (
    FAMILIES,
    SCANNER_DIALECTS,
    build,
    chat_chunk,
    chunked,
    system_turns,
    tool_chunks,
)
from guard import detect, escape, guard_stream, unescape
from guard.cli import main as cli_main
from guard.gate import Policy
from guard.scanners import scanner

pytestmark = pytest.mark.complexity

SMALL = 8_000
LARGE_SLOW = 64_000
#: bytes a bounded path may add at 4x the input beyond PEAK_RATIO (allocator and cache noise)
SLACK = 160_000
ENTRY_POINTS = ("detect", "escape", "unescape", "scanner", "stream raw", "stream dicts", "audit")
#: verdicts keep this many hits (the rest are counted): small, so the cap bounds small sizes too
POLICY = Policy(max_hits=16)
#: entry points that hold their whole input or output (their peak may grow in proportion)
WHOLE = frozenset({"detect", "escape", "unescape", "audit"})
#: (entry, family) cases whose streams must hold the text they judge: after a backtick run that
#: has found no partner (an unclosed span; an escaped run whose rest still opens one), every
#: hit stays undecided until the paragraph ends (the span may still close and make them code),
#: so the held text, runs and hits grow with the paragraph; time is still linear
HELD = frozenset(
    (e, f) for e in ("stream raw", "stream dicts") for f in ("unclosed span", "escaped backticks")
)


def _drain(items: object) -> None:
    for _ in items:  # type: ignore[attr-defined]
        pass


def runner(entry: str, family: str, dialect: str, size: int, tmp: Path) -> Callable[[], object]:
    """A call of ``entry`` on ``family``'s text of ``size`` characters (inputs built first)."""
    text = build(family, dialect, size)
    split = family == "markers split"
    if entry == "detect":
        return lambda: detect(text, dialect=dialect, policy=POLICY)
    if entry == "escape":
        return lambda: escape(text, dialect=dialect)
    if entry == "unescape":
        return lambda: unescape(text, dialect=dialect)
    if entry == "scanner":
        pieces = chunked(text, 4096, split=split)

        def scan() -> None:
            s = scanner(dialect)
            for piece in pieces:
                s.feed(piece)
            s.flush()

        return scan
    if entry == "stream raw":
        pieces = chunked(text, 4096, split=split)
        return lambda: _drain(
            guard_stream(iter(pieces), dialect=dialect, policy=POLICY, on_leak="report", raw=True)
        )
    if entry == "stream dicts":
        if family == "repeated calls":
            items = tool_chunks(dialect, max(1, size // 40))
        else:
            items = [chat_chunk(p) for p in chunked(text, 1024)]
        return lambda: _drain(
            guard_stream(iter(items), dialect=dialect, policy=POLICY, on_leak="report")
        )
    if entry == "audit":
        path = tmp / f"{size}.jsonl"
        path.write_text(
            json.dumps({"messages": [{"role": "assistant", "content": text}]}) + "\n",
            encoding="utf-8",
        )
        argv = ["audit", str(path), "--dialect", dialect, "--summary", "--fail-on", "none"]

        def audit() -> None:
            with contextlib.redirect_stdout(io.StringIO()):
                cli_main(argv)

        return audit
    raise ValueError(f"expected an entry point of {ENTRY_POINTS}, got {entry!r}")


#: cases known to break a bound, with the cause (issue 33): xfail, not strict (none now: a
#: flood of small calls kept a record per call until the call sets became runs of indexes and
#: a retired monitor let go of its settler)
KNOWN: dict[tuple[str, str], str] = {}


def _case(entry: str, family: str, dialect: str) -> object:
    reason = KNOWN.get((entry, family))
    marks = [pytest.mark.xfail(reason=reason, strict=False)] if reason else []
    return pytest.param(entry, family, dialect, id=f"{entry}-{family}-{dialect}", marks=marks)


#: the families the whole-text entry points run in the default run
WHOLE_FAMILIES = (
    "backtick runs",
    "markers split",
    "lookalike flood",
    "run of <",
    "run of [",
    "unterminated string",
    "nested JSON",
)
DEFAULT = (
    [_case(e, f, "harmony") for e in ("stream raw", "stream dicts", "scanner") for f in FAMILIES]
    + [_case(e, f, "harmony") for e in sorted(WHOLE) for f in WHOLE_FAMILIES]
    + [_case("stream raw", "markers split", d) for d in SCANNER_DIALECTS if d != "harmony"]
    # chatml judges the special-token shape of unlisted families, each token a named-in-prose
    # candidate (stop 58: the JSON-string check walked the whole run back from every token)
    + [_case(e, "run of <|name|>", "chatml") for e in ("detect", "stream raw", "audit")]
)
FULL = [_case(e, f, d) for d in SCANNER_DIALECTS for f in FAMILIES for e in ENTRY_POINTS]


def _check(entry: str, family: str, dialect: str, size: int, tmp: Path) -> None:
    """Measure at ``size`` and 4x; a broken bound is measured once more before it fails (a
    shared machine's noise rarely breaks it twice; a superlinear path always does)."""
    small_run = runner(entry, family, dialect, size, tmp)
    large_run = runner(entry, family, dialect, 4 * size, tmp)
    for attempt in range(2):
        small, large = costs(small_run, large_run)
        try:
            check_growth(
                small,
                large,
                bounded=entry not in WHOLE and (entry, family) not in HELD,
                slack=SLACK * size // SMALL,
                what=f"{entry} on {family} ({dialect}, {size:,} chars)",
            )
            return
        except AssertionError:
            if attempt:
                raise


@pytest.mark.parametrize(("entry", "family", "dialect"), DEFAULT)
def test_growth_small(entry: str, family: str, dialect: str, tmp_path: Path) -> None:
    _check(entry, family, dialect, SMALL, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize(("entry", "family", "dialect"), FULL)
def test_growth_large(entry: str, family: str, dialect: str, tmp_path: Path) -> None:
    _check(entry, family, dialect, LARGE_SLOW, tmp_path)


#: issue 33's second list, each at a size where the path before its fix broke the time bound
#: (shown failing on that code in the closing note); the time of ``backtick triples`` grew with
#: a line-start search per run, which only shows above the noise floor on longer lines
SECOND_LIST = [
    *[
        pytest.param(e, "escaped backticks", "harmony", SMALL, id=f"{e}-escaped backticks")
        for e in ("detect", "stream raw", "stream dicts")
    ],
    pytest.param("detect", "backtick triples", "harmony", 128_000, id="detect-backtick triples"),
    *[
        pytest.param(e, "unclosed span", "harmony", SMALL, id=f"{e}-unclosed span")
        for e in ("detect", "stream dicts")
    ],
    *[
        pytest.param(e, "backslash run", d, SMALL, id=f"{e}-backslash run-{d}")
        for d in ("deepseek", "deepseek_v32", "all")
        for e in ("escape", "unescape")
    ],
]


@pytest.mark.parametrize(("entry", "family", "dialect", "size"), SECOND_LIST)
def test_growth_second_list(
    entry: str, family: str, dialect: str, size: int, tmp_path: Path
) -> None:
    _check(entry, family, dialect, size, tmp_path)


def _audit_raw(text: str, path: Path) -> Callable[[], object]:
    path.write_text(text, encoding="utf-8")
    argv = ["audit", str(path), "--summary", "--fail-on", "none"]

    def audit() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            cli_main(argv)

    return audit


@pytest.mark.parametrize("dialect", ["harmony", "chatml"])
def test_growth_transcript_splitter(dialect: str, tmp_path: Path) -> None:
    """``guard audit`` of a raw transcript of consecutive system turns (each may open a new
    transcript): the splitter asks once per turn, not once per turn before it."""
    size = 32_000
    small_run = _audit_raw(system_turns(dialect, size), tmp_path / "small.txt")
    large_run = _audit_raw(system_turns(dialect, 4 * size), tmp_path / "large.txt")
    for attempt in range(2):
        small, large = costs(small_run, large_run)
        try:
            check_growth(
                small,
                large,
                bounded=False,
                slack=SLACK * size // SMALL,
                what=f"audit of {dialect} system turns ({size:,} chars)",
            )
            return
        except AssertionError:
            if attempt:
                raise
