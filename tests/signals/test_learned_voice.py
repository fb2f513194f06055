"""D's learned path: reasoning written into the middle or the end of an answer, judged by the
shipped model (signals/voice_model.json) behind a gate of spellings and a cue of the voice;
quiet with a reasoning part, on quoted text, on markup, on short texts and on what V or L
already read; explained; decided by streams as by ``detect`` at every split point."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard import detect, guard_stream
from guard.errors import ConfigError
from guard.signals import reasoning_notes
from guard.signals.reasoning_notes import LEARNED_LITERALS, MIN_WORDS, learned_window
from guard.signals.voice_model import FORMAT, features, load_model, parse_model, words

#: reasoning after a real answer paragraph, planning the reply in the third person
MIDDLE = (
    "Here are three names for the bakery: Crumb & Co, Rise Up, The Daily Loaf.\n\n"
    "The user said they like short names, so I should drop the longest one. Let me also check"
    " that none is taken. Fine, keep two.\n\n1. Crumb & Co\n2. Rise Up"
)
#: the same register between a status line and the summary
STATUS = (
    "The deploy finished and the health check is green.\n\nThe user wants a summary for the"
    " channel. I need to keep it to two lines and leave out the rollback details, since they"
    " did not ask for those.\n\nDeployed v2.4 to production; all checks pass."
)
LEAKS = [MIDDLE, STATUS]

BENIGN = [
    # documentation of a product and a ticket's summary, the user in the third person
    "Onboarding spec: The user wants to invite teammates, so step two of the wizard asks for"
    " their emails; the system sends each invite and shows a pending badge until it is accepted.",
    "Story BL-77: The user wants to filter invoices by status. The user said the list is too long"
    " to scroll. The user also asked for a saved filter. Estimate: 3 points. Sprint 14.",
    # an answer to the reader that sounds deliberative
    "Hmm, good question! I should point out that the v1 endpoint is deprecated, so use the v2"
    " endpoint instead; it accepts the same parameters and returns paginated results.",
    # a reviewer quoting a leak, in guillemets and in single quotes
    "Nota de la revisora: el modelo respondió «The user wants a recipe. I should list the"
    " ingredients first.» antes de dar la receta. Eso es una filtración del razonamiento.",
    "A sign of a sloppy chatbot transcript is the assistant narrating its own process: 'Hmm,"
    " the user seems frustrated. I should apologize first.' A good reply simply apologizes.",
    # an operator's report about work done
    "I ran the migration and all 14 tests pass. I need to flag one thing: the user table has"
    " duplicate emails, so the unique index was not created. Shall I deduplicate them first?",
]


@pytest.mark.parametrize("reasoning", [False, None])
@pytest.mark.parametrize("text", LEAKS)
def test_reasoning_in_the_middle_is_a_leak_by_the_learned_voice(
    text: str, reasoning: bool | None
) -> None:
    v = detect(text, reasoning=reasoning)
    assert v.leak and v.signals == ("D",), v.reason
    hit = v.hits[0]
    assert text[hit.start :].startswith(LEARNED_LITERALS)  # the gate spelling starts it
    assert hit.start > 0 and v.cut == hit.start  # the answer before it is kept
    assert "learned voice +" in hit.detail and "over its threshold" in hit.detail
    assert ("reasoning part unknown" if reasoning is None else "no reasoning part") in hit.detail
    assert "cues: " in hit.detail


@pytest.mark.parametrize("text", LEAKS)
def test_a_reasoning_part_turns_the_learned_path_off(text: str) -> None:
    assert not detect(text, reasoning=True).leak


@pytest.mark.parametrize("reasoning", [False, None])
@pytest.mark.parametrize("text", BENIGN)
def test_ordinary_answers_with_the_gate_spellings_pass(text: str, reasoning: bool | None) -> None:
    assert any(lit in text for lit in LEARNED_LITERALS)
    assert not detect(text, reasoning=reasoning).leak


@pytest.mark.parametrize(
    "wrap",
    [
        lambda t: "```\n" + t + "\n```",
        lambda t: "\n".join("> " + line for line in t.split("\n")),
        lambda t: "The reviewer flagged this reply: «" + t.replace("\n", " ") + "»",
    ],
)
def test_quoted_reasoning_is_not_scored(wrap: Any) -> None:
    text = wrap(MIDDLE)
    assert learned_window(text) is None
    assert not detect(text, reasoning=False).leak


def test_markup_leaves_the_text_to_the_token_signals() -> None:
    text = MIDDLE.replace("Rise Up", "<b>Rise Up</b>")
    assert learned_window(text) is None


def test_the_user_in_the_third_person_alone_is_not_judged() -> None:
    summary = BENIGN[1]
    assert "The user wants" in summary and learned_window(summary) is None


def test_a_leak_after_a_long_answer_is_scored_on_its_own_paragraphs() -> None:
    answer = "The build uses three stages, each cached separately. " * 40
    text = answer + "\n\n" + MIDDLE.split("\n\n", 1)[1]
    assert learned_window(text) == learned_window(MIDDLE)
    assert detect(text, reasoning=False).signals == ("D",)


def test_markup_in_code_does_not_switch_the_path_off() -> None:
    text = 'Use this check:\n\n```\nif a<b: print({"id": 1})\n```\n\n' + MIDDLE
    assert learned_window(text) is not None


def test_a_short_text_is_not_judged() -> None:
    short = "Here you go.\n\nThe user wants two names. I should keep them short."
    assert sum(w[-1].isalpha() for w in words(short)) < MIN_WORDS
    assert learned_window(short) is not None  # gate and cue are there: only the length is short
    assert not detect(short, reasoning=False).leak


def test_what_v_reads_stays_v() -> None:
    text = "The user asks for the weather. We need to answer.\n\nIt is sunny in Paris."
    assert detect(text, reasoning=False).signals == ("V",)


def test_the_gate_is_the_published_promise() -> None:
    """Every learned hit lies in a text that holds one of D's published literals."""
    triggers = reasoning_notes.ReasoningNotes().triggers(None)  # type: ignore[arg-type]
    for text in LEAKS:
        assert any(lit in text for lit in triggers.literals)
        assert all(lit in triggers.literals for lit in LEARNED_LITERALS)
        assert all(lit in triggers.hold_words for lit in LEARNED_LITERALS)


# -- the model and its file ------------------------------------------------------------------


def test_the_shipped_model_loads_and_says_what_it_learned_from() -> None:
    model = load_model()
    assert model.weights and math.isfinite(model.threshold)
    assert set(model.trained_on["held_apart"]) >= {"heldout42", "heldout43"}
    assert not set(model.trained_on["folders"]) & set(model.trained_on["held_apart"])
    assert model.trained_on["leaks"] > 500 and model.trained_on["benign"] > 1500


def test_features_are_word_and_character_n_grams() -> None:
    assert features("Wait, no.") == {
        "w wait", "w ,", "w no", "w .",
        "b wait ,", "b , no", "b no .",
        "t wait , no", "t , no .",
        "c wa", "c wai", "c wait",
        "cwai", "cwait", "cwait,",
        "cait", "cait,", "cait, ",
        "cit,", "cit, ", "cit, n",
        "ct, ", "ct, n", "ct, no",
        "c, n", "c, no", "c, no.",
        "c no", "c no.", "c no. ",
        "cno.", "cno. ",
        "co. ",
    }  # fmt: skip
    assert words("用户 wants 它.") == ["用", "户", "wants", "它", "."]


def test_the_score_names_the_n_grams_that_raised_it() -> None:
    score = load_model().score(MIDDLE)
    assert score.margin > 0 and len(score.top) == 3
    assert all(weight > 0 for _, weight in score.top)
    assert score.explain().startswith(f"learned voice {score.margin:+.2f} over its threshold (")


def test_a_non_finite_weight_is_refused() -> None:
    with pytest.raises(ConfigError, match="finite numbers"):
        parse_model(
            {"format": FORMAT, "weights": {"w a": math.nan}, "bias": 0, "threshold": 0}, "m"
        )


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([], "expected a JSON object, got list"),
        ({"format": 99}, f"expected format {FORMAT}, got 99"),
        ({"format": FORMAT, "weights": {"w a": "x"}}, "expected 'weights' to map"),
        ({"format": FORMAT, "weights": {}, "bias": True}, "finite number for 'bias'"),
        ({"format": FORMAT, "weights": {}, "bias": 0, "threshold": math.nan}, "'threshold'"),
    ],
)
def test_a_malformed_model_is_a_clear_error(data: Any, expected: str) -> None:
    with pytest.raises(ConfigError, match=r"model\.json: ") as info:
        parse_model(json.loads(json.dumps(data)) if data is not None else data, "model.json")
    assert expected in str(info.value)
    assert isinstance(info.value, ValueError)


def test_training_refuses_a_missing_corpora_folder(capsys: pytest.CaptureFixture[str]) -> None:
    from guard.training import main

    assert main(["--corpora", "/nonexistent/corpora", "--out", "/nonexistent/m.json"]) == 2
    assert "expected a corpora folder" in capsys.readouterr().err


# -- streams ---------------------------------------------------------------------------------


def _chunks(pieces: list[str]) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    return [*(chunk({"content": p}) for p in pieces if p), chunk({}, "stop")]


def _delivered(items: list[Any]) -> str:
    return "".join(
        c["delta"].get("content") or "" for item in items for c in item["choices"] if "delta" in c
    )


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_streams_decide_as_detect_at_any_split(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from([*LEAKS, *BENIGN]))
    cuts = sorted(data.draw(st.lists(st.integers(1, len(text) - 1), max_size=6, unique=True)))
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    whole = detect(text)
    stream = guard_stream(_chunks(pieces), on_leak="truncate")
    out = _delivered(list(stream))
    found = next(v for v in stream.verdicts if v.part == "text")
    assert found.leak == whole.leak and found.signals == whole.signals
    assert out == (text[: whole.cut] if whole.leak else text)
