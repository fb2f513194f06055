"""corpora/README.md counts what corpora/detect/ holds: each file's row (cases, leak, benign,
injection) and the totals line, so the description cannot drift from the data again."""

from __future__ import annotations

import json
import re
from collections import Counter

from support.paths import ROOT

DETECT = ROOT / "corpora" / "detect"
README = (ROOT / "corpora" / "README.md").read_text(encoding="utf-8")


def _labels() -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for path in sorted(DETECT.glob("*.jsonl")):
        counts: Counter[str] = Counter()
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                counts[json.loads(line)["label"]] += 1
        out[path.name] = counts
    return out


def test_each_file_row_counts_its_cases() -> None:
    rows = {
        m["file"]: tuple(int(x) if x else 0 for x in m.group("n", "leak", "benign", "inj"))
        for m in re.finditer(
            r"^\| `(?P<file>[\w.]+\.jsonl)` \|.*\| (?P<n>\d+) \| *(?P<leak>\d*) *\|"
            r" *(?P<benign>\d*) *\| *(?P<inj>\d*) *\|$",
            README,
            re.MULTILINE,
        )
    }
    found = {
        name: (sum(c.values()), c["leak"], c["benign"], c["injection"])
        for name, c in _labels().items()
    }
    assert rows == found


def test_the_totals_line_counts_every_case() -> None:
    total: Counter[str] = Counter()
    for counts in _labels().values():
        total.update(counts)
    line = (
        f"{sum(total.values())} cases in total: {total['leak']} leak, {total['benign']} benign,"
        f" {total['injection']} injection."
    )
    assert line in " ".join(README.split())
