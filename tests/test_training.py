"""The learned voice's training (``python -m guard.training``) and its corpus of ordinary
answers (``corpora/voice``): the shipped model is what the script trains from the corpora, its
threshold sits above every benign text the learned path judges, and the held-apart sets are
never read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.paths import ROOT

from guard.evaluation import SETS, load_cases, set_dir
from guard.signals.reasoning_notes import LEARNED_LITERALS, learned_window
from guard.signals.voice_model import load_model, parse_model
from guard.training import HELD_APART, train

#: the words the learned path's gate is built from (every text of the voice set holds one)
GATE_WORDS = ("Wait", "Hmm", "the user", "The user", "用户", "I should", "I need to")


def test_the_voice_set_is_benign_and_every_text_holds_a_gate_word() -> None:
    assert "voice" in SETS
    cases, errors = load_cases([set_dir("voice")])
    assert not errors and len(cases) >= 200
    assert {case.label for _, case in cases} == {"benign"}
    written = [case for _, case in cases if case.id.startswith("vb-")]
    assert len(written) == 220
    assert all(any(word in case.text for word in GATE_WORDS) for case in written)
    assert any(lit.startswith("The user ") for lit in LEARNED_LITERALS)
    judged = sum(learned_window(case.text) is not None for _, case in cases)
    assert judged >= 40  # the set reaches the model, not only the gate
    assert len({case.text for _, case in cases}) == len(cases)


def test_the_model_flags_no_benign_text_it_learned_from() -> None:
    model = load_model()
    for name in sorted(set(SETS) - HELD_APART):
        cases, _ = load_cases([set_dir(name)])
        for _, case in cases:
            if case.label == "benign" and case.surface.value == "text":
                window = learned_window(case.text)
                if window is not None:
                    assert model.score(window).margin <= 0, (name, case.id)


@pytest.mark.slow
def test_the_shipped_model_is_what_the_script_trains() -> None:
    shipped = load_model()
    fresh = parse_model(json.loads(json.dumps(train(ROOT / "corpora"))), "fresh")
    assert fresh.trained_on == shipped.trained_on
    assert fresh.bias == pytest.approx(shipped.bias, abs=1e-3)
    assert fresh.threshold == pytest.approx(shipped.threshold, abs=1e-3)
    common = fresh.weights.keys() & shipped.weights.keys()
    assert len(common) >= 0.99 * len(shipped.weights)
    assert max(abs(fresh.weights[k] - shipped.weights[k]) for k in common) < 1e-3


def test_the_held_apart_sets_are_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    import guard.training as training

    real = training.load_cases

    def spy(paths: list[Path]) -> object:
        read.extend(Path(p).name for p in paths)
        return real(paths)

    monkeypatch.setattr(training, "load_cases", spy)
    monkeypatch.setattr(training, "_fit", lambda grams, labels: ({}, 0.0))
    model = train(ROOT / "corpora")
    assert read and not set(read) & HELD_APART
    assert set(model["trained_on"]["held_apart"]) == HELD_APART
