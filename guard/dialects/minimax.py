"""MiniMax (MiniMax M2 family); summarised in docs/wire-formats.md, "Other dialects".

The envelope tokens are bracket soup (``]~b]``, ``[e~[``, ...), not ``<|...|>`` tokens.
"""

from __future__ import annotations

from guard.dialects._record import Dialect

MINIMAX = Dialect(
    name="minimax",
    aliases=("minimax-m2", "minimax_m2", "minimax-m2.1", "minimax-m1", "minimax_m1"),
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
    ),
    call_open=("<minimax:tool_call>", "<tool_call>", "<tool_calls>"),
    call_close=("</minimax:tool_call>", "</tool_call>", "</tool_calls>"),
    # oh-my-pi's transport markers, plus the native tool-result turn start. Any turn start
    # (`]~b]` + role) is the host's to write, as `<|im_start|>` is in ChatML.
    result_open=("<function_results>", "<tool_response>", "]~b]tool", "]~b]"),
    thinking=(("<think>", "</think>"), ("<thinking>", "</thinking>")),
    stop=("[e~[",),
    family="MiniMax M2 (<minimax:tool_call> wrapping <invoke>/<parameter> tags), M1 (<tool_calls>)",
    sources=(
        "MiniMax-AI/MiniMax-M2 docs/tool_calling_guide.md",
        "MiniMax M2 tokenizer special-token table (third-party copies)",
        "vllm-project/vllm tests/tool_parsers/test_minimax_tool_parser.py (M1 <tool_calls>)",
    ),
)
