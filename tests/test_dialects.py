"""Dialect records: shape of every record, alias resolution, and spot checks of facts.

The facts come from the public sources each record names in ``sources`` (vendor documents, chat
templates, tokenizer files, parsers); docs/wire-formats.md describes the records.
"""

from __future__ import annotations

import dataclasses

import pytest
import regex

from guard.dialects import ALL, DIALECTS, Dialect, dialect_for_model, get_dialect

RECORDS = list(DIALECTS.values())
IDS = list(DIALECTS)

#: Marker spellings that are plain text by design and so are neither reserved nor contain a
#: reserved spelling: the bare Markdown fence that closes a gemini ```tool_code block (and the
#: ```thinking fence). Every other marker must be neutralised by escaping the reserved set.
TEXTUAL = {("gemini", "```")}

#: For each dialect, strings that its patterns must match (each pattern matches at least one).
PATTERN_EXAMPLES: dict[str, tuple[str, ...]] = {
    "harmony": (
        "<|reserved_200013|>",
        "<|assistant to=functions.bash|>",
        "<|start|>functions.get_weather to=assistant",
        "<|start|>browser.search",
    ),
    "chatglm3": (),
    "chatml": (
        "<｜hy_place▁holder▁no▁112｜>",
        "<｜hy_User｜>",
        "<｜hy_eos:opensource｜>",
        "<tool_call:opensource>",
    ),
    "qwen3_coder": ("<SPECIAL_12>", "<SPECIAL_11>Assistant"),
    "llama3": ("<|reserved_special_token_0|>", "<|reserved_special_token_247|>"),
    "pythonic": (
        "<|reserved_special_token_1000|>",
        "<|text_post_train_reserved_special_token_68|>",
        "<|vision_reserved_special_token_1047|>",
        "<|reasoning_reserved_special_token_7|>",
    ),
    "lfm2": (),
    "hunyuan": ("<｜hy_place▁holder▁no▁112｜>", "<｜hy_User｜>", "</think:opensource>"),
    "deepseek": (
        "<｜place▁holder▁no▁799｜>",
        "<|place_holder_mm_span_1234|>",
        "<｜begin▁sys｜>",
        "</ | | DSML | | invoke>",
    ),
    "deepseek_v32": (
        "<｜place▁holder▁no▁799｜>",
        "<|place_holder_mm_span_1234|>",
        "<｜begin▁sys｜>",
        "</ | | DSML | | invoke>",
    ),
    "kimi": ("<|reserved_token_163589|>",),
    "kimi_k3": (),
    "glm": (),
    "gemma": ("<unused0>", "<unused6241>"),
    "gemini": ("<unused94>", "<ctrl46>"),
    "minimax": (),
    "anthropic": (),
    "mistral": ("<SPECIAL_32>",),
}


def _patterns(d: Dialect) -> tuple[str, ...]:
    return (*d.reserved_patterns, *d.result_open_patterns)


def _covered(d: Dialect, spelling: str) -> bool:
    """True when escaping ``d``'s reserved set neutralises ``spelling``."""
    if any(r in spelling for r in d.reserved):
        return True
    return any(regex.search(p, spelling) for p in d.reserved_patterns)


def _bars_in_classes(pattern: str) -> list[int]:
    """Offsets of bars (ASCII or fullwidth) that sit inside a character class."""
    found: list[int] = []
    depth = 0
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if depth and pattern[i + 1 : i + 2] == "|":
                found.append(i + 1)
            i += 2
            continue
        if ch == "[":
            depth += 1
            if pattern[i + 1 : i + 2] == "^":
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                i += 1  # a leading `]` is a literal member
        elif ch == "]" and depth:
            depth -= 1
        elif depth and ch in "|\uff5c":
            found.append(i)
        i += 1
    return found


# --- record shape ---------------------------------------------------------------------------


def test_dialect_record_known_set() -> None:
    assert set(DIALECTS) == {
        "harmony",
        "chatglm3",
        "chatml",
        "qwen3_coder",
        "llama3",
        "pythonic",
        "lfm2",
        "deepseek",
        "deepseek_v32",
        "kimi",
        "kimi_k3",
        "glm",
        "gemma",
        "gemini",
        "minimax",
        "anthropic",
        "mistral",
        "hunyuan",
    }


@pytest.mark.parametrize("d", RECORDS, ids=IDS)
def test_dialect_record_name_lower_case(d: Dialect) -> None:
    assert d.name == d.name.lower()
    assert DIALECTS[d.name] is d
    assert all(a == a.strip() and a for a in d.aliases)


@pytest.mark.parametrize("d", RECORDS, ids=IDS)
def test_dialect_record_reserved_non_empty_unique(d: Dialect) -> None:
    assert d.reserved
    assert len(set(d.reserved)) == len(d.reserved), [
        s for s in d.reserved if d.reserved.count(s) > 1
    ]


@pytest.mark.parametrize("d", RECORDS, ids=IDS)
def test_dialect_record_reserved_spelling_shape(d: Dialect) -> None:
    for s in d.reserved:
        assert len(s) >= 3, s
        assert "\\" not in s, s
        # Never a bare word: every spelling carries punctuation (a bracket, bar, slash, ...).
        assert not all(ch.isalnum() or ch.isspace() for ch in s), s


@pytest.mark.parametrize("d", RECORDS, ids=IDS)
def test_dialect_record_patterns_compile_and_match_example(d: Dialect) -> None:
    examples = PATTERN_EXAMPLES[d.name]
    for p in _patterns(d):
        compiled = regex.compile(p)
        assert compiled.search("") is None, p
        assert any(compiled.search(e) for e in examples), p
    # Reserved-pattern examples are reserved spellings: they must not contain a backslash.
    for e in examples:
        assert "\\" not in e


@pytest.mark.parametrize("d", RECORDS, ids=IDS)
def test_dialect_record_pattern_bars_outside_classes(d: Dialect) -> None:
    for p in _patterns(d):
        assert _bars_in_classes(p) == [], p


@pytest.mark.parametrize("d", RECORDS, ids=IDS)
def test_dialect_record_result_open_non_empty(d: Dialect) -> None:
    assert d.result_open


@pytest.mark.parametrize("d", RECORDS, ids=IDS)
def test_dialect_record_markers_covered_by_reserved(d: Dialect) -> None:
    thinking = [s for pair in d.thinking for s in pair]
    markers = (*d.result_open, *d.stop, *d.call_open, *d.call_close, *thinking)
    for s in markers:
        assert s
        assert _covered(d, s) or (d.name, s) in TEXTUAL, s


@pytest.mark.parametrize("d", RECORDS, ids=IDS)
def test_dialect_record_marker_tuples_unique(d: Dialect) -> None:
    for field in ("call_open", "call_close", "result_open", "stop", "thinking", "aliases"):
        values = getattr(d, field)
        assert len(set(values)) == len(values), field


@pytest.mark.parametrize("d", RECORDS, ids=IDS)
def test_dialect_record_has_family_and_sources(d: Dialect) -> None:
    assert d.family
    assert d.sources
    for s in d.sources:
        assert not s.startswith("/"), s  # a document or repository, never a machine path


@pytest.mark.parametrize("d", RECORDS, ids=IDS)
def test_dialect_record_frozen(d: Dialect) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.name = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.reserved = ()  # type: ignore[misc]


def test_dialect_record_validation() -> None:
    with pytest.raises(ValueError, match="lower case"):
        Dialect(name="Harmony", reserved=("<|x|>",))
    with pytest.raises(ValueError, match="backslash"):
        Dialect(name="x", reserved=("<\\|x|>",))
    with pytest.raises(ValueError, match="empty"):
        Dialect(name="x", reserved=("",))
    with pytest.raises(ValueError, match="empty"):
        Dialect(name="x", reserved=("<x>",), stop=("",))


# --- get_dialect ----------------------------------------------------------------------------


@pytest.mark.parametrize("d", RECORDS, ids=IDS)
def test_dialect_record_get_dialect_resolves_aliases(d: Dialect) -> None:
    for key in (d.name, *d.aliases):
        for variant in (key, key.upper(), key.title(), f"  {key} "):
            assert get_dialect(variant) is d, variant
    assert get_dialect(d) is d


def test_dialect_record_aliases_do_not_collide() -> None:
    owners: dict[str, str] = {}
    for d in RECORDS:
        for key in (d.name, *d.aliases):
            assert key.lower() != ALL
            assert owners.setdefault(key.lower(), d.name) == d.name, key


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("xml", "anthropic"),
        ("claude", "anthropic"),
        ("qwen", "chatml"),
        ("qwen3", "chatml"),
        ("qwen2.5", "chatml"),
        ("hermes", "chatml"),
        ("qwq", "chatml"),
        ("kimi-k2", "kimi"),
        ("kimi-k3", "kimi_k3"),
        ("llama", "llama3"),
        ("llama-3", "llama3"),
        ("llama3.1", "llama3"),
        ("minimax-m2", "minimax"),
        ("gpt-oss", "harmony"),
        ("Qwen3", "chatml"),
        ("LLAMA3.1", "llama3"),
    ],
)
def test_dialect_record_named_aliases(alias: str, name: str) -> None:
    assert get_dialect(alias).name == name


def test_dialect_record_all_is_union() -> None:
    union = get_dialect("all")
    assert get_dialect("ALL") is union
    assert union.name == ALL
    for d in RECORDS:
        # every reserved spelling but the record's unshared ones (everyday wrappers)
        assert set(d.reserved) - set(d.unshared) <= set(union.reserved), d.name
        assert not set(d.unshared) & set(union.reserved), d.name
        assert set(d.reserved_patterns) <= set(union.reserved_patterns), d.name
        assert set(d.result_open) <= set(union.result_open), d.name
        assert set(d.result_open_patterns) <= set(union.result_open_patterns), d.name
        assert set(d.stop) <= set(union.stop), d.name
        assert set(d.thinking) <= set(union.thinking), d.name
    assert len(set(union.reserved)) == len(union.reserved)


def test_an_unshared_spelling_must_be_reserved() -> None:
    with pytest.raises(ValueError, match="unshared spelling '<answer>' must also be reserved"):
        Dialect(name="zed", reserved=("<z>",), unshared=("<answer>",))
    with pytest.raises(ValueError, match="must open with a plain character"):
        Dialect(name="zed", reserved=("[ANSWER]",), unshared=("[ANSWER]",))


def test_dialect_record_unknown_name_lists_known() -> None:
    with pytest.raises(ValueError) as info:
        get_dialect("no-such-model")
    message = str(info.value)
    assert "no-such-model" in message
    for name in (*DIALECTS, ALL):
        assert name in message


@pytest.mark.parametrize("bad", [None, 3, b"harmony", ["harmony"]])
def test_dialect_record_non_str_raises_type_error(bad: object) -> None:
    with pytest.raises(TypeError):
        get_dialect(bad)  # type: ignore[arg-type]


# --- hard rules and spot checks of facts ----------------------------------------------------


@pytest.mark.parametrize("name", ["chatglm3", "glm"])
def test_dialect_record_sop_eop_words_not_reserved(name: str) -> None:
    reserved = get_dialect(name).reserved
    assert "sop" not in reserved
    assert "eop" not in reserved


def test_dialect_record_no_bare_sop_eop_anywhere() -> None:
    union = get_dialect("all")
    for word in ("sop", "eop"):
        assert word not in union.reserved
        assert not any(regex.fullmatch(p, word) for p in union.reserved_patterns)
    # The bracketed GLM-4.5 spellings are reserved.
    assert {"<sop>", "<eop>"} <= set(get_dialect("glm").reserved)


def test_dialect_record_chatglm3_facts() -> None:
    d = get_dialect("chatglm3")
    assert "<|observation|>" in d.result_open
    assert "<|observation|>" in d.stop
    assert {"<|system|>", "<|user|>", "<|assistant|>", "<|observation|>"} <= set(d.reserved)
    assert {"[MASK]", "[gMASK]", "[sMASK]"} <= set(d.reserved)
    assert d.thinking == ()


def test_dialect_record_glm_facts() -> None:
    d = get_dialect("glm-4.6")
    assert d.name == "glm"
    assert len(d.reserved) == 36
    for s in ("<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "/nothink"):
        assert s in d.reserved
    assert "<tool_response>" in d.result_open
    assert d.call_open == ("<tool_call>",)
    assert ("<think>", "</think>") in d.thinking


def test_dialect_record_chatml_facts() -> None:
    d = get_dialect("chatml")
    assert "<|im_start|>" in d.result_open
    assert "<tool_response>" in d.result_open
    for s in ("<tool_call>", "</tool_call>", "<think>", "</think>", "</tool_response>"):
        assert s in d.reserved  # special: false tags, matched as text by servers
    assert "<|im_end|>" in d.stop


def test_dialect_record_llama3_facts() -> None:
    d = get_dialect("llama3")
    assert "<|start_header_id|>" in d.result_open
    assert {"<|eot_id|>", "<|eom_id|>"} <= set(d.stop)
    assert "<|python_tag|>" in d.reserved
    assert "<function=" in d.reserved
    assert any(regex.fullmatch(p, "<|reserved_special_token_5|>") for p in d.reserved_patterns)
    assert d.thinking == ()


def test_dialect_record_deepseek_facts() -> None:
    d = get_dialect("deepseek")
    fw, sp = "\uff5c", "\u2581"
    calls_begin = f"<{fw}tool{sp}calls{sp}begin{fw}>"
    assert calls_begin == "<｜tool▁calls▁begin｜>"
    assert calls_begin in d.reserved
    assert f"<{fw}tool{sp}outputs{sp}begin{fw}>" in d.result_open
    assert f"<{fw}tool{sp}output{sp}begin{fw}>" in d.result_open
    # The DSML-era result openers oh-my-pi's table misses.
    assert {"<function_results>", "<tool_result>"} <= set(d.result_open)
    assert f"<{fw}begin{sp}of{sp}sentence{fw}>" in d.reserved
    assert "<|EOT|>" in d.reserved
    assert any(
        regex.fullmatch(p, f"<{fw}place{sp}holder{sp}no{sp}42{fw}>") for p in d.reserved_patterns
    )
    # The ASCII look-alike of a fullwidth token is different text.
    assert "<|tool▁calls▁begin|>" not in d.reserved


def test_dialect_record_deepseek_v32_facts() -> None:
    d = get_dialect("deepseek-v3.2")
    assert d.name == "deepseek_v32"
    assert get_dialect("dsml") is d
    assert get_dialect("deepseek-v3.1").name == "deepseek"
    assert set(get_dialect("deepseek").reserved) <= set(d.reserved)  # one tokenizer
    assert "<｜DSML｜function_calls>" in d.call_open
    assert "</|DSML|function_calls>" in d.call_close
    assert d.result_open[0] == "<function_results>"
    assert {"<result>", "</result>"} <= set(d.reserved)
    assert not any("DSML" in s for s in get_dialect("deepseek").call_open)


def test_dialect_record_kimi_facts() -> None:
    d = get_dialect("kimi-k2")
    assert d.result_open == ("<|im_system|>",)
    assert "<|tool_calls_section_begin|>" in d.call_open
    assert "<|tool_call_section_begin|>" in d.call_open  # the singular spelling
    for s in ("[BOS]", "[EOS]", "<|im_middle|>", "<|tool_call_argument_begin|>"):
        assert s in d.reserved


def test_dialect_record_gemma_facts() -> None:
    d = get_dialect("gemma")
    assert "<|tool_response>" in d.result_open
    assert d.call_open == ("<|tool_call>", "<start_function_call>")
    assert d.call_close == ("<tool_call|>", "<end_function_call>")
    assert '<|"|>' in d.reserved
    assert {"<|turn>", "<turn|>", "<|channel>", "<channel|>"} <= set(d.reserved)
    # FunctionGemma (an alias): its call, response and string tokens.
    assert get_dialect("functiongemma") is d
    assert {"<start_function_response>", "<escape>"} <= set(d.reserved)
    assert "<start_function_response>" in d.result_open
    assert "<start_function_response>" in d.stop


def test_dialect_record_qwen3_coder_facts() -> None:
    d = get_dialect("qwen3-coder")
    chatml = get_dialect("chatml")
    assert set(chatml.reserved) < set(d.reserved)
    assert {"<function=", "</function>", "<parameter=", "</parameter>"} <= set(d.reserved)
    # ChatML's result openers, and Seed-OSS's turn opening, stop and reasoning pair
    assert d.result_open == (*chatml.result_open, "<seed:bos>")
    assert "<seed:eos>" in d.stop and set(chatml.stop) < set(d.stop)
    assert ("<seed:think>", "</seed:think>") in d.thinking
    assert "<function=" in d.call_open


def test_dialect_record_pythonic_facts() -> None:
    d = get_dialect("llama-4")
    assert get_dialect("gemma-3") is d
    assert {"<|header_start|>", "<|eot|>", "<|python_start|>", "<start_of_turn>"} <= set(d.reserved)
    assert {"<|header_start|>", "<start_of_turn>"} <= set(d.result_open)
    assert {"<|eot|>", "<|eom|>", "<end_of_turn>"} <= set(d.stop)


def test_dialect_record_gemini_facts() -> None:
    d = get_dialect("gemini")
    assert d.result_open == ("```tool_outputs",)
    assert {"```tool_code", "```tool_outputs"} <= set(d.reserved)
    assert {"<start_of_turn>", "<end_of_turn>", "<bos>", "<eos>"} <= set(d.reserved)


def test_dialect_record_minimax_facts() -> None:
    d = get_dialect("minimax-m2")
    assert "]~b]tool" in d.result_open
    assert "]~b]" in d.result_open  # any turn start is the host's
    assert {"<function_results>", "<tool_response>"} <= set(d.result_open)
    assert {"<tool_calls>", "</tool_calls>"} <= set(d.reserved)  # MiniMax M1
    assert {"]~b]", "[e~[", "]~!b[", "<minimax:tool_call>"} <= set(d.reserved)


def test_dialect_record_anthropic_facts() -> None:
    d = get_dialect("xml")
    ns = "antml" + ":"
    for tag in ("<function_calls>", "<invoke", "</parameter>", "<function_results>"):
        assert tag in d.reserved
        assert tag.replace("<", "<" + ns, 1).replace("<" + ns + "/", "</" + ns) in d.reserved
    assert "\n\nHuman:" in d.reserved
    assert "\n\nAssistant:" in d.reserved
    assert {"<function_results>", "<tool_response>"} <= set(d.result_open)


def test_dialect_record_harmony_result_pattern() -> None:
    d = get_dialect("harmony")
    (p,) = d.result_open_patterns
    assert regex.search(p, "<|start|>functions.f")
    assert regex.search(p, "<|start|>tool")
    assert not regex.search(p, "<|start|>assistant<|channel|>final")


@pytest.mark.parametrize(
    ("model", "dialect"),
    [
        ("zai-org/GLM-4.5-Air", "glm"),
        ("zai-org/GLM-4.6", "glm"),
        ("glm-4.7-flash", "glm"),
        ("zai-org/GLM-5", "glm"),
        ("moonshotai/Kimi-K2-Instruct-0905", "kimi"),
        ("kimi-k2-thinking", "kimi"),
        ("deepseek-ai/DeepSeek-V3", "deepseek"),
        ("deepseek-ai/DeepSeek-V3.1-Terminus", "deepseek"),
        ("deepseek-ai/DeepSeek-R1-0528", "deepseek"),
        ("deepseek-ai/DeepSeek-V3.2-Exp", "deepseek_v32"),
        ("deepseek-v4-pro", "deepseek_v32"),
        ("MiniMaxAI/MiniMax-M2", "minimax"),
        ("MiniMaxAI/MiniMax-M1-80k", "minimax"),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3_coder"),
        ("qwen3-coder-plus", "qwen3_coder"),
        ("Qwen/Qwen3-32B", "chatml"),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "pythonic"),
        ("google/gemma-3-27b-it", "pythonic"),
        ("google/functiongemma-270m-it", "gemma"),
        ("google/gemma-4-31B-it", "gemma"),
        ("claude-sonnet-4-5", "harmony"),  # structured tool use: the fallback, see the table
        ("meta-llama/Llama-3.1-8B-Instruct", "llama3"),
    ],
)
def test_dialect_record_model_names_pick_the_dialect(model: str, dialect: str) -> None:
    assert dialect_for_model(model) == dialect
    assert get_dialect(dialect).name == dialect


def test_gemini_control_tokens_are_reserved() -> None:
    """Hosted Gemini's ``<ctrlNN>`` in a visible reply (blind set heldout46b); named in a sentence
    it passes, as every token does."""
    from guard import detect

    assert detect("It backs off exponentially &<ctrl46>. Next I test.", dialect="gemini").leak
    assert not detect("The token <ctrl46> is its string delimiter.", dialect="gemini").leak
