"""The held-apart evaluation set (`corpora/heldout/`) and `guard eval --set` / `--dialect`: the
set is well formed, kept out of the tuning corpus, and scored per dialect family."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

from support.paths import ROOT

from guard.dialects import DIALECTS
from guard.evaluation import CORPUS_DIR, Case, evaluate_cases, load_cases, set_dir

HELDOUT = ROOT / "corpora" / "heldout"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guard", "eval", *args], capture_output=True, text=True, check=False
    )


def _heldout() -> list[Case]:
    cases, errors = load_cases([HELDOUT])
    assert not errors
    return [c for _, c in cases]


def test_heldout_has_60_leaks_and_60_benign_with_url_and_family() -> None:
    cases = _heldout()
    labels = Counter(c.label for c in cases)
    assert labels["leak"] >= 60 and labels["benign"] >= 60
    for c in cases:
        assert c.source.startswith("https://"), c.id
        assert c.family, c.id
        assert c.dialect in DIALECTS, c.id


def test_heldout_is_kept_apart_from_the_tuning_corpus() -> None:
    assert set_dir("detect") == CORPUS_DIR and set_dir("heldout") == HELDOUT
    tuning, _ = load_cases([CORPUS_DIR])
    heldout = _heldout()
    assert not {c.id for _, c in tuning} & {c.id for c in heldout}
    assert not {c.text for _, c in tuning} & {c.text for c in heldout}
    # the sources of the held-apart set are not the reports the tuning corpus paraphrases
    used = {c.source.split(" ")[0] for _, c in tuning}
    for c in heldout:
        url = c.source.split(" ")[0]
        short = "/".join(url.split("/")[3:5]) + "#" + url.rsplit("/", 1)[-1]
        assert short not in used and url not in used, c.id


def test_default_eval_does_not_read_the_heldout_set() -> None:
    result = run("--json")
    report = json.loads(result.stdout)
    assert report["cases"] == len(load_cases([CORPUS_DIR])[0])


def test_set_and_dialect_options_score_per_family() -> None:
    result = run("--set", "heldout", "--dialect", "all", "--json")
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    assert report["cases"] == len(_heldout()) and report["dialect"] == "all"
    families = {c.family for c in _heldout()}
    assert set(report["by_family"]) == families
    scored = sum(sum(s.values()) for s in report["by_family"].values())
    assert scored == report["cases"]


def test_dialect_override_changes_the_verdict() -> None:
    case = Case(
        id="x",
        text="Checking.<|tool_calls_section_begin|>",
        surface="text",
        dialect="harmony",
        label="leak",
        source="written",
        note="a Kimi token judged with and without Kimi",
        family="kimi",
    )
    assert evaluate_cases([("x", case)]).misses
    assert not evaluate_cases([("x", case)], dialect="kimi").misses
    assert evaluate_cases([("x", case)], dialect="kimi").by_family["kimi"].tp == 1


def test_bad_set_or_dialect_is_a_clear_error() -> None:
    both = run("--set", "heldout", str(HELDOUT))
    assert both.returncode == 2 and "not both" in both.stderr
    unknown = run("--set", "heldout", "--dialect", "no-such-dialect")
    assert unknown.returncode == 2 and "no-such-dialect" in unknown.stderr
