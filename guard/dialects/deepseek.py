"""DeepSeek (V3 / R1 / V3.1 tokens; DSML tags for V3.2 / V4); summarised in
docs/wire-formats.md, "Other dialects".

Two records share DeepSeek's tokenizer (so one reserved set): ``deepseek`` for the tool tokens of
V3, R1 and V3.1, and ``deepseek_v32`` for the DSML tags of V3.2 (and V4, second-hand), whose
result opening is ``<function_results>``.

The bars in DeepSeek tokens are FULLWIDTH VERTICAL LINE (U+FF5C, ``｜``) and the word separator
is LOWER ONE EIGHTH BLOCK (U+2581, ``▁``); ASCII look-alikes are different text. The exception is
``<|EOT|>``, which uses ASCII bars.
"""

from __future__ import annotations

from guard.dialects._record import Dialect, TurnGrammar

#: Every reserved spelling of DeepSeek's tokenizer and of the DSML tag set.
_RESERVED: tuple[str, ...] = (
    # Sentence markers (ids 0..2).
    "<｜begin▁of▁sentence｜>",
    "<｜end▁of▁sentence｜>",
    "<｜▁pad▁｜>",
    # Search, fill-in-the-middle and role markers.
    "<｜search▁begin｜>",
    "<｜search▁end｜>",
    "<｜fim▁hole｜>",
    "<｜fim▁begin｜>",
    "<｜fim▁end｜>",
    "<｜User｜>",
    "<｜Assistant｜>",
    "<|EOT|>",
    "<think>",
    "</think>",
    # Tool-call tokens.
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>",
    # Tool-output tokens.
    "<｜tool▁outputs▁begin｜>",
    "<｜tool▁outputs▁end｜>",
    "<｜tool▁output▁begin｜>",
    "<｜tool▁output▁end｜>",
    # V4 additions (second-hand).
    "<｜begin▁sys｜>",
    "<｜end▁sys｜>",
    "<｜latest_reminder｜>",
    "<｜action｜>",
    "<｜query｜>",
    "<dsml:",
    "</dsml:",
    # DSML tags, fullwidth and ASCII. The bare namespace marks every DSML tag, including
    # ones not listed here; the full tags are spelled out for the scanner and the docs.
    "｜DSML｜",
    "|DSML|",
    "<｜DSML｜function_calls>",
    "</｜DSML｜function_calls>",
    "<｜DSML｜tool_calls>",
    "</｜DSML｜tool_calls>",
    "<｜DSML｜invoke",
    "</｜DSML｜invoke>",
    "<｜DSML｜parameter",
    "</｜DSML｜parameter>",
    "<|DSML|function_calls>",
    "</|DSML|function_calls>",
    "<|DSML|tool_calls>",
    "</|DSML|tool_calls>",
    "<|DSML|invoke",
    "</|DSML|invoke>",
    "<|DSML|parameter",
    "</|DSML|parameter>",
    # DSML-era tool results: V3.2 `<function_results>`, V4 `<tool_result>` (unverified).
    "<function_results>",
    "</function_results>",
    "<tool_result>",
    "</tool_result>",
)

_PATTERNS: tuple[str, ...] = (
    # <｜place▁holder▁no▁N｜>, N = 0..799.
    r"<｜place▁holder▁no▁\d{1,3}｜>",
    # V4 multimodal placeholders, ASCII bars (second-hand).
    r"<\|place_holder_mm_span_\d{1,5}\|>",
    # Any other fullwidth-bar token (V4 sys / reminder / file and repo markers).
    r"<｜[A-Za-z_▁][A-Za-z0-9_.▁]{0,63}｜>",
)

DEEPSEEK = Dialect(
    name="deepseek",
    aliases=("deepseek-v3", "deepseek-v3.1", "deepseek-r1"),
    reserved=_RESERVED,
    reserved_patterns=_PATTERNS,
    call_open=("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>"),
    call_close=("<｜tool▁calls▁end｜>", "<｜tool▁call▁end｜>"),
    # oh-my-pi's two tool-output tokens, plus the DSML-era result openers it misses.
    result_open=(
        "<｜tool▁outputs▁begin｜>",
        "<｜tool▁output▁begin｜>",
        "<function_results>",
        "<tool_result>",
    ),
    # A leading bare </think> is normal in V3.1 non-thinking mode.
    thinking=(("<think>", "</think>"),),
    stop=("<｜end▁of▁sentence｜>", "<|EOT|>"),
    family="DeepSeek V3 / R1 / V3.1 (fullwidth tool tokens; DSML spellings reserved too)",
    sources=(
        "can1357/oh-my-pi docs/toolconv/deepseek.md",
        "DeepSeek-V3.2 encoding_dsv32.py (vLLM copy)",
    ),
    transcript=TurnGrammar(
        (("<｜User｜>", "user"), ("<｜Assistant｜>", "assistant")),
        ends=("<｜end▁of▁sentence｜>",),
        spans=(
            ("<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>"),
            ("<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"),
        ),
        bos=("<｜begin▁of▁sentence｜>",),
        results=(
            "(?:<｜tool▁outputs▁begin｜>)?<｜tool▁output▁begin｜>(?P<body>.*?)"
            "<｜tool▁output▁end｜>(?:<｜tool▁outputs▁end｜>)?",
        ),
    ),
)

DEEPSEEK_V32 = Dialect(
    name="deepseek_v32",
    aliases=("deepseek-v3.2", "deepseek_v3.2", "deepseek-v3.2-exp", "deepseek-v4", "dsml"),
    # V3.2's results are `<result>` elements inside `<function_results>`: structure too.
    reserved=(*_RESERVED, "<result>", "</result>"),
    reserved_patterns=_PATTERNS,
    call_open=(
        "<｜DSML｜function_calls>",
        "<｜DSML｜tool_calls>",
        "<|DSML|function_calls>",
        "<|DSML|tool_calls>",
    ),
    call_close=(
        "</｜DSML｜function_calls>",
        "</｜DSML｜tool_calls>",
        "</|DSML|function_calls>",
        "</|DSML|tool_calls>",
    ),
    # V3.2 `<function_results>`, V4 `<tool_result>` (second-hand), and the tool-output tokens the
    # tokenizer still has.
    result_open=(
        "<function_results>",
        "<tool_result>",
        "<｜tool▁outputs▁begin｜>",
        "<｜tool▁output▁begin｜>",
    ),
    thinking=(("<think>", "</think>"),),
    stop=("<｜end▁of▁sentence｜>", "<|EOT|>"),
    family="DeepSeek V3.2 / V4 (DSML function_calls / invoke / parameter tags)",
    sources=(
        "DeepSeek-V3.2 encoding_dsv32.py (vLLM copy)",
        "ggml-org/llama.cpp models/templates/DeepSeek-V3.2.jinja",
        "vllm-project/vllm tests/tool_parsers/test_deepseekv32_tool_parser.py",
    ),
    transcript=TurnGrammar(
        (("<｜User｜>", "user"), ("<｜Assistant｜>", "assistant")),
        ends=("<｜end▁of▁sentence｜>",),
        spans=(("<function_results>", "</function_results>"),),
        bos=("<｜begin▁of▁sentence｜>",),
        results=(r"<function_results>\s*<result>(?P<body>.*?)</result>\s*</function_results>",),
        # DSML tags tell its transcripts from DeepSeek V3's
        marks=("｜DSML｜",),
    ),
)
