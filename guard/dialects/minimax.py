"""MiniMax (MiniMax M1, M2 and M3); summarised in docs/wire-formats.md, "Other dialects".

The envelope tokens are bracket soup (``]~b]``, ``[e~[``, ...), not ``<|...|>`` tokens. M3
prefixes every tag of a call block with one more such token, the namespace ``]<]minimax[>[``
(one vocabulary entry, id 200058 per llama.cpp's M3 work), and reasons in ``<mm:think>``. What
was not verified for M3: its turn envelope (its chat template was not available to read, only
peers' parsers and reports), so the M2 envelope is kept as it is.
"""

from __future__ import annotations

from guard.dialects._record import Dialect, TurnGrammar
from guard.dialects._turns import ROLE

MINIMAX = Dialect(
    name="minimax",
    aliases=(
        "minimax-m3",
        "minimax_m3",
        "minimax-m2",
        "minimax_m2",
        "minimax-m2.1",
        "minimax-m1",
        "minimax_m1",
    ),
    reserved=(
        # The 54 specials, ids 200000..200053. Envelope:
        "]!p~[",
        "]~b]",
        "[e~[",
        "]!d~[",
        "]~!b[",
        # Media.
        "]<]speech[>[",
        "]<]image[>[",
        "]<]video[>[",
        "]<]start of speech[>[",
        "]<]end of speech[>[",
        "]<]start of image[>[",
        "]<]end of image[>[",
        "]<]start of video[>[",
        "]<]end of video[>[",
        "]<]vision pad[>[",
        # Code-corpus and miscellaneous.
        "<fim_prefix>",
        "<fim_middle>",
        "<fim_suffix>",
        "<fim_pad>",
        "<reponame>",
        "<filename>",
        "<gh_stars>",
        "<issue_start>",
        "<issue_comment>",
        "<issue_closed>",
        "<jupyter_start>",
        "<jupyter_text>",
        "<jupyter_code>",
        "<jupyter_output>",
        "<jupyter_error>",
        "<empty_output>",
        "<commit_before>",
        "<commit_msg>",
        "<commit_after>",
        "<function_call>",
        "<code_interpreter>",
        "<add_file>",
        "<delete_file>",
        "<rename_file>",
        "<edit_file>",
        "<commit_message>",
        "<empty_source_file>",
        "<repo_struct>",
        "<code_context>",
        "<file_content>",
        "<source_files>",
        "<pr_start>",
        "<review_comment>",
        "<filepath>",
        "<file_sep>",
        # Thinking and tools.
        "<think>",
        "</think>",
        "<minimax:tool_call>",
        "</minimax:tool_call>",
        # Text-level structure: the invoke tags, the native <response> result body, the bare
        # <tool_call> wrapper oh-my-pi also accepts, and oh-my-pi's transport tags.
        "<invoke",
        "</invoke>",
        "<parameter",
        "</parameter>",
        "<response>",
        "</response>",
        "<tool_call>",
        "</tool_call>",
        "<function_results>",
        "</function_results>",
        "<tool_response>",
        "</tool_response>",
        "<thinking>",
        "</thinking>",
        # MiniMax M1's JSON-lines call block.
        "<tool_calls>",
        "</tool_calls>",
        # MiniMax M3: the namespace token before every call-block tag, and its reasoning tags.
        "]<]minimax[>[",
        "<mm:think>",
        "</mm:think>",
    ),
    call_open=("<minimax:tool_call>", "<tool_call>", "<tool_calls>", "]<]minimax[>[<tool_call>"),
    call_close=(
        "</minimax:tool_call>",
        "</tool_call>",
        "</tool_calls>",
        "]<]minimax[>[</tool_call>",
    ),
    # oh-my-pi's transport markers, plus the native tool-result turn start. Any turn start
    # (`]~b]` + role) is the host's to write, as `<|im_start|>` is in ChatML.
    result_open=("<function_results>", "<tool_response>", "]~b]tool", "]~b]"),
    thinking=(
        ("<think>", "</think>"),
        ("<thinking>", "</thinking>"),
        ("<mm:think>", "</mm:think>"),
    ),
    stop=("[e~[",),
    family=(
        "MiniMax M3 (]<]minimax[>[-prefixed <tool_call>/<invoke>, key-named argument tags),"
        " M2 (<minimax:tool_call> wrapping <invoke>/<parameter> tags), M1 (<tool_calls>)"
    ),
    sources=(
        "MiniMax-AI/MiniMax-M2 docs/tool_calling_guide.md",
        "MiniMax M2 tokenizer special-token table (third-party copies)",
        "vllm-project/vllm tests/tool_parsers/test_minimax_tool_parser.py (M1 <tool_calls>)",
        "sgl-project/sglang python/sglang/srt/function_call/minimax_m3.py (M3 grammar)",
        "vllm-project/vllm vllm/frontend/processing/tool_parsers/minimax_m3_tool_parser.py",
        "ikawrakow/ik_llama.cpp pull request 2008 (M3 calls, <mm:think>)",
        "ggml-org/llama.cpp pull request 24523 (the namespace token is one vocabulary entry)",
        "ml-explore/mlx-lm pull request 1416 (M3 to_xml: mappings, item lists, primitives)",
        "vllm-project/vllm issue 51073 (M3 markup and the namespace token leaking as content)",
    ),
    transcript=TurnGrammar(
        ((rf"\]~b\]{ROLE}\n?", None),),
        ends=("[e~[",),
        bos=("]~!b[",),
        results=(r"\s*<response>(?P<body>.*?)</response>\s*",),
    ),
)
