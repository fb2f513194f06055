"""The second held-apart evaluation set (`corpora/heldout2/`): it loads, its reports are not the
ones any other corpus paraphrases, and `guard eval --set heldout2` scores it per dialect family."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

from support.paths import ROOT

from guard.dialects import DIALECTS
from guard.evaluation import SETS, Case, load_cases, set_dir

HELDOUT2 = ROOT / "corpora" / "heldout2"
OTHERS = [ROOT / "corpora" / name for name in ("detect", "arguments", "heldout")]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guard", "eval", *args], capture_output=True, text=True, check=False
    )


def _cases() -> list[Case]:
    cases, errors = load_cases([HELDOUT2])
    assert not errors
    return [c for _, c in cases]


def _url(source: str) -> str:
    return source.split(" ")[0]


def test_heldout2_is_a_named_set_and_loads() -> None:
    assert "heldout2" in SETS and set_dir("heldout2") == HELDOUT2
    cases = _cases()
    labels = Counter(c.label for c in cases)
    assert labels["leak"] >= 40 and labels["benign"] >= 40
    assert len({c.family for c in cases}) == 9
    for c in cases:
        assert c.id.startswith("h2-"), c.id
        assert c.source.startswith("https://") and c.source.endswith("(paraphrased)"), c.id
        assert c.family and c.dialect in DIALECTS, c.id
        assert c.note, c.id


def test_heldout2_sources_do_not_overlap_the_other_corpora() -> None:
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
        result = run("--set", "heldout2", *extra)
        assert result.returncode in (0, 1), result.stderr
        assert f"cases: {len(_cases())} " in result.stdout
        rows = {
            line.split("|")[1].strip()
            for line in result.stdout.splitlines()
            if line.startswith("| ") and line.count("|") == 8
        }
        assert families <= rows


def test_unknown_set_is_a_clear_error() -> None:
    result = run("--set", "no-such-set")
    assert result.returncode not in (0, 1)
    assert "unknown set" in result.stderr and "heldout2" in result.stderr
    assert "Traceback" not in result.stderr


def test_readme_counts_match_the_set() -> None:
    readme = " ".join((ROOT / "corpora" / "README.md").read_text(encoding="utf-8").split())
    cases = _cases()
    labels = Counter(c.label for c in cases)
    assert (
        f"`leaks.jsonl` holds {labels['leak']} leaks and `benign.jsonl` {labels['benign']}"
        f" benign texts, {len(cases)} in all" in readme
    )
    for family in sorted({c.family for c in cases}):
        fam = [c for c in cases if c.family == family]
        dialects = ", ".join(f"`{d}`" for d in sorted({c.dialect for c in fam}))
        leak = sum(c.label == "leak" for c in fam)
        row = f"| {family} | {dialects} | {leak} | {len(fam) - leak} |"
        assert row in readme, row
