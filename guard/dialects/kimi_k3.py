"""Kimi K3 (Moonshot's "XTML" tag envelope); summarised in docs/wire-formats.md, "Kimi K3".

K3 shares nothing structural with Kimi K2's ``<|im_*|>`` turns and section tokens. Four special
tokens build every tag: ``<|open|>NAME attrs<|sep|>`` opens one, ``<|close|>NAME<|sep|>`` closes
it, ``<|end_of_msg|>`` ends a message. Tag names (``message``, ``think``, ``response``,
``tools``, ``call``, ``argument``) are ordinary text tokens, so a leak whose specials were
half-dropped reads ``<|open|>toolscall tool="..."...<|sep|>``.

Not verified against Moonshot's own files: the stored index holds neither the model's
``encoding_k3.py`` nor its tokenizer config, so the spellings come from the peers that mirror
them (sources below), which agree on every token. They disagree on one detail: vLLM and SGLang
unescape attribute values as ``&amp;``/``&quot;``, PrimeIntellect's renderer writes ``\\"``;
the scanner accepts both. No ``<|reserved_token_N|>`` family is claimed for K3.
"""

from __future__ import annotations

from guard.dialects._load import builtin

_DATA = builtin("kimi_k3")
KIMI_K3 = _DATA.record
#: the four special tokens that build every tag
OPEN, CLOSE, SEP, END_OF_MSG = _DATA.sets["envelope"]
