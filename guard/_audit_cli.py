"""``guard audit``'s report options (what the report shows and how SARIF names files), kept
apart from :mod:`guard.cli` so that they stay in one place."""

from __future__ import annotations

import argparse

__all__ = ["add_report_options"]


def add_report_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--show-text",
        action="store_true",
        help="show the text around each finding unmasked (table, --json and --sarif); for"
        " auditing your own logs. By default only the evidence (the matched spelling or"
        " marker) is shown as is and the surrounding text is masked",
    )
    p.add_argument(
        "--style",
        choices=("table", "lines", "github"),
        default="table",
        help="how findings are shown: table (grouped by file, default); lines (one per"
        " finding, 'path:line: kind signals evidence (surface)', the form editors and"
        " pre-commit link to); github (GitHub workflow commands, which Actions turns into"
        " annotations on the file and line). The totals follow in every style",
    )
    p.add_argument(
        "--summary",
        action="store_true",
        help="print only the totals, not the findings grouped by file",
    )
    p.add_argument(
        "--sarif-root",
        metavar="DIR",
        help="paths under DIR become URIs relative to %%SRCROOT%% in the SARIF output"
        " (default: the working directory, e.g. the repository's checkout)",
    )
    p.add_argument(
        "--sarif-uri",
        metavar="URI",
        default="stdin",
        help="the relative URI that stands for standard input in the SARIF output (default: stdin)",
    )
