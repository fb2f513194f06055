"""Which texts may yield a hit at all, from what the signals publish (their triggers).

The answer is a superset: a text left out cannot yield a hit, because each anchor signal
promises where its hits can come from (:class:`~guard.models.Triggers`):

* a signal that reads anywhere promises that every text it fires on contains one of its
  ``literals`` or matches its ``pattern`` (itself or its normalised view);
* a signal of the opening (``scope="opening"``) promises that the text starts with a match of
  its ``lead``; ``opening`` words promise that the text starts (after blanks) with one of them;
* a signal of the end (``scope="ending"``) promises that its literals or pattern occur in the
  last ``max_span`` characters.

A signal that promises nothing (``always``) makes every text a candidate. One text is checked
with one-character ``in`` tests first (a one-character search is a ``memchr``, the fastest scan
there is) before any longer literal is looked for, so clean prose costs a few passes at memory
speed. A batch of texts (an audit reads millions) is searched once for every literal, joined by
a separator no trigger matches; only the texts a match falls in go through the gate.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import accumulate, compress, filterfalse
from operator import itemgetter, not_

from guard._regex_source import HEAD_CHARS, heads_gate
from guard.gate._literals import _find, _gate, _holds, _openings
from guard.models import Dialect, Signal, Surface, TextView
from guard.signals import load_signals

__all__ = ["Prefilter", "prefilter"]

#: Separators tried in turn: the first that no trigger can match joins a batch.
_SEPARATORS = ("\n", "\x00", ":", "\x1f", " ")
#: the characters a separator is tried between (a pattern that matches across a separator,
#: ``\}[ \t\r\n]*[A-Z{]`` across ``\n``, would find a hit in no text of the batch): a letter
#: of each case, a digit and every ASCII punctuation and blank
_PROBES = "aAz0_" + "".join(c for c in map(chr, range(33, 127)) if not c.isalnum()) + " \t\r\n"


@lru_cache(maxsize=64)
def _straddles(pattern: re.Pattern[str], sep: str) -> bool:
    """Whether ``pattern`` matches two separators, or a match of it takes in a separator
    between two characters."""
    if pattern.search(sep * 2) is not None:
        return True
    at = 1  # the separator's place in each probe
    return any(
        m.start() <= at < m.end()
        for a in _PROBES
        for b in _PROBES
        for m in pattern.finditer(a + sep + b)
    )


#: Characters a stripped text may open with before an opening word.
_OPENING_SLACK = 96


class Prefilter:
    """The promises of the anchor signals of some surfaces, ready to check (see the module
    docstring)."""

    __slots__ = (
        "_batched",
        "_gate_memo",
        "_literals",
        "_search",
        "_start",
        "checks",
        "ending",
        "ending_checks",
        "ending_last",
        "ending_literals",
        "ending_span",
        "gates",
        "head",
        "lead",
        "opening",
        "openings",
        "pattern",
        "sep",
        "shared",
    )

    def __init__(
        self,
        literals: Sequence[str],
        pattern: re.Pattern[str] | None,
        lead: re.Pattern[str] | None,
        opening: tuple[str, ...],
        ending: re.Pattern[str] | None,
        ending_span: int,
        ending_literals: tuple[str, ...] = (),
        ending_last: dict[str, str] | None = None,
    ) -> None:
        ordered = sorted(literals, key=lambda s: (-len(s), s))
        #: (gate character or None, literal), literals with a gate first, shortest first: a
        #: text that holds any literal most often holds a short one (``<|``), and stopping there
        #: spares a full scan for each longer literal whose gate character it also holds
        self.checks: tuple[tuple[str | None, str], ...] = tuple(
            sorted(
                ((_gate(lit), lit) for lit in ordered),
                key=lambda c: (c[0] is None, len(c[1]), c[1]),
            )
        )
        #: the distinct gate characters of ``checks``
        self.gates = tuple(dict.fromkeys(g for g, _ in self.checks if g is not None))
        self.pattern = pattern
        #: the literals without a gate character by the common opening of at least 4
        #: characters they share with others (``assistantfinal`` and ``assistantanalysis``:
        #: ``assistant``), or ``None``: a batch without the opening holds none of its literals
        #: (one search for the group, not one each)
        free = [lit for gate, lit in self.checks if gate is None]
        self.openings = _openings(free)
        #: the opening the most gateless literals share (``None``: none is shared)
        counts = Counter(o for o in self.openings.values() if o is not None)
        self.shared = max(counts, key=lambda o: (counts[o], o)) if counts else None
        self._literals = ordered
        #: one search for every literal and pattern (for batches joined by ``sep``; compiled
        #: on first use: one text at a time never needs it)
        self._search: re.Pattern[str] | None = None
        #: the first separator no literal holds or is held in, and the pattern cannot match
        #: (what a search for every literal and the pattern finds in two of it)
        self.sep = next(
            (
                s
                for s in _SEPARATORS
                if all(s not in lit and lit not in s * 2 for lit in ordered)
                and (pattern is None or not _straddles(pattern, s))
            ),
            None,
        )
        self.lead = lead
        self.opening = opening
        self.head = _OPENING_SLACK + max(map(len, opening), default=0)
        #: the ending signals' literals (``in`` tests, far faster than an alternation) and
        #: patterns, over the last ``ending_span`` characters
        self.ending_literals = ending_literals
        #: (gate character or None, literal) of the ending literals, for batches
        self.ending_checks = tuple((_gate(lit), lit) for lit in ending_literals)
        #: for an ending literal whose signals all promise how a text they fire on ends
        #: (``Triggers.last``): those characters; a text ending otherwise is not searched for it
        self.ending_last = {lit: last for lit, last in (ending_last or {}).items() if last}
        self.ending = ending
        self.ending_span = ending_span
        #: the head checks in one match, for batches whose tails are searched joined: the lead,
        #: or an opening word after at most ``head`` less its length blanks (what ``lstrip``
        #: of the head then ``startswith`` accept). ``None`` (one text at a time) when a word
        #: starts blank or is empty, for an ending pattern, or when ``sep`` is in a literal.
        sep = self.sep
        batched = (
            ending is None and sep is not None and all(sep not in lit for lit in ending_literals)
        )
        self._batched = batched
        self._start: re.Pattern[str] | bool | None = False  # False: not compiled yet
        #: the lookahead of ``start`` answered per head (see :class:`_HeadMemo`); built with it
        self._gate_memo: _HeadMemo | None = None

    @property
    def search(self) -> re.Pattern[str]:
        """One search for every literal and the pattern (see ``__init__``)."""
        if self._search is None:
            parts = [re.escape(lit) for lit in self._literals]
            if self.pattern is not None:
                parts.append(f"(?:{self.pattern.pattern})")
            self._search = re.compile("|".join(parts) or "(?!)")
        return self._search

    @property
    def start(self) -> re.Pattern[str] | None:
        """The head checks of :meth:`_ends` in one match, for batches whose tails are searched
        joined; ``None`` when they cannot be (see ``__init__``). Compiled on first use (a lead
        may be a long alternation, and one text at a time never needs it)."""
        if self._start is False:
            self._start, gate = (
                _start(self.lead, self.opening, self.head) if self._batched else (None, None)
            )
            self._gate_memo = None if gate is None else _HeadMemo(gate)
        assert self._start is not True
        return self._start

    # --- one text ------------------------------------------------------------------------------

    def _anywhere(self, text: str) -> bool:
        present: dict[str, bool] = {}  # whether each shared opening is in the text
        for gate, literal in self.checks:
            if gate is None:
                if not self._opening_in(literal, text, present):
                    continue  # none of its group can be here
            elif gate not in text:
                continue
            if _find(text, literal, gate) >= 0:  # through the gate character while it is rare
                return True
        return self.pattern is not None and self.pattern.search(text) is not None

    def _opening_in(self, literal: str, text: str, present: dict[str, bool]) -> bool:
        """Whether the shared opening of a gateless ``literal``'s group is in ``text`` (true
        when it has none); ``present`` keeps the answers of one text."""
        opening = self.openings.get(literal)
        if opening is None:
            return True
        found = present.get(opening)
        if found is None:
            found = present[opening] = opening in text
        return found

    def _ends(self, text: str) -> bool:
        """The head and the tail: what opening and ending signals read."""
        if self.lead is not None and self.lead.match(text) is not None:
            return True
        if self.opening:
            start = text[: self.head].lstrip()
            if start.startswith(self.opening):
                return True
        if self.ending_literals or self.ending is not None:
            # searched in place from where the tail starts: no copy of the tail
            at = max(0, len(text) - self.ending_span) if self.ending_span else 0
            end = text.rstrip()[-1:]
            for literal in self.ending_literals:
                last = self.ending_last.get(literal)
                if last is not None and end not in last:
                    continue
                if text.find(literal, at) >= 0:
                    return True
            if self.ending is not None and self.ending.search(text, at) is not None:
                return True
        return False

    def could_hit(self, text: str) -> bool:
        """False when ``text`` cannot yield a hit on these surfaces."""
        if self._anywhere(text) or self._ends(text):
            return True
        if text.isascii():
            return False
        norm = TextView(text).norm
        return self._anywhere(norm) or self._ends(norm)

    # --- a batch -------------------------------------------------------------------------------

    def candidates(self, texts: Sequence[str]) -> list[int]:
        """Indices, in order, of the texts that may yield a hit (a superset)."""
        if self.sep is None or len(texts) == 1:
            return [i for i, t in enumerate(texts) if self.could_hit(t)]
        # a batch holds tens of thousands of texts: indices picked by C-level maps
        ascii_flags = list(map(str.isascii, texts))
        narrow = list(compress(range(len(texts)), ascii_flags))
        # the ASCII texts joined once, for the literals and the ending literals alike
        batch = _Batch(texts, narrow, self.sep)
        found = self._joined(texts, narrow, normalise=False, batch=batch)
        wide: list[int] = []
        if len(narrow) < len(texts):
            # non-ASCII texts: their originals and their normalised views (lookalikes)
            wide = list(compress(range(len(texts)), map(not_, ascii_flags)))
            found |= self._joined(texts, wide, normalise=False)
            found |= self._joined(texts, wide, normalise=True)
        if self.lead is not None or self.opening or self.ending_literals or self.ending is not None:
            unfound = found.__contains__
            if self.start is None:
                rest = list(filterfalse(unfound, range(len(texts))))
            else:
                # ASCII texts (their normalised view is themselves): the head in one match
                # each, the tails in one search of the batch for each ending literal
                rest = list(filterfalse(unfound, wide))
                heads = list(filterfalse(unfound, narrow))
                memo = self._gate_memo
                if memo is not None:
                    # the start's lookahead reads at most a head: answered once per head
                    heads = list(
                        compress(heads, map(memo.__getitem__, map(_HEAD, _pick(texts, heads))))
                    )
                found.update(compress(heads, map(self.start.match, _pick(texts, heads))))
                if self.ending_literals:
                    # every ASCII text's tail (a text found already stays found): the batch
                    # joined above serves, where the texts not found yet would be joined anew
                    found |= self._tails(texts, narrow, batch=batch)
            for i in rest:
                t = texts[i]
                if self._ends(t) or (not t.isascii() and self._ends(TextView(t).norm)):
                    found.add(i)
        return sorted(found)

    def _tails(
        self, texts: Sequence[str], where: list[int], *, batch: _Batch | None = None
    ) -> set[int]:
        """The texts among ``where`` with an ending literal in their last ``ending_span``
        characters, found by one search of the texts joined by ``sep`` for each literal (a
        literal never holds ``sep``, so a match never spans two texts)."""
        if not where or self.sep is None:
            return set()
        free = tuple(c for c in self.ending_checks if c[1] not in self.ending_last)
        found = self._tails_of(texts, where, free, batch=batch)
        by_last: dict[str, list[tuple[str | None, str]]] = {}
        for check in self.ending_checks:
            if check[1] in self.ending_last:
                by_last.setdefault(self.ending_last[check[1]], []).append(check)
        for last, checks in by_last.items():
            # only the texts that end as these literals' signals promise (few answers end in
            # a brace): their literals are looked for there, not in the whole batch
            ends = map(_LAST, map(str.rstrip, _pick(texts, where)))
            ending = list(compress(where, map(last.__contains__, ends)))
            found |= self._tails_of(texts, ending, tuple(checks))
        return found

    def _tails_of(
        self,
        texts: Sequence[str],
        where: list[int],
        checks: tuple[tuple[str | None, str], ...],
        *,
        batch: _Batch | None = None,
    ) -> set[int]:
        """:meth:`_tails` for the ending literals of ``checks`` (``batch``: ``where``'s texts
        joined already)."""
        sep = self.sep
        if not where or not checks or sep is None:
            return set()
        if batch is None:
            batch = _Batch(texts, where, sep)
        joined = batch.joined
        present = [
            lit for gate, lit in checks if (gate is None or gate in joined) and _holds(joined, lit)
        ]
        if not present:
            return set()  # the common case: no ending literal in the whole batch
        starts = batch.starts
        span = self.ending_span
        found: set[int] = set()
        for literal in present:
            pos = joined.find(literal)
            while pos >= 0:
                k = bisect.bisect_right(starts, pos) - 1
                size = starts[k + 1] - starts[k] - len(sep)
                tail = starts[k] + (max(0, size - span) if span else 0)
                if pos >= tail:
                    found.add(where[k])
                    pos = joined.find(literal, starts[k + 1])
                else:
                    pos = joined.find(literal, tail)
        return found

    def _joined(
        self,
        texts: Sequence[str],
        where: list[int],
        *,
        normalise: bool,
        batch: _Batch | None = None,
    ) -> set[int]:
        """The texts among ``where`` holding a literal or the pattern, by one search of them
        joined (``batch``: joined already; ``normalise``: their normalised views)."""
        if not where or not (self.checks or self.pattern is not None):
            return set()
        sep = self.sep
        assert sep is not None
        if batch is None:
            batch = _Batch(texts, where, sep)
        joined = batch.joined
        view = TextView(joined) if normalise else None
        haystack = joined if view is None else view.norm
        if self.pattern is None:
            # literals only: one `str.find` pass per literal (after its gate character, a
            # `memchr`) runs at memory speed, where an alternation without a common prefix
            # costs the regex engine every position; each literal is looked for once
            present: dict[str, bool] = {}
            # each gate character looked for once: many literals share one (``>``, ``:``)
            gates = {gate: gate in haystack for gate in self.gates}
            first = [
                (pos, literal, gate)
                for gate, literal in self.checks
                if (self._opening_in(literal, haystack, present) if gate is None else gates[gate])
                and (pos := _find(haystack, literal, gate)) >= 0
            ]
            if not first:
                return set()  # the common case: the whole batch is clean
        elif not self._anywhere(haystack):
            return set()  # the common case: one quick pass says the whole batch is clean
        starts = batch.starts
        found: set[int] = set()

        def owner(at_norm: int) -> int:
            """Mark the text holding ``at_norm``; where its successor starts (norm offset)."""
            at = at_norm if view is None else view.to_original(at_norm)
            k = bisect.bisect_right(starts, at) - 1
            found.add(where[k])
            # the rest of that text cannot add anything: go on from the next one
            nxt = starts[k + 1] if k + 1 < len(starts) else len(joined)
            return nxt if view is None else view.to_norm(nxt)

        if self.pattern is None:
            for pos, literal, gate in first:
                while pos >= 0:
                    pos = _find(haystack, literal, gate, owner(pos))
            return found
        pos = 0
        search = self.search.search
        while pos < len(haystack):
            m = search(haystack, pos)
            if m is None:
                break
            pos = owner(m.start())
        return found


#: a text's last character ("" for an empty text)
_LAST = itemgetter(slice(-1, None))
#: the characters the start's lookahead reads (:func:`~guard._regex_source.heads_gate`)
_HEAD = itemgetter(slice(0, HEAD_CHARS))


class _Batch:
    """Texts picked from a batch, joined by ``sep`` and where each starts in the join, each
    computed once when first asked for (the literal and the ending searches share them)."""

    __slots__ = ("_joined", "_starts", "picked", "sep")

    def __init__(self, texts: Sequence[str], where: list[int], sep: str) -> None:
        self.picked = _pick(texts, where)
        self.sep = sep
        self._joined: str | None = None
        self._starts: list[int] | None = None

    @property
    def joined(self) -> str:
        if self._joined is None:
            self._joined = self.sep.join(self.picked)
        return self._joined

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = _starts(self.picked, self.sep)
        return self._starts


class _HeadMemo(dict[str, bool]):
    """Whether a text's head (its first :data:`HEAD_CHARS` characters, all the start's
    lookahead reads) passes the lookahead, answered once per head: most answers of a log open
    with a few hundred heads, and a dictionary's answer costs a fraction of a match. Bounded:
    past :data:`_MEMO_CAP` heads it starts over."""

    __slots__ = ("_gate",)

    def __init__(self, gate: re.Pattern[str]) -> None:
        super().__init__()
        self._gate = gate

    def __missing__(self, head: str) -> bool:
        if len(self) >= _MEMO_CAP:
            self.clear()
        passed = self[head] = self._gate.match(head) is not None
        return passed


#: the most heads :class:`_HeadMemo` keeps
_MEMO_CAP = 1 << 14


def _pick(texts: Sequence[str], where: list[int]) -> Sequence[str]:
    """``[texts[i] for i in where]`` (``where``: indices in order), without a Python loop."""
    return texts if len(where) == len(texts) else list(map(texts.__getitem__, where))


def _starts(picked: Sequence[str], sep: str) -> list[int]:
    """Where each text starts in ``sep.join(picked)``, and one more entry (where a text after
    the last would start)."""
    # each text's length with the separator after it, summed: one new int per text
    return list(accumulate(map(len(sep).__add__, map(len, picked)), initial=0))


def _start(
    lead: re.Pattern[str] | None, opening: tuple[str, ...], head: int
) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """One pattern whose ``match`` says what the head checks of ``Prefilter._ends`` say,
    behind a lookahead on the text's first characters (:func:`~guard._regex_source.heads_gate`):
    most answers open with words no lead can start with, and failing there costs a fraction of
    failing each branch of the leads in turn. Also that lookahead alone (``None`` without one),
    which reads at most :data:`HEAD_CHARS` characters."""
    if any(not word or word[0].isspace() for word in opening):
        return None, None
    parts = [] if lead is None else [f"(?:{lead.pattern})"]
    parts += [rf"\s{{0,{head - len(word)}}}{re.escape(word)}" for word in opening]
    flags = lead.flags if lead is not None else 0
    source = "|".join(parts) or "(?!)"
    gate = heads_gate(source, flags, HEAD_CHARS)  # None where the source cannot be read either
    try:
        start = re.compile(source if gate is None else f"{gate}(?:{source})", flags)
        return start, None if gate is None else re.compile(gate, flags)
    except re.error:  # a lead that cannot be wrapped (global flags): one text at a time
        return None, None


def prefilter(
    dialect: Dialect,
    surfaces: frozenset[Surface],
    disabled: frozenset[str] = frozenset(),
    *,
    tools_known: bool = True,
    signals: tuple[Signal, ...] | None = None,
) -> Prefilter | None:
    """The prefilter for texts on ``surfaces``, or ``None`` when some anchor signal there
    promises nothing (every text must be judged). ``tools_known=False`` says the texts are
    judged without declared tools, so signals that need them are left out. ``signals``: the
    signal set (default: every registered signal)."""
    every = load_signals() if signals is None else signals
    return _prefilter(dialect, surfaces, disabled, every, tools_known)


@cache
def _prefilter(
    dialect: Dialect,
    surfaces: frozenset[Surface],
    disabled: frozenset[str],
    every: tuple[Signal, ...],
    tools_known: bool = True,
) -> Prefilter | None:
    literals: set[str] = set()
    patterns: list[str] = []
    leads: list[str] = []
    opening: set[str] = set()
    ending: list[str] = []
    ending_literals: set[str] = set()
    #: per ending literal, the characters its signals promise a text ends in ("" for none)
    ending_last: dict[str, str] = {}
    ending_span = 0
    for signal in every:
        if signal.kind != "anchor" or signal.code in disabled or not surfaces & signal.surfaces:
            continue
        triggers = signal.triggers(dialect)
        promise, hints = triggers.detection, triggers.hints
        if promise.needs_tools and not tools_known:
            continue
        if promise.always:
            return None
        opening.update(hints.opening)
        if promise.scope == "opening":
            if hints.lead is None:
                return None  # an opening signal that promises nothing: judge every text
            leads.append(f"(?:{hints.lead})")
        elif promise.scope == "ending":
            if not promise.literals and promise.pattern is None:
                return None
            ending_literals.update(promise.literals)
            for lit in promise.literals:
                # a literal two signals publish keeps a promise only if both make one
                known = ending_last.get(lit)
                if known is None:
                    ending_last[lit] = promise.last
                else:
                    ending_last[lit] = known + promise.last if known and promise.last else ""
            if promise.pattern is not None:
                ending.append(f"(?:{promise.pattern})")
            ending_span = max(ending_span, signal.max_span)
        else:
            literals.update(promise.literals)
            if promise.pattern is not None:
                patterns.append(f"(?:{promise.pattern})")
    return Prefilter(
        tuple(literals),
        re.compile("|".join(patterns)) if patterns else None,
        re.compile("|".join(leads)) if leads else None,
        tuple(sorted(opening)),
        re.compile("|".join(ending)) if ending else None,
        ending_span,
        tuple(sorted(ending_literals)),
        ending_last,
    )
