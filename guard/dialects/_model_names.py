"""Which dialect a model speaks, from its name (``gpt-oss-120b`` -> ``harmony``).

Used wherever only a model name is known: ``guard serve`` and the client wrappers pick the
dialect per request with :func:`dialect_for_model`; a policy's ``[serve] dialects`` table adds
keys in front of :data:`MODEL_DIALECTS`, and the ``models`` keys of registered dialects
(:func:`guard.dialects.register`) come between the two.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping

from guard.dialects._table import registered_models

__all__ = ["FALLBACK_DIALECT", "MODEL_DIALECTS", "dialect_for_model"]

#: model-name key -> dialect, in order: a key matches when it occurs in the lower-cased model name
#: (or, with ``*``, ``?`` or ``[``, as a glob over the whole name); the first match wins, so
#: fine-tunes (Hermes on Llama, DeepSeek distills) come before the base families.
MODEL_DIALECTS: dict[str, str] = {
    "gpt-oss": "harmony",
    "gpt-5": "harmony",
    "chatglm3": "chatglm3",
    "deepseek-v3.2": "deepseek_v32",
    "deepseek-v4": "deepseek_v32",
    "deepseek": "deepseek",
    "hermes": "chatml",
    # Qwen3-Coder writes XML-style calls (also without the <tool_call> wrapper): before "qwen".
    "qwen3-coder": "qwen3_coder",
    "qwen3_coder": "qwen3_coder",
    "qwen3coder": "qwen3_coder",
    "qwq": "chatml",
    "qwen": "chatml",
    # Kimi K3 speaks its own tag envelope: before "kimi".
    "kimi-k3": "kimi_k3",
    "kimi_k3": "kimi_k3",
    "kimik3": "kimi_k3",
    "kimi": "kimi",
    "glm-4.5": "glm",
    "glm-4.6": "glm",
    "glm-4.7": "glm",
    "glm-5": "glm",
    # FunctionGemma is Gemma 3 based but has its own call tokens: before "gemma-3".
    "functiongemma": "gemma",
    "gemma-3": "pythonic",
    "gemma3": "pythonic",
    "gemma-4": "gemma",
    "gemma4": "gemma",
    "minimax": "minimax",
    "lfm2": "lfm2",
    "lfm-2": "lfm2",
    # Seed-OSS writes Qwen3-Coder's call body in its own envelope (whose tokens that record
    # reserves too)
    "seed-oss": "qwen3_coder",
    "seed_oss": "qwen3_coder",
    # Mistral AI's families; a fine-tune on another template (Hermes, Dolphin) comes first
    "dolphin": "chatml",
    # Granite and Phi-4-mini speak their own role tokens, which the chatml record reserves
    "granite": "chatml",
    "phi-4": "chatml",
    "phi4": "chatml",
    "phi-3": "chatml",
    "phi3": "chatml",
    # ERNIE 4.5 (its tool parser reads Hermes' <tool_call> JSON; chatml reserves its tokens)
    "ernie": "chatml",
    # InternLM2 / 2.5 / 3 speak ChatML with tool tokens of their own (chatml reserves them)
    "internlm": "chatml",
    "mistral": "mistral",
    "mixtral": "mistral",
    "ministral": "mistral",
    "devstral": "mistral",
    "magistral": "mistral",
    "codestral": "mistral",
    "pixtral": "mistral",
    "llama-4": "pythonic",
    "llama4": "pythonic",
    "llama-3": "llama3",
    "llama3": "llama3",
    # NVIDIA Nemotron Nano v2 and Nemotron 3 (after "llama-3": Llama-3.x-Nemotron fine-tunes keep
    # Llama 3's template); Nemotron 3 writes Qwen3-Coder's calls
    "nemotron": "qwen3_coder",
    # Cohere's Command R7B / A (their turn and action tokens are reserved in chatml); after the
    # base families, so that a fine-tune named after them keeps theirs (``llama-3-command-r``),
    # and with a dash or a size after ``command-r``, not any "command" in a name
    "command-r-": "chatml",
    "command-r7b": "chatml",
    "command-a-": "chatml",
    "c4ai-command": "chatml",
    "cohere": "chatml",
    # Tencent Hunyuan-A13B (its own record: the <answer> reply section); the other Hunyuan
    # models (MT, Large, the dense V1) write no such section, and chatml reserves their
    # placeholder and turn tokens
    "hunyuan-a13b": "hunyuan",
    "hunyuan_a13b": "hunyuan",
    "hunyuan": "chatml",
    # No "claude": Claude calls tools through its API's structured blocks, and its answers
    # often mention XML-like tags (<result>, <thinking>) that the anthropic record reserves, so
    # mapping Claude models to that record would cut ordinary answers. Claude names fall back;
    # a `[serve.dialects]` table can still map them.
}
FALLBACK_DIALECT = "harmony"


def _glob(key: str) -> bool:
    return any(ch in key for ch in "*?[")


def dialect_for_model(
    model: str | None,
    table: Mapping[str, str] | None = None,
    default: str = FALLBACK_DIALECT,
) -> str:
    """The dialect for a model name: the first key of ``table`` that matches, else the first
    ``models`` key of a registered dialect, else the first of :data:`MODEL_DIALECTS`, else
    ``default``."""
    name = (model or "").lower()
    for mapping in (table or {}, registered_models(), MODEL_DIALECTS):
        for key, dialect in mapping.items():
            k = key.lower()
            if fnmatch.fnmatchcase(name, k) if _glob(k) else k in name:
                return dialect
    return default
