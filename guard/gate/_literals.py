"""Literal searches of the prefilter (private): a literal found through a rare character of
it (a ``memchr``) or by the fastest engine for it, and the grouping of literals that share an
opening."""

from __future__ import annotations

import re
from functools import cache

__all__ = ["_GATE_TRIES", "_find", "_gate", "_holds", "_openings", "_search"]

#: Occurrences of a gate character looked at one by one (each a ``memchr``) before a search
#: for the whole literal takes over: past this many, the character is common in the text.
_GATE_TRIES = 32
#: ... or one per this many characters of the text searched, whichever is more: a look costs
#: about as much as the engine's literal search of a few thousand characters, so in a batch of
#: answers (megabytes) the colons of prose are looked at one by one, never searched whole for
#: each literal they gate (``User:``, ``Observation:``)
_GATE_SPAN = 4096


@cache
def _literal_pattern(literal: str) -> re.Pattern[str]:
    return re.compile(re.escape(literal))


def _search(haystack: str, literal: str, start: int = 0) -> int:
    """``haystack.find(literal, start)``, by the fastest search for it: the regular-expression
    engine's literal search hops over the text on the literal's first character, two to three
    times faster than ``str.find`` when that character is uncommon in prose (``\\nuser``,
    ``Need ``, ``? No``, ``json{``), and slower when it is a lower-case letter or a blank
    (``assistant``, ``to=``)."""
    head = literal[:1]
    if not head or head.islower() or head == " ":
        return haystack.find(literal, start)
    m = _literal_pattern(literal).search(haystack, start)
    return -1 if m is None else m.start()


def _find(haystack: str, literal: str, gate: str | None, start: int = 0) -> int:
    """``haystack.find(literal, start)``, found through ``gate`` (a character of ``literal``)
    while it is rare: a one-character search is a ``memchr``, many times faster than a search
    for a two- or three-character literal (``<|``, ``to=``), and in clean text the gate
    character seldom occurs. Every occurrence of ``literal`` holds ``gate`` at the same offset,
    so the occurrences of ``gate`` from there on, in order, meet every candidate in order."""
    if gate is None:
        return _search(haystack, literal, start)
    k = literal.index(gate)
    find = haystack.find
    at = find(gate, start + k)
    for _ in range(max(_GATE_TRIES, (len(haystack) - start) // _GATE_SPAN)):
        if at < 0:
            return -1
        if haystack.startswith(literal, at - k):
            return at - k
        at = find(gate, at + 1)
    # the gate character is common here: candidates up to at - k are decided, search on
    return -1 if at < 0 else _search(haystack, literal, at - k)


def _holds(haystack: str, literal: str) -> bool:
    """``literal in haystack``, answered first by one-character searches (each a ``memchr``):
    a literal with a character the haystack lacks is not in it. A substring search for a
    literal that ends in a common character (``Need ``, ``? No``) reads prose at a fraction of
    that speed, and a batch of answers often lacks one of its rarer characters (a capital, a
    colon)."""
    return all(ch in haystack for ch in set(literal)) and _search(haystack, literal) >= 0


def _gate(literal: str) -> str | None:
    """A character of ``literal`` that prose rarely holds (not a letter, digit or blank), to
    look for first; ``None`` when it has none."""
    for ch in literal:
        if not ch.isalnum() and not ch.isspace():
            return ch
    return None


def _openings(words: list[str]) -> dict[str, str | None]:
    """Each of ``words`` to the common opening (at least 4 characters) of the group of words
    that share their first 4 characters, or to ``None`` when it shares them with no other."""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(word[:4], []).append(word)
    out: dict[str, str | None] = {}
    for group in groups.values():
        opening = _common_start(group) if len(group) > 1 else ""
        for word in group:
            out[word] = opening if len(opening) >= 4 else None
    return out


def _common_start(words: list[str]) -> str:
    """The longest opening all of ``words`` share."""
    first, last = min(words), max(words)  # the others sort between them
    k = 0
    while k < min(len(first), len(last)) and first[k] == last[k]:
        k += 1
    return first[:k]
