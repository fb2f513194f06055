"""What wakes a quiet :class:`~guard.gate.SurfaceMonitor`: one small function, compiled from
what the signals publish, that says whether a delta may change anything but the text (see
:class:`~guard.gate.StreamPlan` ``quiet_test``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import cast

from guard._regex_source import top_level_alternatives

__all__ = ["wake_test"]

#: characters common in prose (a line break too): a literal holding only these and letters is
#: watched whole
_COMMON = frozenset(" \n.,;:!?-'\"()")
_META = frozenset(".^$*+?{}[]|()\\")


def _char_class(source: str) -> set[str] | None:
    """The characters of a plain class such as ``[\\[{<]`` (no ranges, no negation)."""
    if len(source) < 3 or source[0] != "[" or source[-1] != "]" or source[1] == "^":
        return None
    body = source[1:-1]
    chars: set[str] = set()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body) and not body[i + 1].isalnum():
            chars.add(body[i + 1])
            i += 2
            continue
        if ch in "\\-[":
            return None
        chars.add(ch)
        i += 1
    return chars


def _literal(source: str) -> str | None:
    """The text a regex source matches when it is a literal (``functions\\.``), else None."""
    out = []
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            if i + 1 >= len(source) or source[i + 1].isalnum():
                return None
            out.append(source[i + 1])
            i += 2
            continue
        if ch in _META:
            return None
        out.append(ch)
        i += 1
    return "".join(out) or None


def _common_start(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _shortest_words(words: set[str]) -> list[str]:
    """Words to look for: a word that holds another is found through it, and words sharing a
    long beginning are looked for by that beginning (a superset: it only wakes more often)."""
    out: list[str] = []
    for word in sorted(words, key=len):
        if any(w in word for w in out):
            continue
        shared = next((w for w in out if len(_common_start(w, word)) >= 6), None)
        if shared is not None:
            out[out.index(shared)] = _common_start(shared, word)
        else:
            out.append(word)
    return out


def _quiet_test(chars: set[str], words: list[str], rest: list[str]) -> Callable[[str, str], bool]:
    """One small function that answers "can this delta wake a quiet monitor?" with ``in``
    tests inlined (each a C-speed scan): the characters on the delta (those before it were
    looked at when they came), the words on the delta and the end of the text before it (a
    word may straddle them), and any pattern nothing simpler stands for."""
    tests = ["d.isascii()"]
    tests += [f"{ch!r} not in d" for ch in sorted(chars)]
    tests += [f"{w!r} not in n" for w in words]
    if rest:
        tests.append("_rest(n) is None")
    namespace = {"_rest": re.compile("|".join(rest)).search if rest else None}
    # the source is built from repr() of the signals' own literals only
    return cast(Callable[[str, str], bool], eval(f"lambda d, n: {' and '.join(tests)}", namespace))


def wake_test(
    literals: list[str], sources: list[str], tail_starts: list[str] | None
) -> Callable[[str, str], bool] | None:
    """Everything a quiet delta must not hold for the monitor to skip its scans: a non-ASCII
    character (lookalikes, invisibles), a trigger (literal, pattern, first character of a held
    spelling), the start of an ending signal's tail. A literal with a character prose rarely
    holds is watched for that character, one of only letters and common punctuation for
    itself; what is neither a literal nor a character class stays a regex. An ending signal
    whose tails have no published start never lets the monitor be quiet: ``tail_starts`` is
    ``None`` then, and so is the answer."""
    if tail_starts is None:
        return None
    chars: set[str] = set()
    wake_words: set[str] = set()
    wake_rest: list[str] = []
    for lit in literals:
        gate = next((ch for ch in lit if not ch.isalnum() and ch not in _COMMON), None)
        if gate is not None:
            chars.add(gate)
        else:
            wake_words.add(lit)
    for source in sources + tail_starts:
        for alternative in top_level_alternatives(source):
            klass = _char_class(alternative)
            literal = None if klass is not None else _literal(alternative)
            if klass is not None:
                chars.update(klass)
            elif literal is not None:
                wake_words.add(literal)
            else:
                wake_rest.append(f"(?:{alternative})")
    return _quiet_test(chars, _shortest_words(wake_words), wake_rest)
