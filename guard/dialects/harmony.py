"""Harmony (OpenAI gpt-oss, o200k_harmony): docs/wire-formats.md, "Harmony"."""

from __future__ import annotations

from guard.dialects._record import Dialect

#: The seven structural tokens, in order of their ids (docs/wire-formats.md, "Special tokens").
CORE = (
    "<|return|>",
    "<|constrain|>",
    "<|channel|>",
    "<|start|>",
    "<|end|>",
    "<|message|>",
    "<|call|>",
)

HARMONY = Dialect(
    name="harmony",
    aliases=("gpt-oss", "gpt_oss", "o200k_harmony"),
    reserved=(
        *CORE,
        "<|startoftext|>",
        "<|endoftext|>",
        "<|endofprompt|>",
        # Renderer-only spellings: not in the released vocabulary, reserved all the same.
        "<|refusal|>",
        "<|untrusted|>",
        "<|end_untrusted|>",
        "<|meta_end|>",
    ),
    reserved_patterns=(
        r"<\|reserved_\d{1,7}\|>",
        # Header-form tokens such as <|assistant to=functions.bash|> or <|channel to=...|>. The
        # name stays unbounded (a longer one must not slip through): a long text is searched for
        # it in the `regex` engine, which releases the GIL (guard._windows).
        r"<\|(?:assistant|user|system|developer|tool|analysis|commentary|final|functions\.[\w-]+)"
        r"(?:[ \t][A-Za-z0-9_.:=/ -]{0,62})?\|>",
    ),
    # Any other token-shaped <|name|> is escaped too (a server may read it as structure), but
    # detection does not call it a Harmony control token. The body starts with a letter or
    # underscore so code such as F#'s `f <| x |> g` is left alone.
    escape_patterns=(r"<\|[A-Za-z_][A-Za-z0-9_.:=/ -]{0,63}\|>",),
    call_open=("<|start|>assistant", "<|channel|>commentary to=functions."),
    call_close=("<|call|>",),
    result_open=("<|start|>functions.",),
    # Any <|start|> whose author is not the assistant is the host's to write.
    result_open_patterns=(r"<\|start\|>(?!assistant(?![\w.-]))[\w.-]",),
    thinking=(("<|channel|>analysis<|message|>", "<|end|>"),),
    stop=("<|call|>", "<|return|>"),
    family="OpenAI gpt-oss (Harmony response format, tiktoken o200k_harmony)",
    sources=(
        "openai/harmony docs/format.md",
        "tiktoken o200k_harmony (special-token ids)",
        "can1357/oh-my-pi docs/toolconv/harmony.md",
        'docs/wire-formats.md, "Harmony"',
    ),
)
