"""V publishes a lead that holds a cue itself: answers that open with a common word ("So",
"We", "They", "Answer", "User") but hold no cue are no audit candidates (no full detection),
and every text V fires on still matches the lead (the promise prefilters and streams rely on)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from guard import detect
from guard.dialects import get_dialect
from guard.evaluation import CORPUS_DIR, load_cases
from guard.gate import prefilter
from guard.models import Surface, TextView
from guard.signals.reasoning_voice import ReasoningVoice

_V = ReasoningVoice()
_LEAD = re.compile(_V.triggers(get_dialect("harmony")).lead or "(?!)")

ORDINARY = [
    "So the short version is that the cache is rebuilt on start.",
    "So, to keep it simple, use the default settings.",
    "We can do this in two steps: export, then import.",
    "We tested this on the latest release and it works.",
    "They are both valid options, but the second is faster.",
    "Answer: yes, and the flag is on by default.",
    "User accounts are stored in the database, so back it up.",
    "User settings live in the profile page.",
    "The user interface has a dark mode since 2.3.",
]


def test_ordinary_openings_are_no_candidates() -> None:
    pf = prefilter(get_dialect("harmony"), frozenset({Surface.TEXT}))
    assert pf is not None
    for text in ORDINARY:
        assert not pf.could_hit(text), text
        assert not detect(text, reasoning=False).leak
    assert pf.candidates(ORDINARY) == []


def test_cue_openings_are_candidates() -> None:
    for text in (
        "The user asks for a joke. We need to answer with one.",
        "So the user wants a summary. Let's craft it.",
        "Answer: The user asks about 2+2. So answer 4.",
    ):
        assert _LEAD.match(TextView(text).norm), text


def test_every_v_hit_in_the_corpora_matches_the_lead() -> None:
    cases, _ = load_cases([CORPUS_DIR])  # the tuning corpus
    seen = 0
    for _, case in cases:
        if case.surface != Surface.TEXT:
            continue
        for reasoning in (False, None):
            verdict = detect(case.text, "text", case.dialect, reasoning=reasoning)
            if any(h.code == "V" for h in verdict.hits):
                seen += 1
                assert _LEAD.match(TextView(case.text).norm), case.id
    assert seen >= 10


_WORDS = st.sampled_from(
    [
        "So",
        "so",
        "the",
        "user",
        "User",
        "asks",
        "wants",
        "We",
        "we",
        "need",
        "to",
        "answer",
        "Let's",
        "craft",
        "Okay,",
        "Answer",
        "concisely",
        "They",
        "likely",
        "want",
        "fix",
        "is",
        "simple",
        "\n",
        "I",
        "should",
        "respond",
        "According",
        "policy",
        "Thus",
        "Provide",
        "a",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=14), st.sampled_from(["", " ", "  ", "\n"]))
def test_v_never_fires_without_its_lead(words: list[str], pad: str) -> None:
    text = pad + " ".join(words)
    for reasoning in (False, None, True):
        if any(h.code == "V" for h in detect(text, reasoning=reasoning).hits):
            assert _LEAD.match(TextView(text).norm), text
