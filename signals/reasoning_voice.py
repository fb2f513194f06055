"""V: leaked reasoning voice at the start of the visible answer.

gpt-oss reasons in the ``analysis`` channel in a register of its own: it talks about the user in
the third person and plans its reply (``The user asks for ... We need to answer concisely. So
answer: ...``). When a server drops the channel split, that text arrives as ``content`` with no
token at all; it is the most common gpt-oss complaint.

The signal reads only the opening of the text (the first :data:`WINDOW` characters): the first
cue must open the text (after blanks and a filler such as ``Okay,``), and it counts cues of two
kinds, each only when it appears early:

* *user* cues: ``the user`` (or ``User``) followed by a verb of speaking or wanting (``asks``,
  ``wants``, ``is asking``, ``says``, ``gave``, ...), not after ``when``/``if``/``once`` (the
  documentation register: "When the user asks a question, the bot ...");
* *plan* cues: the model planning its own reply (``We need to answer``, ``Let's craft``,
  ``So answer:``, ``Should respond``, ``According to policy``, ...).

It fires when the voice is decisive for the context the caller gives:

* the message carried no reasoning part (``reasoning=False``; a reasoning model's answer with
  no reasoning part): an opening cue and one more cue;
* unknown or with a reasoning part: at least three cues, of both kinds.

It stays quiet on documentation prose (``The user can configure ...``: modal verbs are not
cues), on a natural ``we`` (``We need to install the package first``: only verbs of answering
and planning a reply count), on quoted text (a text opening with ``>``, a quote mark or a
backtick) and on code (closed code is exempt by the gate). The hit spans from the start of the
text to the end of the paragraph holding the last cue; thinking-repair moves that part into
thinking.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_re as re

from ._common import hit_from_norm

#: characters of the opening that decide the voice
WINDOW = 400
#: the first cue must start within this many characters of the first non-blank one
OPENS_WITHIN = 24

_SPEAK = (
    r"(?:is\s+|was\s+)?(?:asks?|asked|asking|wants?|wanted|wanting|requests?|requested|requesting"
    r"|says?|said|saying|wrote|writes|mentions?|mentioned|provided?|provides|gave|gives|greets?"
    r"|greeted|needs|likely|probably|might|seems|just|question|query|message|is\s+looking"
    r"|told|tells|telling|is\s+after"
    # what the user did, then what they want: "The user uploaded a receipt and wants the total"
    # (read, not looked ahead at: a stream's partial match must see it grow)
    # (a blank before "and", not ``\b``: the regex engine's partial match, which a stream's
    # growing text is read with, gives up on a word boundary at the end of the text)
    r"|(?:uploaded|pasted|shared|sent|attached|posted)\s[^.\n]{0,80}?\sand\s+(?:wants|asks"
    r"|needs)"
    # the model on the user's aim toward itself ("The user is trying to get me to list ...")
    r"|(?:trying|attempting)\s+to\s+(?:get|make|trick|push|have|convince|manipulate"
    r"|jailbreak)\s+me)\b"
)
_USER = re.compile(r"\b(?:[Tt]he\s+user|User)(?:'s)?\s+" + _SPEAK)
_DOC_BEFORE = re.compile(
    r"(?i:\b(?:when|if|once|after|before|whenever|until|unless|where|so\s+that)\s+)\Z"
)
_REPLY_VERB = (
    r"(?:answer|respond|reply|provide|give|output|produce|craft|write|explain|comply|refuse"
    r"|mention|check|compute|calculate|call|ask|clarify|greet|keep|be|use|say|return|list"
    r"|summari[sz]e|translate|confirm|suggest|recommend|quote|offer|show)\b"
)
#: the alternatives share one leading ``\b`` and each starts with a literal or a character
#: class, so a regex engine rules most out by one character (a branch that starts with a group
#: or an assertion is entered at every position): the opening cue searches up to 24 positions
#: of every answer that opens with a common word
_PLAN_BODY = (
    r"[Ww]e\s+(?:need|have|must|should|will|can|could)\s+(?:to\s+)?"
    + _REPLY_VERB
    + r"|I\s+(?:need|have|must|should|will|can|could)\s+(?:to\s+)?"
    + _REPLY_VERB
    + r"|[Ww]e'll\s+"
    + _REPLY_VERB
    + r"|Need\s+(?:to\s+)?"
    + _REPLY_VERB
    + r"|Should\s+(?:to\s+)?"
    + _REPLY_VERB
    + r"|Must\s+(?:to\s+)?"
    + _REPLY_VERB
    + r"|Let's\s+(?:answer|respond|reply|craft|produce|provide|give|compute|calculate|check"
    r"|do\s+it|write|output|draft|verify|think)\b"
    r"|So\s+(?:the\s+)?answer\b(?!\s+is\b)"
    r"|So\s+I\s+need\s+to\b"
    r"|Answer\s+(?:concisely|briefly|directly|with|in\s+one)\b"
    r"|Provide\s+(?:the\s+|a\s+)?(?:answer|translation|summary|explanation|short|brief)\b"
    r"|Thus\s+(?:answer|respond)\b"
    r"|[Aa]ccording\s+to\s+(?:the\s+)?policy\b"
    r"|[Tt]hey\s+(?:likely|probably)\s+want\b"
)
_PLAN = re.compile(r"\b(?:" + _PLAN_BODY + ")")
_FILLER = r"\s{0,16}(?:(?:Okay|OK|Ok|Alright|So|Hmm|Well|Now)[,.!]? {1,2})?"
#: how the text must open (after blanks and a filler word) for the voice to count
_LEAD = (
    _FILLER + r"(?:[Tt]he user|User|We |we |I (?:need|should|must|have|will|can)|Need|Should|Must"
    r"|Let's|So |Answer|Provide|Thus|According|They )"
)
_LEAD_RE = re.compile(_LEAD)
#: The lead the signal publishes (the promise the audit prefilter and a stream's hold-back rely
#: on): the text opens with a lead word and holds a cue itself within :data:`OPENS_WITHIN`
#: characters, at the lead or after a space or a line break. An answer that opens with a common
#: word ("So the fix is ...", "We tested ...", "User accounts ...") but holds no cue there is no
#: candidate, so it costs no full detection. Every hit satisfies it (a hit needs :data:`_LEAD`
#: and a cue within that reach of the first non-blank character that starts there or after a
#: blank), and a text that opens with any other word fails it at its first characters. The
#: cue is looked for only after a space or a line break: a greedy run followed by one literal
#: character lets a regex engine skip to those characters, where a lazy run would try the cue
#: at every position (the cue check of ordinary answers was most of an audit's detection cost).
_CUE = r"(?:[Tt]he\s+user(?:'s)?\s+" + _SPEAK + r"|User(?:'s)?\s+" + _SPEAK + "|" + _PLAN_BODY + ")"
#: the letters a cue can start with (a cheap test before the whole alternation)
_CUE_FIRST = r"(?=[TUWINSMLAPtwa])"
_CUE_LEAD = (
    _FILLER
    + r"(?="
    + _LEAD[len(_FILLER) :]
    + r")(?:"
    + _CUE
    + rf"|[\s\S]{{0,{OPENS_WITHIN - 1}}} "
    + _CUE_FIRST
    + _CUE
    + rf"|[\s\S]{{0,{OPENS_WITHIN - 1}}}\n"
    + _CUE
    + ")"
)
_TRIGGERS = Triggers(scope="opening", lead=_CUE_LEAD)


def _cues(norm: str, limit: int) -> list[tuple[int, int, str]]:
    cues = []
    for m in _USER.finditer(norm, 0, limit):
        if _DOC_BEFORE.search(norm, max(0, m.start() - 16), m.start()) is None:
            cues.append((m.start(), m.end(), "user"))
    cues += [(m.start(), m.end(), "plan") for m in _PLAN.finditer(norm, 0, limit)]
    cues.sort()
    return cues


class ReasoningVoice:
    code = "V"
    name = "reasoning voice"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT})
    max_span = WINDOW
    reach = (0, 0)
    order = 25
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        if ctx.offset != 0:
            return
        norm = text.norm
        limit = text.to_norm(min(WINDOW, len(text.original)))
        first = len(norm) - len(norm.lstrip())
        if first >= limit or _LEAD_RE.match(norm, 0, limit) is None:
            return
        cues = _cues(norm, limit)
        if not cues or cues[0][0] - first > OPENS_WITHIN:
            return
        if not any(
            s == first or norm[s - 1] in " \n" for s, _, _ in cues if s - first <= OPENS_WITHIN
        ):
            return  # the published lead looks for the opening cue after a blank only
        kinds = {kind for _, _, kind in cues}
        if ctx.reasoning is False:
            decisive = len(cues) >= 2
        else:
            decisive = len(cues) >= 3 and kinds == {"user", "plan"}
        if not decisive:
            return
        last_end = cues[-1][1]
        paragraph = norm.find("\n\n", last_end, limit)
        end = paragraph if paragraph >= 0 else limit
        summary = ", ".join(norm[s:e] for s, e, _ in cues[:4])
        yield hit_from_norm(
            text,
            self.code,
            first,
            end,
            f"reasoning voice at the start ({len(cues)} cues: {summary})",
        )
