"""The learned voice: the model file, its features, and the one place signal L counts it."""

from __future__ import annotations

import hashlib
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.splits import assert_every_split

from guard import detect
from guard.errors import GuardError, PackageDataError
from guard.signals import _learned_voice as voice

ROOT = Path(__file__).resolve().parents[2]

#: short notes before the answer: one strong cue (the user in the third person) and a plan,
#: too little for the rules alone while the reasoning part is unknown
DECIDED_WITH_THE_MODEL = [
    "The user asks how many hours are in three days. 3 × 24 = 72. Answer briefly.\n\n"
    "Three days have 72 hours.",
    "The user asks who I am. I'm Nova, made by Acme. Answer briefly and friendly.\n\n"
    "Hi! I'm Nova, an assistant made by Acme. What can I do for you?",
    "The user wants the port. The config says 8080 but the README says 3000; the config wins,"
    " go with 8080. Answer with the number only.\n\n8080",
    'The user asks to translate "good morning" into French. Simple. Answer briefly.\n\nBonjour !',
]

NEAR_MISSES = [
    # a support note that only reports the user: words cannot tell it from a leak
    "The user asked how to reset their password. I sent the reset link and they confirmed it"
    " worked. No follow-up needed.",
    "The user asks how many hours are in three days, and the answer is 72: multiply 3 by 24."
    " Let me know if you need minutes too.",
    "Thinking about your question, the short answer is yes: Python's sort is stable.",
    # too few words for a model of words (with no reasoning part, the rules decide this one)
    "The user asks the time. Answer briefly.",
    "**Choosing a database**\n\nI've decided to go with Postgres: it handles JSON well.",
    "User writes: 'the app crashes'. We asked for the log. Let me draft the reply for you:"
    "\n\nHi! Could you send the log?",
]


@pytest.mark.parametrize("text", DECIDED_WITH_THE_MODEL)
def test_the_model_decides_a_short_note_the_rules_leave_open(text: str) -> None:
    verdict = detect(text, "text", "chatml")
    assert verdict.leak and verdict.signals == ("L",), verdict.reason
    detail = verdict.hits[0].detail
    assert "learned voice at 0" in detail and "; learned voice 0." in detail
    with voice.using(None):
        assert not detect(text, "text", "chatml").leak


@pytest.mark.parametrize("text", DECIDED_WITH_THE_MODEL)
def test_a_reasoning_part_keeps_the_model_out(text: str) -> None:
    assert not detect(text, "text", "chatml", reasoning=True).leak


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_answers_the_model_must_not_decide(text: str) -> None:
    assert not detect(text, "text", "chatml").leak


@pytest.mark.parametrize("text", DECIDED_WITH_THE_MODEL[::2])
def test_every_split_gets_the_whole_verdict(text: str) -> None:
    assert assert_every_split(text, "text", "chatml").leak


def test_a_long_answer_is_judged_on_its_opening_alike_whole_and_streamed() -> None:
    text = DECIDED_WITH_THE_MODEL[0] + "\n\n" + "More detail follows here. " * 400
    assert detect(text, "text", "chatml").leak
    assert assert_every_split(text[:700], "text", "chatml").leak


# --- the features --------------------------------------------------------------------------


@given(st.text(max_size=800))
def test_features_are_counts_over_the_root_of_their_sum(text: str) -> None:
    x = voice.features(text)
    root = sum(x.values())  # n / sqrt(n) = sqrt(n) for n counted features
    assert all(math.isclose(v * root, round(v * root), abs_tol=1e-6) for v in x.values())
    assert 0.0 <= voice.score(text).probability <= 1.0


@given(st.text(min_size=voice.WINDOW, max_size=voice.WINDOW + 40), st.text(max_size=200))
def test_only_the_window_is_read(text: str, more: str) -> None:
    assert voice.features(text) == voice.features(text + more)


def test_the_user_is_not_a_feature() -> None:
    x = voice.features("The user asks. User wants. the user's request. users")
    assert x and not any("user" in k for k in x)


def test_the_explanation_names_the_features_that_pushed() -> None:
    s = voice.score(DECIDED_WITH_THE_MODEL[0])
    assert s.probability >= 0.7 and s.top
    assert s.explain().startswith(f"learned voice {s.probability:.2f} (")


def test_using_nests_and_restores() -> None:
    model = voice.Model(10.0, {})
    with voice.using(model):
        assert voice.score("anything at all").probability > 0.99
        with voice.using(None):
            assert voice.score("anything at all").probability == 0.0
        assert voice.score("anything at all").probability > 0.99
    assert voice.score("anything at all").probability < 0.99


# --- the model file ------------------------------------------------------------------------


def test_the_shipped_file_matches_its_pinned_digest() -> None:
    raw = (ROOT / "signals" / voice.MODEL_FILE).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == voice.SHA256
    model = voice.parse_model(raw)
    assert model.weights and all(abs(w) >= 0.01 for w in model.weights.values())


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"{not json", "expected JSON"),
        (b"[]", "expected keys bias, weights, window; got list"),
        (b'{"bias": 0, "weights": {}}', "expected keys bias, weights, window; got ['bias'"),
        (b'{"bias": 0, "weights": {}, "window": 10}', "expected window 600, got 10"),
        (b'{"bias": "0", "weights": {}, "window": 600}', "expected a number bias"),
        (b'{"bias": 0, "weights": {"w:a": "x"}, "window": 600}', "every weight to be a number"),
    ],
)
def test_a_damaged_model_is_a_clear_error(raw: bytes, expected: str) -> None:
    with pytest.raises(PackageDataError, match=r"learned_voice\.json: ") as caught:
        voice.parse_model(raw)
    assert expected in str(caught.value)
    assert isinstance(caught.value, GuardError) and isinstance(caught.value, RuntimeError)


def test_a_file_that_fails_its_digest_or_is_missing_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    voice._model.cache_clear()
    monkeypatch.setattr(voice, "SHA256", "f" * 64)
    with pytest.raises(PackageDataError, match=r"expected SHA-256 f{64}, got [0-9a-f]{64}"):
        voice._model()
    monkeypatch.setattr(voice, "MODEL_FILE", "no_such_model.json")
    with pytest.raises(PackageDataError, match="could not read it"):
        voice._model()
    monkeypatch.undo()
    voice._model.cache_clear()
    assert voice._model().weights


@pytest.mark.slow
def test_the_shipped_model_is_the_one_the_corpora_train() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "corpora" / "train_learned_voice.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
