"""MiniMax (MiniMax M1, M2 and M3); summarised in docs/wire-formats.md, "Other dialects".

The envelope tokens are bracket soup (``]~b]``, ``[e~[``, ...), not ``<|...|>`` tokens. M3
prefixes every tag of a call block with one more such token, the namespace ``]<]minimax[>[``
(one vocabulary entry, id 200058 per llama.cpp's M3 work), and reasons in ``<mm:think>``. What
was not verified for M3: its turn envelope (its chat template was not available to read, only
peers' parsers and reports), so the M2 envelope is kept as it is.
"""

from __future__ import annotations

from guard.dialects._load import builtin

MINIMAX = builtin("minimax").record
