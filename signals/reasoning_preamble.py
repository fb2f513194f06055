"""L: an answer that opens as reasoning, scored over its first :data:`SPAN` characters.

Reasoning that leaks whole into the answer often announces itself in its first words, in
shapes the opening cue V does not read: a label (``Thinking Process:``, ``Here's a thinking
process:``, ``Reasoning:``), a literal think tag, a reasoning-summary heading line ("Writing a
bug report", or any gerund in bold alone on its line: Gemini's "**Weighing the options**"),
the model narrating its own thinking ("I'm looking at the tool output now"), an
interface's header (Grok's "Thinking about the user's request" alone on the first line),
"The user wants me to ...", "To answer the user's question ...", a terse note
("Need verify.", "- need short reply"), the telegraphic "user want ...", the openers other
families reason with ("Okay, so the user ...", "Alright, let me think", "Let me analyze",
"I need to ..."), and Chinese reasoning ("用户现在需要 ...", "好的，用户让我 ...", "首先 ...",
"我需要 ..."). L fires when the text opens with one of
these (its published :data:`LEAD`) and the cues of its opening cluster (:mod:`._voice`: kinds,
weights, density, the opening bonus, the threshold of the context) are decisive.

An opening V reads (one of V's lead words, then the gpt-oss voice: "The user asks ... We need
to answer") is left to V: there L fires only with a cue of a kind V does not read ("the user
wants me to", a first-person plan or step, a terse imperative, a header, ...), and never when V
fires itself, so a verdict
names one signal per finding and V's context rules (a reasoning part, a dialect without
reasoning markers) keep their say. Quoted cues do not count. The hit spans the
text from its first non-blank character to the end
of the paragraph of the cluster's last cue; its detail lists the score, the threshold and its
context, and every cue. A stream holds back a text whose opening matches the lead until
:data:`SPAN` characters have arrived or the text ends.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_re as re

from ._common import hit_from_norm
from ._voice import _KINDS, OPENING, judge
from ._voice_words import (
    _DECOR,
    _EU_USER,
    _LABEL,
    _NOTE_VERBS,
    _STEP_VERBS,
    _THINK_TAG,
    _THINKING_ING,
    _VERBS,
    _ZH_PLAN,
    _ZH_USER,
)
from .reasoning_voice import _LEAD_RE as _V_LEAD
from .reasoning_voice import _REPLY_VERB, _SPEAK, ReasoningVoice

#: characters of the opening that are read
SPAN = 4096
#: how the text must open (after blanks and Markdown emphasis) for L to fire
#: (each alternative starts with a literal or a character class, so a regex engine rules most
#: out by the first character: every answer of an audit is matched against it)
_FILLERS = r"(?:Okay|OK|Ok|Alright|Hmm+|Well|Got\s+it|Right)[,.!]?\s+"
LEAD = (
    r"\s{0,16}" + _DECOR + r"(?:(?:" + _FILLERS + r"(?:so,?\s+)?)?(?:"
    r"Here(?:'s|\s+is)\s+(?:a|my|the)\s+(?:[Tt]hinking|[Tt]hought)\s+[Pp]rocess"
    r"|[Tt]h(?:inking|ought)\s+[Pp]rocess"
    r"|(?:" + _LABEL + r"|Scratchpad|Chain\s+of\s+[Tt]hought)\s*[*_]{0,2}:"
    # a correction of the reasoning it comes back to ("Wait, the user asked for ...")
    r"|Wait,\s+(?:the\s+user|user|I|we)\b"
    # the model reading the harness's reminder ("The system reminder says ...")
    r"|The\s+system\s+reminder\s+(?:says|said|asks|wants|requires|specifies|forbids)\b"
    # Grok's header: "Thinking about the user's request" alone on the first line
    r"|Thinking\s+about\s+the\s+user['\u2019]s\s+(?:request|question|query|message)"
    r"(?:\.\.\.|\u2026)?[ \t]*\r?\n"
    # Grok's placeholders for hidden reasoning: "thinking... thinking..."
    # (each alternative opens with a literal or a class, so an engine rules it out by the first
    # character: every answer of an audit is matched against this)
    r"|[Tt](?i:hinking(?:\.\.\.|\u2026)\s*thinking(?:\.\.\.|\u2026))"
    # a ReAct step with nothing to call: "Thought: ..." and, within eight lines, "Action: None"
    r"|[T*](?:\*Thought\*\*|hought):[^\n]*\n(?:[^\n]*\n){0,8}?[ \t]*Action:[ \t]*(?:None|none"
    r"|N/A|No\s+action)[ \t]*(?:\([^)\n]{0,80}\))?[ \t]*(?:\n|\Z)"
    # a ReAct scratchpad: "Thought: ..." (after a rule line too) and, on the next line or the
    # one after with no "Action:" line between, "Observation:"
    r"|(?:-{3,}[ \t]*\r?\n\s*)?(?:\*\*)?Thought(?:\*\*)?:[^\n]*\n"
    r"(?:(?![ \t]*(?:\*\*)?Action(?:\s+Input)?(?:\*\*)?\s*:)[^\n]*\n)?[ \t]*(?:\*\*)?Observation"
    r"(?:\*\*)?:"
    # Ollama's frame: "Thinking..." alone on the first line
    r"|Thinking(?:\.\.\.|\u2026)[ \t]*\r?\n"
    r"|"
    + _THINK_TAG
    + r"|[Tt]he\s+user(?:'s)?\s+"
    + _SPEAK
    + r"|User(?:'s)?\s+"
    + _SPEAK
    + r"|[Uu]ser\s+want\b"
    r"|To\s+(?:answer|respond\s+to|reply\s+to|address)\s+the\s+user"
    r"|(?:Crafting|Planning|Considering|Drafting|Evaluating|Exploring|Analy[sz]ing|Writing"
    r"|Reviewing|Clarifying|Formulating)\b[^\n.!?]{0,60}\n"
    # the model narrating its own thinking (Gemini's thinking text with its tags stripped)
    r"|I(?:'m|\s+am)\s+(?:now\s+)?" + _THINKING_ING + r"|"
    # a bold gerund heading alone on its line (Gemini's thought summaries)
    # (the emphasis prefix above matches nothing here, so only a text that opens with ``**``
    # is held back for it)
    r"\*\*[A-Z][a-z]{2,}ing\b[^\n*.!?]{0,60}\*\*[ \t]*\n"
    # the whole answer a short note ("Need inspect failing test first.")
    r"|Need\s+"
    + _NOTE_VERBS
    + r"|[Nn]eed\s+"
    + _VERBS
    + r"|I\s+(?:need|have)\s+to\s+(?:"
    + _STEP_VERBS
    + "|"
    + _REPLY_VERB
    + r")|[Ll]et\s+me\s+(?:think|reason|figure|see|recall|check|start|analy[sz]e|work|understand"
    r"|process"
    r"|parse|tackle|break)\b|[Ll]et's\s+(?:see|think|figure)\b"
    # Gemini's thinking opener; a plan to use a tool
    r"|[Hh]ere's\s+how\s+I(?:'d|'ll|\s+would|\s+will)\s+approach\b|I\s+should\s+(?:use|call)\b"
    r"|[Ff]irst,?\s+I\s+(?:need|have|should|must)\b|the\s+(?:question|request|task|prompt"
    r"|problem)\s+is\b"
    # gpt-oss after a tool's result: "We got the search results."
    r"|We\s+(?:got|received)\s+(?:the|a|an|some|two|three|\d+)\b"
    # gpt-oss's clipped plan: "We need answer: ..."
    r"|We\s+need\s+(?:answer|respond|reply|provide|craft|summari[sz]e|explain)\b(?!\s+(?:keys?"
    r"|sheets?|options?|choices?|files?|boxes|fields?)\b)"
    # the plan of the reply itself: "We need to write one paragraph ..."
    r"|We\s+(?:need|have)\s+to\s+(?:write|answer|respond|reply|produce|craft|give|output"
    r"|provide|draft|compose)\b"
    # the user in the third person in Portuguese, Spanish, French, Italian, German
    r"|(?=[OoEeLlDd])" + _EU_USER + ")"
    # "Okay, the user dictated ...": after a filler, the user in the third person with a verb in
    # the past, reporting what they did (not "the user created by the script", a participle;
    # "the user password", "the user you created" and "the user should" are no report)
    r"|(?=[OAHWGR])" + _FILLERS + r"(?:so,?\s+)?the\s+user\s+[a-z]{2,}ed\b(?!\s+(?:by|earlier"
    r"|yesterday|last|in|at|on|from|via|with|for|through|before|after)\b)"
    # "Okay so first I look at ...": after a filler, the model's own first step in the present
    # ("first I'll check your config" and "first I'd check" offer help)
    r"|(?=[OAHWGR])" + _FILLERS + r"(?:so,?\s+)?first,?\s+I\s+(?:look|check|read|scan|review"
    r"|figure|parse|consider|think|go\s+through|examine|compare|verify|need\s+to\s+(?:look|check"
    r"|figure|understand|find|read))\b"
    # "Okay, so I need to ...": after a filler with "so", any first-person need
    r"|(?=[OAHWGR])" + _FILLERS + r"so,?\s+I\s+(?:need|have|should|must)\b"
    # Chinese, behind one test of the first character
    r"|(?=[\u3400-\u9fff])(?:(?:好的|嗯|好|那[么麼])[，,]\s*)?(?:(?:思考[过過]程|推理[过過]程)[:：]|"
    + _ZH_USER
    + "|"
    + _ZH_PLAN
    + "))"
)
_LEAD_RE = re.compile(LEAD)
_TRIGGERS = Triggers(scope="opening", lead=LEAD)
_V = ReasoningVoice()
#: the kinds of cue V reads itself
_V_KINDS = frozenset({"the user, third person", "planning"})
_BEYOND_V = frozenset(kind for kind, _, _ in _KINDS) - _V_KINDS


class ReasoningPreamble:
    code = "L"
    name = "reasoning preamble"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT})
    max_span = SPAN
    reach = (0, 0)
    order = 26
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        if ctx.offset != 0:
            return
        norm = text.norm
        limit = text.to_norm(min(SPAN, len(text.original)))
        if _LEAD_RE.match(norm, 0, limit) is None:
            return
        if any(True for _ in _V.scan(text, ctx)):
            return  # V's finding
        opening = norm[:limit]
        beyond = _BEYOND_V if _V_LEAD.match(norm, 0, limit) is not None else None
        found = judge(opening, ctx, require=beyond)
        if found is None or not found.decisive or found.cues[0].start >= OPENING:
            return
        first = len(opening) - len(opening.lstrip())
        last = found.cues[-1].end
        paragraph = opening.find("\n\n", last)
        end = len(opening.rstrip()) if paragraph < 0 else paragraph
        yield hit_from_norm(text, self.code, first, max(end, last), found.explain(opening))
