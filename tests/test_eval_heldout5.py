"""The fifth held-apart evaluation set (`corpora/heldout5/`): it loads, its reports are not the
ones any other corpus paraphrases, and `guard eval --set heldout5` scores it per dialect family."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

from support.paths import ROOT

from guard.dialects import DIALECTS
from guard.evaluation import SETS, Case, load_cases, set_dir

HELDOUT5 = ROOT / "corpora" / "heldout5"
OTHERS = [
    ROOT / "corpora" / name
    for name in ("detect", "arguments", "heldout", "heldout2", "heldout3", "heldout4")
]


def _cases() -> list[Case]:
    cases, errors = load_cases([HELDOUT5])
    assert not errors
    return [c for _, c in cases]


def _url(source: str) -> str:
    return source.split(" ")[0]


def test_heldout5_is_a_named_set_and_loads() -> None:
    assert "heldout5" in SETS and set_dir("heldout5") == HELDOUT5
    cases = _cases()
    labels = Counter(c.label for c in cases)
    assert labels["leak"] >= 50 and labels["benign"] >= 50
    assert len({c.family for c in cases}) >= 10
    assert len({c.id for c in cases}) == len(cases)
    for c in cases:
        assert c.id.startswith("h5-"), c.id
        assert c.source.startswith("https://") and c.source.endswith("(paraphrased)"), c.id
        assert c.family and c.dialect in DIALECTS, c.id
        assert c.signals == () and c.cut is None and c.note, c.id


def test_heldout5_sources_do_not_overlap_the_other_corpora() -> None:
    others, _ = load_cases(OTHERS)
    used = {_url(c.source) for _, c in others}
    texts = {c.text for _, c in others}
    ids = {c.id for _, c in others}
    for c in _cases():
        url = _url(c.source)
        short = "/".join(url.split("/")[3:5]) + "#" + url.rsplit("/", 1)[-1]
        assert url not in used and short not in used, c.id
        assert c.text not in texts and c.id not in ids, c.id


def test_cli_prints_a_row_per_family() -> None:
    families = {c.family for c in _cases()}
    for extra in ((), ("--dialect", "all")):
        result = subprocess.run(
            [sys.executable, "-m", "guard", "eval", "--set", "heldout5", *extra],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode in (0, 1), result.stderr
        assert f"cases: {len(_cases())} " in result.stdout
        rows = {
            line.split("|")[1].strip()
            for line in result.stdout.splitlines()
            if line.startswith("| ") and line.count("|") == 8
        }
        assert families <= rows
