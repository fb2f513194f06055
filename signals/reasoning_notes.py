"""D: reasoning notes anywhere in the answer, scored by density (the last :data:`SPAN`
characters).

The reasoning voice V reads only the opening; reasoning also leaks in the middle or at the end
of an answer: a derailed summary whose bullets turn into notes to self ("Need correct
multiline."), a sentence that corrects itself ("... twenty minutes? No. Ensure user sees
normal."), a block of drafting instructions ("Need final concise. Let's craft. Wait, must
ensure."). D scores every cue of the reasoning voice in the text (:mod:`._voice`: kinds,
weights, the densest cluster, the opening bonus, the threshold of the context) and fires on a
decisive cluster that holds a self-correction, a terse note or a self-check ("Did I miss the
mock? Yes, one more there."), the kinds whose spelling (``? No``, ``? no``, ``Need ``,
``Did I ``, ``Have I ``) it publishes as its trigger: a text without them costs a prefilter one
search, never a full detection.

Quoted cues (code, a double-quoted phrase, a ``>`` line) do not count. The hit starts at the
cluster's first self-correction or note and ends at the end of the paragraph of its last cue;
its detail lists the score, the threshold and its context, and every cue. It depends on the end
of the text: a stream decides it at the end and holds back from the first ``Need ``, ``? No``,
``Did I `` or ``Have I `` on (ordinary answers rarely hold them; an answer's own "? Yes" is
common, so the self-check is held from its question's first words instead).

A second, learned path judges what the rules do not reach (docs/detection.md, "D's learned
path"): where no reasoning part was sent, a text whose end holds a gate spelling
(:data:`LEARNED_LITERALS`: "Wait,", "Hmm", "I should", "The user wants", ...), no markup outside
code and quotes and a cue of the voice other than the user in the third person, and whose
opening V and L did not find, has its paragraphs of the voice (at least :data:`MIN_WORDS`
words) scored by the model of :mod:`.voice_model`; over its threshold, the hit starts at the
first gate spelling (the stream holds back from there too) and its detail names the margin, the
n-grams that raised it and the cues.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_re as re

from ._common import hit_from_norm
from ._voice import _QUOTED as _CODE_AND_QUOTES
from ._voice import Cue, find_cues, judge
from .reasoning_preamble import ReasoningPreamble
from .reasoning_voice import ReasoningVoice
from .voice_model import load_model, words

#: the opening's own readers: what they find, the learned path leaves to them
_OPENING_READERS = (ReasoningVoice(), ReasoningPreamble())

#: characters at the end of the text that are read
SPAN = 4096
#: the kinds whose spellings are the trigger; a decisive cluster holds one
_KEYS = frozenset({"self-correction", "terse note", "self-check"})
_LITERALS = ("? No", "? no", "Need ", "Did I ", "Have I ")
#: weak kinds read only in an answer's opening (signal L): anywhere in a text, "I need to
#: submit by Friday" and "Now write the summary" are a person's own plans as often as a model's
#: (and an interface header counts only as the text's first line)
_OPENING_ONLY = frozenset(
    {"first-person modal", "reply step", "reasoning header, interface", "the answer a note"}
)
#: the fewest words the learned path judges (as the model reads them, punctuation left out: a
#: Chinese ideograph is a word): a short text gives the model too few n-grams, and a
#: one-line summary ("The user wants to cancel. Offer a refund.") reads
#: like a note to self
MIN_WORDS = 18
#: the learned path's gate: spellings of the voice that ordinary answers seldom hold ("Wait,",
#: "Hmm", "I should", "I need to", Chinese "用户", and "The user" opening a sentence before a
#: verb of asking or wanting); a text without one is never scored by the model. Literals, not a
#: pattern: the audit's prefilter searches a batch's tails for literals at memory speed, and an
#: ending pattern would make it read one text at a time. Each is a search of every batch, so
#: the list is short: a lower-case "the user wants" (one leak more in the read sets) would be
#: looked for at every "the user" of prose
_USER_VERBS = (
    "wants", "wanted", "asks", "asked", "is asking", "was asking", "says", "said", "just",
    "needs", "needed", "might", "probably", "likely", "did", "didn't", "only", "also",
    "mentioned", "requested", "gave", "provided", "wrote", "seems", "is looking", "prefers",
    "expects",
)  # fmt: skip
LEARNED_LITERALS = (
    # the word alone, not "Waits" or "Waiting" (a word of ordinary prose)
    "Wait,",
    "Wait.",
    "Wait!",
    "Wait:",
    "Wait\u2014",
    "Wait\u2026",
    "Hmm",
    "用户",
    "用戶",
    "使用者",
    "I should",
    "I need to",
    *(f"The user {verb}" for verb in _USER_VERBS),
)
#: markup: a control token, a tag, a bracketed marker, a JSON object, an escaped tag, a
#: Harmony recipient. The learned path reads untagged reasoning only: a window that holds markup
#: is the token signals' to judge (and the model never learned from one)
MARKUP = re.compile(r"<[|｜/a-zA-Z!]|\[[A-Z_]{3,}\]|\{\s*\"|&lt;|to=functions")
_LEARNED = "|".join(map(re.escape, LEARNED_LITERALS))
_LEARNED_GATE = re.compile(_LEARNED)
_TRIGGERS = Triggers(
    literals=(*_LITERALS, *LEARNED_LITERALS),
    scope="ending",
    tail=r"(?:\? [Nn]o|Need |Did I |Have I |" + _LEARNED + r")[\s\S]*",
    tail_start=r"\? [Nn]o|Need |Did I |Have I |" + _LEARNED,
    # every prefix of a tail start is a prefix of a hold word: the learned literals whole
    hold_words=("Need", "? No", "? no", "Did I", "Have I", *LEARNED_LITERALS),
)


#: quoted text the learned path does not read, besides what the voice cues skip (code, double
#: quotes, ``>`` lines): a phrase in guillemets, corner brackets or single quotes on one line
#: ("the model replied «The user wants a recipe. I should ...»": a reviewer quoting a leak)
_QUOTED = re.compile(
    r"\u00ab[^\u00bb\n]{1,300}\u00bb|\u300c[^\u300d\n]{1,300}\u300d|\u2018[^\u2019\n]{1,300}\u2019"
    r"|(?<![\w'])'(?=\S)[^'\n]{1,300}(?<=\S)'(?![\w'])"
)


def _unquoted(window: str) -> str:
    """``window`` with code, quoted phrases and ``>`` quote lines blanked (offsets kept)."""
    blank = lambda m: " " * len(m.group())  # noqa: E731
    return _QUOTED.sub(blank, _CODE_AND_QUOTES.sub(blank, window))


#: the cue kinds that do not open the learned path alone: the user in the third person is a
#: summary's register too ("Story 77: The user wants a filter. The user also asked ...")
_USER_KINDS = frozenset({"the user, third person", "the user, third person (zh)"})


def _paragraph(read: str, at: int) -> tuple[int, int]:
    """The paragraph (between blank lines) of ``read`` that holds offset ``at``."""
    start = read.rfind("\n\n", 0, at)
    end = read.find("\n\n", at)
    return (0 if start < 0 else start + 2), (len(read) if end < 0 else end)


def _candidate(window: str) -> tuple[str, int, re.Match[str], list[Cue]] | None:
    """What the learned path scores of ``window`` and where: the paragraphs from the one that
    holds its first gate spelling or cue to the one that holds its last (the answer around
    them would dilute the voice), with code, quotes and ``>`` lines blanked; its first gate
    spelling and its cues. ``None`` when it has no gate spelling outside quotes, markup outside
    code and quotes, or no cue but the user in the third person (nothing to score)."""
    read = _unquoted(window)
    gate = _LEARNED_GATE.search(read)
    if gate is None or MARKUP.search(read) is not None:
        return None
    cues = find_cues(read)
    if all(c.kind in _USER_KINDS for c in cues):
        return None
    start = _paragraph(read, min(gate.start(), cues[0].start))[0]
    end = _paragraph(read, max(gate.end(), cues[-1].end) - 1)[1]
    return read[start:end], start, gate, cues


def learned_window(text: str) -> str | None:
    """What D's learned path scores of ``text`` (its paragraphs of the voice, from the
    normalised view of its last :data:`SPAN` characters), or ``None`` when the path would score
    nothing (the training script reads each text as the path does)."""
    view = TextView(text)
    found = _candidate(view.norm[view.to_norm(max(0, len(text) - SPAN)) :])
    return None if found is None else found[0]


class ReasoningNotes:
    code = "D"
    name = "reasoning notes"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT})
    max_span = SPAN
    reach = (0, 0)
    order = 28
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        if not ctx.final:
            return
        norm = text.norm
        lo = text.to_norm(max(0, len(text.original) - SPAN))
        window = norm[lo:]
        if any(lit in window for lit in _LITERALS):
            hit = self._ruled(text, ctx, norm, lo, window)
            if hit is not None:
                yield hit
                return
        yield from self._learned(text, ctx, norm, lo, window)

    def _ruled(
        self, text: TextView, ctx: ScanContext, norm: str, lo: int, window: str
    ) -> Hit | None:
        """The rules' path: a decisive cluster of cues that holds a key."""
        found = judge(window, ctx, base=ctx.offset + lo, require=_KEYS, ignore=_OPENING_ONLY)
        if found is None or not found.decisive:
            return None
        # the hit starts at the first key a stream holds back from (its spelling is one of the
        # literals: a lowercase "need verify" counts for the score, but a stream has let it
        # through by the time the cluster is decided)
        held = [
            c.start for c in found.cues if c.kind in _KEYS and window.startswith(_LITERALS, c.start)
        ]
        if not held:
            return None
        start = lo + held[0]
        last = lo + found.cues[-1].end
        paragraph = norm.find("\n\n", last)
        end = len(norm.rstrip()) if paragraph < 0 else paragraph
        return hit_from_norm(
            text, self.code, start, max(end, last), found.explain(window, ctx.offset + lo)
        )

    def _learned(
        self, text: TextView, ctx: ScanContext, norm: str, lo: int, window: str
    ) -> Iterable[Hit]:
        """The learned path: a gate spelling, a cue of the voice outside quoted text, and the
        learned voice over the threshold. Not where the message carried a reasoning part: the
        reasoning had its place, and an agent's report to its operator speaks the same way."""
        if ctx.reasoning is True:
            return
        found = _candidate(window)
        if found is None:
            return
        read, _, gate, cues = found
        if sum(w[-1].isalpha() for w in words(read)) < MIN_WORDS:
            return  # too few n-grams to judge ("The user wants a refund. I sent the link.")
        if ctx.offset == 0 and any(any(True for _ in r.scan(text, ctx)) for r in _OPENING_READERS):
            return  # V's or L's finding: the rules read the opening
        model = load_model()
        if not model.margin(read) > 0:  # (a NaN is no evidence)
            return
        score = model.score(read)
        why = "reasoning part unknown" if ctx.reasoning is None else "no reasoning part"
        last = lo + max(cues[-1].end, gate.end())
        paragraph = norm.find("\n\n", last)
        end = len(norm.rstrip()) if paragraph < 0 else paragraph
        shown = "; ".join(
            f"{c.kind} {window[c.start : c.end].strip()[:40]!r} at {ctx.offset + lo + c.start}"
            for c in cues[:4]
        )
        yield hit_from_norm(
            text,
            self.code,
            lo + gate.start(),
            max(end, last),
            f"reasoning voice in the answer: {score.explain()} ({why}); cues: {shown}",
        )
