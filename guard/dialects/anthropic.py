"""Anthropic (Claude's underlying XML) and the generic XML fallback; summarised in
docs/wire-formats.md, "Other dialects".

There is no public tokenizer, so the reserved spellings are the tag spellings, each with and
without Claude's ``antml:`` namespace prefix, and the legacy ``Human:`` / ``Assistant:`` turn
prefixes.
"""

from __future__ import annotations

from guard.dialects._load import builtin

_DATA = builtin("anthropic")
ANTHROPIC = _DATA.record
#: Tag spellings without a prefix. `<invoke` and `<parameter` are open-ended: attributes follow.
TAGS = _DATA.sets["tags"]
#: Claude's XML namespace prefix (the record's `prefixed_tags` carry it).
NS = "antml:"
