"""New generations' markup (Solar Open, LongCat-Flash, ModelScope-Agent under ``chatml``, where
stacks that do not know them serve them; Hunyuan 3 and 4's suffixed tags under ``hunyuan`` and
``chatml``): each leaks as markup in an answer, passes when named in prose or quoted in code,
and is escaped in untrusted input."""

from __future__ import annotations

import pytest
from support.splits import assert_every_split

from guard import detect, escape

#: (leaked answer, the dialects it is served as, the spelling it trips on)
LEAKS = [
    (
        "Seoul is clear.\n<|tool_call:start|>get_weather\n<|tool_arg:start|>city"
        "<|tool_arg:value|>Busan<|tool_arg:end|>\n<|tool_call:end|>",
        ("chatml", "all"),
        "<|tool_call:start|>",
    ),
    (
        "<|think:start|>check the units<|think:end|>It is 42 km.",
        ("chatml", "all"),
        "<|think:start|>",
    ),
    (
        "<|tool_call:begin|>call_1<|tool_call:name|>search<|tool_call:args|>{}<|tool_call:end|>",
        ("chatml", "all"),
        "<|tool_call:begin|>",
    ),
    (
        "convert<longcat_arg_key>amount</longcat_arg_key>\n<longcat_arg_value>250</longcat_arg_value>",
        ("chatml", "qwen3_coder", "all"),
        "<longcat_arg_key>",
    ),
    (
        "Done.</longcat_s><longcat_observation><longcat_tool_response>x",
        ("chatml", "all"),
        "</longcat_s>",
    ),
    (
        '<|startofthink|>{"api_name": "t", "parameters": {}}<|endofthink|>',
        ("chatml", "all"),
        "<|startofthink|>",
    ),
    (
        "<think:opensource>Check the units.</think:opensource>About 2 hours 40 minutes.",
        ("hunyuan", "chatml", "all"),
        "<think:opensource>",
    ),
    (
        "<tool_call:opensource>get_rate</arg_value:opensource>",
        ("hunyuan", "chatml", "all"),
        "<tool_call:opensource>",
    ),
    ("<tool_call>get_rate<tool_sep>\n<arg_key>pair</arg_key>", ("hunyuan",), "<tool_call>"),
    ("Sure.<｜hy_eos:opensource｜>", ("hunyuan", "chatml", "all"), "<｜hy_eos:opensource｜>"),
]


@pytest.mark.parametrize(
    ("text", "dialect", "spelling"),
    [(t, d, s) for t, dialects, s in LEAKS for d in dialects],
)
def test_a_new_generations_markup_in_an_answer_trips(
    text: str, dialect: str, spelling: str
) -> None:
    v = detect(text, dialect=dialect)
    assert v.leak and "H" in v.signals, v.reason
    assert text[v.cut :].startswith(spelling), (v.cut, v.reason)


@pytest.mark.parametrize(("text", "_dialects", "spelling"), LEAKS)
def test_named_in_prose_or_quoted_in_code_it_passes(
    text: str, _dialects: tuple[str, ...], spelling: str
) -> None:
    dialect = _dialects[0]
    assert not detect(f"The parser splits on `{spelling}` first.", dialect=dialect).leak
    assert not detect(f"```\n{text}\n```", dialect=dialect).leak
    named = f"The template wraps calls in {spelling} markers, like the others."
    assert not detect(named, dialect=dialect).leak, detect(named, dialect=dialect).reason


@pytest.mark.parametrize(("text", "_dialects", "spelling"), LEAKS)
def test_untrusted_input_is_escaped(text: str, _dialects: tuple[str, ...], spelling: str) -> None:
    for dialect in _dialects:
        assert spelling not in escape(text, dialect), dialect


@pytest.mark.parametrize("text", [LEAKS[0][0], LEAKS[6][0]])
def test_every_split(text: str) -> None:
    dialect = "hunyuan" if "opensource" in text else "chatml"
    assert assert_every_split(text, "text", dialect, never_past_cut=True).leak
