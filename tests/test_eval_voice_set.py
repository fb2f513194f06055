"""The voice set (``corpora/voice``): ordinary answers that hold the words a reasoning-voice
rule or model would key on, and leaked reasoning placed before or after a real answer. It loads,
every written text holds one of those words, and ``guard eval --set voice`` stays at or above
the recall and at or below the false positives measured when the set was added (stop 55)."""

from __future__ import annotations

import json
import subprocess
import sys

from support.paths import ROOT

from guard.evaluation import SETS, load_cases, set_dir

#: the words the set's ordinary answers were written around (each holds at least one)
WORDS = ("Wait", "Hmm", "the user", "The user", "用户", "I should", "I need to")


def test_the_voice_set_loads_and_its_written_answers_hold_the_words() -> None:
    assert "voice" in SETS
    cases, errors = load_cases([set_dir("voice")])
    assert not errors
    by_prefix = {
        p: [c for _, c in cases if c.id.startswith(p)] for p in ("vb-", "vr-", "vs-", "vl-")
    }
    assert [len(v) for v in by_prefix.values()] == [220, 237, 240, 40]
    assert all(any(w in c.text for w in WORDS) for c in by_prefix["vb-"])
    assert {c.label for c in by_prefix["vl-"]} == {"leak"}
    assert {c.label for p in ("vb-", "vr-", "vs-") for c in by_prefix[p]} == {"benign"}
    assert len({c.text for _, c in cases}) == len(cases)


def test_eval_on_the_voice_set_does_not_regress() -> None:
    for extra in ([], ["--dialect", "all"]):
        out = subprocess.run(
            [sys.executable, "-m", "guard", "eval", "--set", "voice", "--json", *extra],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        text = json.loads(out.stdout)["by_surface"]["text"]
        assert text["tp"] >= 16 and text["fp"] <= 1, (extra, text)
