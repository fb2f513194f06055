"""The reasoning voice scored over a whole text (private; signals L and D read it).

A reasoning model that leaks its reasoning into the answer does not always open in the voice V
reads (``The user asks ... We need to answer``). Reports of 2025-2026 show the same register
anywhere in the answer: terse notes to self (``Need verify. Use terminal.``), self-corrections
in mid-sentence (``... twenty minutes? No. Ensure user sees normal.``), labelled preambles
(``Thinking Process:``, ``Reasoning:``), literal think tags, and planning prose whose markers
were stripped. Each of these is a *cue*; one cue is weak evidence (people write "Wait," and
"Let's check"), several close together are strong.

:func:`judge` finds the cues in a span of text, drops those a reader sees as quoted (closed code
spans and fences, a double-quoted phrase on one line, a ``>`` quote line, a documentation
clause such as "When the user asks"), and scores the densest cluster of cues:

* each cue has a weight: 4 for an interface's reasoning header alone on the text's first line
  with the reasoning after it (Grok's "Thinking about the user's request", its ellipsis
  optional, or its placeholders "thinking... thinking..." opening the answer) and for a whole
  answer that is one short note to self ("Need verify healthy.", at most two short sentences,
  "Need", a bare verb and no article or pronoun after it, no question), 3 for "the user
  wants me to", 2 for the strong kinds (the user in
  the third person with a verb of asking, in English or Chinese ("用户现在需要", "用户让我"),
  "respond to the user", a self-correction, a telegraphic note or plan ("We need answer:",
  "So answer:"), a reasoning header, a think
  tag, the opener other families reason with: "Okay, so the user ...", "Okay, so I need to
  ...", "Alright, the question is ..."), 1 for the weak ones (a filler before a step with no
  "so": "Alright, let me think"; planning "we need to answer", a
  first-person plan "I should mention", a first-person step "Let me double-check" (not "Let me
  explain" or "Let me know", which address the reader), Chinese planning ("我应该先",
  "检查字数", "这样输出即可"), a terse imperative "Keep it short", a lowercase scratch note at a
  bullet or after a semicolon ("; maybe add example"), "Wait,", a scaffold step "**Analyze the
  request**" (or numbered in plain text on the request itself: "1. Analyze the request:"), a
  reasoning-summary heading line: one of a few gerunds, or any gerund in bold
  alone on its line, as Gemini titles its thought summaries: "**Weighing the options**");
  the model narrating its own thinking ("I'm looking at the output now", "I'm weighing");
  1 for the reasoning's last sentence glued to the answer's first ("... then summarize.I'll
  list the files") and for the model planning a call of its own tool; 2 for the label a
  reasoning template puts before the answer ("Here is my response:"), for Gemini's "here's how
  I'd approach this" and for Chinese reasoning's "好的，我现在需要",
  2 for a whole thought summary (such a bold gerund title, then a paragraph that reports the
  model's thinking or plans its step: "I'm focusing on ...", "I've decided ...", "I need to")
  and for a self-check ("Did I miss the mock? Yes, ...");
* a self-correction is ``X? No. <imperative>`` where ``X?`` is a fragment; a sentence that
  opens as a question ("Does it stream? No. Keep it synchronous.") is a question and its
  answer, as in a FAQ, and no cue;
* a cluster is the cues within :data:`CLUSTER` characters of its first one; its score is the
  sum of its weights, plus 1 when it starts in the opening (the first :data:`OPENING`
  characters) and plus 1 when it holds four cues or more (density);
* it is decisive when it holds at least one strong cue, at least two cues (one "the user wants
  me to" or one interface header is enough alone), and its score reaches the threshold of the
  context: 3, plus 2 when
  the message carried a reasoning part (``reasoning=True``: the reasoning had a place to go;
  plus 1 only for a cluster that plans the model's next step, "I need to check ...", "Let me
  run ...": an agent's report to its operator tells what it did) and plus 1 for a dialect
  without reasoning markers (its models do not reason in-band).

The verdict explains itself: the score, the threshold and why, and every cue of the cluster
with its kind and its words.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from guard.models import ScanContext
from guard.models import lazy_re as re

from ._voice_words import (
    _DECOR,
    _EU_PLAN,
    _EU_USER,
    _IMPERATIVE,
    _LABEL,
    _NOTE_START,
    _NOTE_VERBS,
    _OPENER,
    _OPENER_WEAK,
    _STEP,
    _THE_USER,
    _THINK_TAG,
    _THINKING_ING,
    _THOUGHT_ED,
    _VERBS,
    _ZH_PLAN,
    _ZH_USER,
    zh_both,
)
from ._voice_words import NEEDLES as _NEEDLES
from .reasoning_voice import _DOC_BEFORE, _PLAN, _REPLY_VERB, _SPEAK

__all__ = ["CLUSTER", "OPENING", "Cue", "Judgement", "find_cues", "judge"]

#: characters from a cluster's first cue to its last cue's start
CLUSTER = 480
#: a cluster whose first cue starts this close to the start of the text gets the opening bonus
OPENING = 80
#: the threshold before context
BASE = 3

#: a CJK ideograph: Chinese cues are only looked for in a text that holds one
_CJK = re.compile(r"[\u3400-\u9fff]")
#: Chinese documentation before a cue: "当用户问 ..." / "如果用户要求 ..." ("when", "if")
_ZH_DOC_BEFORE = re.compile(zh_both(r"(?:当|如果|若|一旦|在|若是|假如)\Z"))

#: what the user does now, in the present (a summary tells what the user asked, in the past;
#: "just" makes the past the turn being answered: "The user just said hello")
_SPEAK_NOW = (
    r"(?:asks|is\s+asking|'s\s+asking|wants|requests|is\s+requesting|greets"
    r"|just\s+(?:asked|said|wrote|greeted|sent|shared))\b"
)
#: ... in Chinese: the turn's own question or aim ("用户想知道", "用户问的是", "用户又问",
#: "用户现在需要我"), not a clause of "when" or "after" ("用户想知道余额时，", "使用者要求重设后，")
#: or a noun phrase ("用户提到的问题")
_ZH_USER_NOW = zh_both(
    r"(?:用户|使用者)(?:想知道|问的是|问题是|问(?![题的])|又问|现在需要我|想让我|想要我|希望我|让我"
    r"|请我|要我|要把|想确认|在问|询问)"
    r"(?![^，。,.\n]{0,40}?[时時后後][，,])"
)
#: what the note paragraph does not hold: words to the reader ("The user needs admin rights.
#: Ask your IT team."): documentation's register
_TO_THE_READER = r"(?!\b(?:[Yy]ou|[Yy]our)\b|[你您])"

#: (kind, weight, pattern); a cue's span is its match's (group ``c`` when the pattern has one)
#: what an agent's scratchpad thinks about: its tools and what they returned
_AGENT_WORK = (
    r"\b(?:tools?|search(?:ed|es|ing)?|look\s*up|lookup|retriev\w*|API|knowledge\s+base"
    r"|(?:check|fetch|call|use)(?:ed|ing)?\s+(?:the\s+)?\w+\s+(?:tool|API|database|docs))\b"
)
_KINDS: tuple[tuple[str, int, re.Pattern[str]], ...] = (
    (
        "the user wants me to",
        3,
        re.compile(_THE_USER + r"\s+(?:wants|asks|needs|expects|is\s+asking)\s+me\s+to\b"),
    ),
    ("the user, third person", 2, re.compile(_THE_USER + r"(?:'s)?\s+" + _SPEAK)),
    ("the user, telegraphic", 2, re.compile(r"[Uu](?<!\w[Uu])ser\s+want\b")),
    # gpt-oss's clipped plan of its reply: "We need answer: ...", "So answer: Sol." (English
    # writes "we need to answer" and "so the answer is")
    (
        "the plan, telegraphic",
        2,
        re.compile(
            r"\b(?P<c>[Ww]e\s+need\s+(?:answer|respond|reply|provide|craft|summari[sz]e"
            r"|explain)\b(?!\s+(?:keys?|sheets?|options?|choices?"
            r"|files?|boxes|fields?)\b)"
            r"|(?<![\w,] )[Ss]o\s+answer\s*:)"
        ),
    ),
    # the model reading its own instructions ("The prompt says no lists")
    (
        "the prompt, third person",
        2,
        re.compile(
            r"\b[Tt]he\s+(?:[a-z]+\s+)?(?:prompt|instructions?|system\s+(?:prompt|reminder|message))"
            r"\s+(?:says|say"
            r"|said|asks|wants|requires|specifies|forbids)\b"
        ),
    ),
    (
        "addressing the user",
        2,
        re.compile(
            r"\b(?:respond|reply|answer|talk)(?:ing)?\s+to\s+the\s+user\b"
            r"|\bhow\s+to\s+(?:respond|reply|answer)\b"
            # the model's own next step toward the person it answers ("I should tell the user")
            r"|\bI\s+(?:should|need\s+to|must|will|'ll|can)\s+(?:tell|inform|remind|ask|let)"
            r"\s+the\s+user\b"
        ),
    ),
    # the literal "? No" / "? no" (signal W's trigger) is part of every match
    ("self-correction", 2, re.compile(r"(?<=\w)(?P<c>\? (?:No|no)(?:pe)?[.,!]\s+)" + _IMPERATIVE)),
    # the whole answer one short note to self (gpt-5's commentary relayed as a message: "Need
    # verify healthy.", "Need inspect failing test first. Then patch parser, rerun."): "Need", a
    # bare verb and no article or pronoun after it ("Need restart after install.", "Need sudo
    # privileges." and "Need check your spam folder." are a terse answer's English), at most two
    # short sentences on one line, no question, the whole answer or its first paragraph (the
    # answer after a blank line: "Need answer yes can reinstall.\n\nYes - ..."); decides alone
    (
        "the answer a note",
        4,
        re.compile(
            r"\A\s*(?P<c>Need\s+(?:" + _VERBS + "|" + _NOTE_VERBS + r")\s+(?!(?:a|an|the|your|my"
            r"|our|their|his|her|its|this|that|these|those|to|for|from|after|before|in|on|at|with"
            r"|by|of|if|when|and|or|it|them|you|me|us|first|now|again|later|soon)\b)[a-z][a-z-]+)"
            r"[^\n?!]{0,120}?[.]?(?:[ \t]+[A-Z][^\n?!.]{0,60}[.]?)?(?:\s*\Z|[ \t]*\r?\n[ \t]*\r?\n)"
        ),
    ),
    (
        "terse note",
        2,
        re.compile(
            r"(?m)"
            + _NOTE_START
            + r"(?P<c>[Nn]eed\s+"
            + _VERBS
            # subjectless after a comma, the run-on of a note ("..., need to confirm first")
            + r"|(?<=,\s)need\s+to\s+"
            + _VERBS
            # the model weighing its own tools ("no tool needed", "no need to call a tool")
            + r"|[Nn]o\s+tools?\s+(?:call\s+)?(?:needed|required)\b"
            r"|[Nn]o\s+need\s+(?:to\s+(?:call|use)|for)\s+(?:a\s+|the\s+|any\s+)?tools?\b)"
        ),
    ),
    (
        "reasoning header",
        2,
        re.compile(
            r"(?m)^[ \t>*#_-]*(?P<c>(?:Here(?:'s|\s+is)\s+(?:a|my|the)\s+)?"
            r"(?:[Tt]hinking\s+[Pp]rocess|[Tt]hought\s+[Pp]rocess|[Cc]hain\s+of\s+[Tt]hought"
            r"|[Ss]cratchpad|[Ii]nternal\s+[Rr]easoning))\b"
            r"|^[ \t>*#_-]*(?P<zh>思考[过過]程|推理[过過]程)[:：]"
        ),
    ),
    # the label a reasoning template puts between the reasoning and the answer (Granite's
    # "Here is my thought process:" ... "Here is my response:"), alone on its line
    (
        "answer label",
        2,
        re.compile(
            r"(?m)^[ \t>*#_-]*(?P<c>Here(?:'s|\s+is)\s+my\s+(?:final\s+)?response\s*[*_]{0,2}:)"
            r"[ \t*_]*$"
        ),
    ),
    # Ollama's command line frames a model's reasoning with "Thinking..." and "...done
    # thinking." alone on their lines: the closer in an answer is the reasoning rendered into it
    (
        "reasoning frame",
        3,
        re.compile(r"(?m)^[ \t]*(?P<c>(?:\.\.\.|\u2026)[ \t]?[Dd]one thinking\.)[ \t]*$"),
    ),
    # an interface's reasoning header alone on the first line, the reasoning after it (Grok's
    # "Thinking about the user's request", with or without an ellipsis), or its placeholders
    # for hidden reasoning opening the answer ("thinking... thinking... —"): no answer opens
    # so, and it decides alone
    (
        "reasoning header, interface",
        4,
        re.compile(
            r"\A\s*(?P<c>Thinking\s+about\s+the\s+user['\u2019]s\s+(?:request|question|query"
            r"|message)(?:\.\.\.|\u2026)?)[ \t]*\r?\n(?=\s*\S)"
            # (the placeholders alone on their lines, a dash after them at most: "Thinking...
            # thinking... okay, got one!" is a persona's joke)
            r"|\A\s*(?P<p>(?i:thinking(?:\.\.\.|\u2026)[ \t\u00a0]*(?:\r?\n[ \t]*)?){2,})"
            r"[\u2014\u2013-]?[ \t]*\r?\n(?=\s*\S)"
        ),
    ),
    # a ReAct step with nothing to call relayed as the answer: its "Thought:" and a line that is
    # "Action: None" (the agent's parser handed the scratchpad to the user; an app that asks
    # for "Thought:" and "Answer:" lines gets them by design, so those are not read); decides
    # alone
    (
        "ReAct step, no action",
        4,
        re.compile(
            r"\A\s*(?:\*\*)?Thought(?:\*\*)?:[^\n]*\S[^\n]*\n(?:[^\n]*\n){0,8}?[ \t]*"
            r"(?P<c>Action:[ \t]*(?:None|none|N/A|No\s+action))[ \t]*(?:\([^)\n]{0,80}\))?[ \t]*"
            r"(?:\n|\Z)"
        ),
    ),
    # a ReAct scratchpad relayed as the answer: its "Thought:" (after a rule line, as agent
    # frameworks print it) about the agent's own work (a tool, a search, a lookup, what it
    # returned) and on the next line, or the one after with no "Action:" line between, an
    # "Observation:" (the agent ran no tool: the observation is its own, or empty); decides
    # alone. A format's docs list "Action:" between the two; a journal's or a lab report's
    # thought and observation name no tool
    (
        "ReAct observation, no action",
        4,
        re.compile(
            r"\A\s*(?:-{3,}[ \t]*\r?\n\s*)?(?P<c>(?:\*\*)?Thought(?:\*\*)?:(?:\*\*)?)(?=[^\n]*"
            + _AGENT_WORK
            + r")"
            r"[^\n]*\S[^\n]*\n(?:(?![ \t]*(?:\*\*)?Action(?:\s+Input)?(?:\*\*)?\s*:)[^\n]*\n)?"
            r"[ \t]*(?:\*\*)?Observation(?:\*\*)?:"
        ),
    ),
    (
        "reasoning label",
        2,
        re.compile(
            r"\A\s*" + _DECOR + r"(?P<c>" + _LABEL + r"\s*[*_]{0,2}:"
            r"|Thinking(?:\.\.\.|\u2026)(?=[ \t]*\r?\n))"
        ),
    ),
    ("think tag", 2, re.compile(_THINK_TAG)),
    ("reasoning opener", 2, re.compile(_OPENER)),
    # Gemini's thinking opener ("Okay, here's how I'd approach this request")
    (
        "reasoning opener, approach",
        2,
        re.compile(
            r"(?P<c>[Hh]ere's\s+how\s+I(?:'d|'ll|\s+would|\s+will)\s+approach\s+(?:this|the)\b)"
        ),
    ),
    # the model planning a call of its own tool ("I should call the parallel search tool"); an
    # agent narrates its steps so too, so it is weak
    (
        "tool planning",
        1,
        re.compile(
            r"\bI(?:\s+(?:should|need\s+to|will|must|can)|'ll)\s+(?:call|use|invoke|run)\s+(?:the|a|an)"
            r"\s+[\w -]{0,30}?tool\b"
        ),
    ),
    ("reasoning opener, weak", 1, re.compile(_OPENER_WEAK)),
    ("the user, third person (zh)", 2, re.compile(_ZH_USER)),
    # the answer's first paragraph a note on the user in the third person, ended by a sentence
    # and a blank line, the answer after it ("The user wants the capital. Answer briefly.\n\n
    # Canberra.", "用户想知道如何重启服务。给出命令即可。\n\nsudo systemctl restart nginx"): a
    # reply's own first paragraph speaks to the user; one ending in a colon introduces what
    # follows ("The user provided a CSV. Here is the cleaned version:\n\n...")
    (
        "the user, then the answer",
        1,
        re.compile(
            r"\A(?:(?![当當]|如果|若|一旦|假如|在)[^\n]){0,40}?(?:"
            + _THE_USER
            + r"\s+"
            + _SPEAK_NOW
            + "|"
            + _ZH_USER_NOW
            + r")(?:"
            + _TO_THE_READER
            + r"[^\n]|\n(?![ \t]*\r?\n)){0,600}?"
            r"(?P<c>[.!\u3002\uff01][ \t]*\r?\n[ \t]*\r?\n)[ \t]*"
            # (the answer, not a list or a label's section, "Next steps:", and not an
            # author's recommendation after a summary, "I recommend ...", "We plan ...")
            r"(?![-+\u2022]|\*(?!\*)|\d{1,2}[.)]|[A-Z][\w ]{0,30}:"
            r"|I\s+(?:recommend|suggest|propose)\b|(?:We|Our)\b)\S"
        ),
    ),
    # "好的，我现在需要 ..." opening the text: Chinese reasoning's "Okay, so I need to" (an
    # answer's "好的，我来 ..." offers help, and is none)
    (
        "reasoning opener (zh)",
        2,
        re.compile(
            zh_both(
                r"\A\s*(?:好的?|嗯)[，,。]\s*我(?:现在)?(?:需要|要|得|应该)(?![^\n]{0,80}[你您请?？])"
            )
        ),
    ),
    # (its first letter looked at before the documentation register's lookbehinds: an English
    # answer holding "User" is searched at a third of the cost)
    ("the user, third person (pt, es, fr, it, de)", 2, re.compile(r"(?=[OoEeLlDd])" + _EU_USER)),
    (
        "addressing the user (zh)",
        2,
        re.compile(zh_both(r"我(?:需要|应该|要|得)先?(?:回答|回复|告诉|问候|提醒)(?:用户|使用者)")),
    ),
    (
        "first-person plan",
        1,
        re.compile(r"\bI\s+(?:need|have|must|should)\s+(?:to\s+)?" + _REPLY_VERB),
    ),
    # the model's own next step in any verb, or what it must not do ("I should sort the keys",
    # "I shouldn't mention the scheduler", "I must not run tools"): weak, as a person writes
    # "I need to see the log" too; it adds to a strong cue, never decides alone. Not a verb of
    # telling the reader ("I should mention ...", "I should note ..."), which an answer says to
    # the person it answers (the negated form is the model deciding what to keep back), and not
    # a step that names the reader ("I need to see your log")
    (
        "first-person modal",
        1,
        re.compile(
            r"\bI\s+(?:(?P<no>shouldn't|should\s+not|mustn't|must\s+not|cannot|can't)|should|must"
            r"|need\s+to)\s+(?:now\s+|first\s+|just\s+|also\s+|actually\s+|still\s+)?"
            r"(?!be\b|have\b)(?(no)|(?!(?:mention|note|add|point|say|stress|emphasi[sz]e|clarify"
            r"|warn|caution|admit|confess|tell|explain|remind|flag|highlight)\b))[a-z]{2,}\b"
            r"(?![^.!?\n]{0,40}\b(?:you|your)\b)"
        ),
    ),
    # the model telling itself to write its output now ("Now write the patch.", "So output the
    # snippet", ", just output the digits"); "Then write your commit message" and "Just reply to
    # this email" tell the reader what to do
    (
        "reply step",
        1,
        re.compile(
            r"(?:^|(?<=[.!?;\n]\s)|(?<=[.!?;\n]))(?P<c>(?:Now|So),?\s+(?:just\s+)?(?:write|output"
            r"|answer|reply|respond)\s+(?:the|it|this|that|a|an|only|just|with|in|briefly"
            r"|concisely)\b)|(?P<g>\b(?:just|then)\s+output\b)"
        ),
    ),
    ("planning", 1, _PLAN),
    (
        "terse imperative",
        1,
        re.compile(
            r"(?m)(?:^|(?<=[.!?\n])\s*|(?<=[.!?;]\s))(?P<c>[Kk]eep\s+(?:it\s+)?(?:short|brief|concise"
            r"|simple)|[Kk]eep\s+it\s+(?:to|under|below|within)\s+(?:one|two|three|\d+)\s+(?:word"
            r"|sentence|line|paragraph|character)s?\b|Ensure\b|Mention\b|Maybe\s+(?:add|mention|offer|include|ask|give)\b"
            r"|(?:Provide|Give|Output|Send)\s+(?:it|that|this)\s*[.!]"
            r"|Count\s+(?:the\s+)?words|Use\s+(?:terminal|shell|the\s+\w+\s+tool|tool)\b"
            r"|(?:Respond|Reply)\s+(?:with|in|briefly)\b|Answer\s+(?:concisely|briefly|directly)"
            r"|Do\.|[Ll]et's\s+(?:craft|formulate|draft|outline|write|slow|produce|compose|respond"
            r"|answer|keep\s+it)\b)"
        ),
    ),
    # a step that names "you" is done for the reader ("Let me draft a reply for you")
    (
        "first-person step",
        1,
        re.compile(r"(?:" + _STEP + r")(?![^.!?\n]{0,40}\b(?:you|your)\b)"),
    ),
    ("planning (zh)", 1, re.compile(_ZH_PLAN)),
    ("first-person step (pt, es, fr, de)", 1, re.compile(_EU_PLAN)),
    (
        "scratch note",
        1,
        re.compile(
            r"(?:maybe(?<=[-*;.?!]\smaybe)|then(?<=[-*;]\sthen)|also(?<=[-*;]\salso))\s+(?:add"
            r"|mention|check|keep|use|include|give|ask|verify|offer|note|say|answer|reply)\b"
            # a bare lower-case step after a semicolon ("...HEAD~1; mention that it only ...")
            r"|(?:mention(?<=;\smention)|note(?<=;\snote)|add(?<=;\sadd)|skip(?<=;\sskip)"
            r"|suggest(?<=;\ssuggest))\s+(?:that|the|it|how|why|a|an|this)\b"
        ),
    ),
    # the reasoning's last sentence glued to the answer's first, no blank between them: the
    # seam a reasoning split leaves when it drops the closing tag and the break after it
    # (``... then summarize.I'll list the files``; an abbreviation has one letter before its
    # dot, ``e.g.``)
    # (a whole lower-case word before the mark, a blank after the opener: ``DialogResult.Yes``,
    # ``sympy.I`` and ``Vol.I`` are names; weak, as a typo makes one too)
    (
        "glued answer",
        1,
        re.compile(
            # (the mark first: a regex engine skips to it; the word before it is checked after)
            r"[.!?](?=[A-Z])(?<=[a-z][a-z][.!?])(?P<c>(?:I(?:'ll|'m|'ve)?|The|This|That|It|Here"
            r"|Sure|Yes|No|Hello|Hi|Okay|So|We|You|Your|There)(?= ))"
        ),
    ),
    (
        "wait",
        1,
        re.compile(
            r"(?m)(?:^|(?<=[.!?]\s)|(?<=[.!?]))(?P<c>(?:Actually,\s+wait|Wait)\b[,.]?"
            # the model correcting its own plan ("Actually we should import it")
            r"|Actually,?\s+(?:we|I|they|the\s+user)\s+(?:should|need|must|can|could|said|asked"
            r"|want|already)\b)"
        ),
    ),
    (
        "scaffold step",
        1,
        re.compile(
            r"\*\*(?:Analy[sz]e|Understand|Evaluate|Draft|Identify|Determine|Review|Plan|Scan"
            r"|Check|Compute|Format|Consider|Recall|Search|Refine|Verify)\b"
            r"[^*\n]{0,40}\*\*|\bFinal\s+check\b"
            # the same step numbered in plain text, on the request itself ("1. Analyze the
            # request: user wants ..."): a tutorial's steps act on a thing, not on the request
            # (one space after the number's dot: the needle ". Analy" finds every such step)
            r"|(?m:^[ \t]*\d{1,2}\. (?:Analy[sz]e|Understand|Identify|Deconstruct)[ \t]+"
            r"the[ \t]+(?:user'?s[ \t]+)?(?:request|question|prompt|query)[ \t]*:)"
        ),
    ),
    # Gemini's thought summary: a bold gerund title alone on its line (or glued after a
    # sentence), then a paragraph in which the model reports its own thinking ("I'm focusing
    # on", "I've decided to"); an agent's report says what it did ("I've updated ...")
    (
        "thought summary",
        2,
        re.compile(
            r"(?m)(?:^[ \t]*|(?<=[.!?]))(?P<c>\*\*[A-Z][a-z]{2,}ing\b[^*\n.!?]{0,60}\*\*)"
            r"[ \t]*\n\s*I(?:(?:'m|\s+am)\s+(?:now\s+|also\s+|still\s+)?"
            + _THINKING_ING
            + r"|(?:'ve|\s+have)\s+(?:now\s+|also\s+|just\s+)?"
            + _THOUGHT_ED
            + ")"
        ),
    ),
    # the same title with the model's next step or what it notices after it ("I need to
    # convert", "I see a search tool is available"): weak, as an agent titles its steps so too
    (
        "thought summary, planned",
        1,
        re.compile(
            r"(?m)(?:^[ \t]*|(?<=[.!?]))(?P<c>\*\*[A-Z][a-z]{2,}ing\b[^*\n.!?]{0,60}\*\*)"
            r"[ \t]*\n\s*I(?:\s+need\s+to|'ll|\s+will|\s+should|\s+see)\b"
        ),
    ),
    # a first-person question about its own work, answered at once: "Did I miss the mock? Yes,
    # one more there." (a FAQ asks "Do I need ...?", the present, and is no cue)
    (
        "self-check",
        2,
        re.compile(
            r"\b(?P<c>(?:Did|Have) I\s+(?:miss|forget|check|cover|handle|include|update|break"
            r"|mention|answer|get)\w*\b[^?\n]{0,80}\? (?:Yes|No)\b)"
        ),
    ),
    # the model narrating its own thinking: "I'm looking at the tool output now", "I'm
    # weighing two options" (weak: an agent's preamble may say so too)
    ("thinking aloud", 1, re.compile(r"\bI(?:'m|\s+am)\s+(?:now\s+)?" + _THINKING_ING)),
    (
        "reasoning-summary heading",
        1,
        re.compile(
            r"(?m)^[ \t*_#]*(?P<c>(?:Crafting|Planning|Considering|Drafting|Evaluating|Exploring"
            r"|Analy[sz]ing|Writing|Reviewing|Clarifying|Formulating)\b[^\n.!?]{0,60})"
            r"[*_ \t]*(?:\n\s*\n|\n?\Z)"
            # Gemini's thought summaries: any gerund, in bold, alone on its line
            r"|^[ \t]*\*\*(?P<g>[A-Z][a-z]{2,}ing\b[^*\n.!?]{0,60})\*\*[ \t]*(?:\n\s*\n|\n?\Z)"
        ),
    ),
)
_STRONG = 2

#: what a reader sees as quoted: closed fences, closed inline spans, a double-quoted phrase on
#: one line (straight or curly quotes), a ``>`` quote line
_QUOTED = re.compile(
    r"(?ms)^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$"
    r"|(`+)[^`\n](?:.*?[^`])??\2(?!`)"
    r"|\"[^\"\n]{1,200}\"|\u201c[^\u201d\n]{1,200}\u201d"
    r"|^[ \t]*>[^\n]*$"
)


@dataclass(frozen=True)
class Cue:
    start: int
    end: int
    kind: str
    weight: int


@dataclass(frozen=True)
class Judgement:
    decisive: bool
    score: int
    threshold: int
    cues: tuple[Cue, ...]
    why: str

    def explain(self, text: str, offset: int = 0) -> str:
        """``score 5 >= 3 (no reasoning part): self-correction '? No. ' at 51, ...``."""
        shown = "; ".join(
            f"{c.kind} {text[c.start : c.end].strip()[:40]!r} at {offset + c.start}"
            for c in self.cues[:6]
        )
        more = f"; {len(self.cues) - 6} more" if len(self.cues) > 6 else ""
        return (
            f"reasoning voice in the answer: score {self.score} >= {self.threshold}"
            f" ({self.why}): {shown}{more}"
        )


def _quoted(text: str) -> tuple[list[int], list[int]]:
    starts: list[int] = []
    ends: list[int] = []
    for m in _QUOTED.finditer(text):
        starts.append(m.start())
        ends.append(m.end())
    return starts, ends


#: a sentence that opens with one of these is a real question ("Does it stream? No. Keep ..."),
#: not a fragment the model corrects ("... twenty minutes? No. Ensure ...")
_QUESTION = re.compile(
    r"\s*(?:Q\s*:\s*)?(?:Do|Does|Did|Is|Are|Was|Were|Can|Could|Should|Would|Will|Have|Has|What"
    r"|Which|Who|Why|How|Where|When)\b"
)
_SENTENCE_END = re.compile(r"[.!?\n:][^.!?\n:]*\Z")


def _asked(text: str, at: int) -> bool:
    """Whether the ``?`` at ``at`` closes a sentence that opens as a question (searched back at
    most 200 characters)."""
    lo = max(0, at - 200)
    end = _SENTENCE_END.search(text, lo, at)
    start = lo if end is None else end.start() + 1
    return _QUESTION.match(text, start, at) is not None


#: Markdown's underscore emphasis at a word's edge (``_I should greet back._``): read as a
#: blank, so the words inside are read as words (``read_file`` keeps its underscore)
_UNDERSCORE_EDGE = re.compile(r"(?<!\w)_+(?=\w)|(?<=\w)_+(?!\w)")


def find_cues(text: str, *, needles: bool = True) -> list[Cue]:
    """Every cue in ``text`` outside quoted text, overlaps resolved to the heavier cue.
    ``needles=False`` searches every kind (the reference the needles must agree with)."""
    q_starts, q_ends = _quoted(text)
    if "_" in text:
        # the same length, so every offset stays the text's own
        text = _UNDERSCORE_EDGE.sub(lambda m: " " * len(m.group()), text)

    def inside(s: int, e: int) -> bool:
        k = bisect.bisect_right(q_starts, s) - 1  # quoted spans do not overlap
        return k >= 0 and e <= q_ends[k]

    found: list[Cue] = []
    cjk = _CJK.search(text) is not None
    for kind, weight, pattern in _KINDS:
        if kind.endswith("(zh)") and not cjk:
            continue  # a Chinese cue needs a Chinese character
        wanted = _NEEDLES.get(kind) if needles else None
        if wanted is not None and not any(map(text.__contains__, wanted)):
            continue
        for m in pattern.finditer(text):
            s, e = m.span("c") if "c" in pattern.groupindex else (-1, -1)
            if s < 0 and "g" in pattern.groupindex:
                s, e = m.span("g")
            if s < 0:
                s, e = m.span()  # no group ``c``, or an alternative without it
            if e <= s or inside(s, e):
                continue
            if kind == "glued answer" and not _lower_word_before(text, s - 1):
                continue  # ``DialogResult.Yes``, ``Vol.I``: a name, not a sentence's end
            if kind == "self-correction" and _asked(text, s):
                continue  # "Do you need a GPU? No. Use ...": a question and its answer
            if kind == "the user, third person (zh)":
                doc = _ZH_DOC_BEFORE.search(text, max(0, s - 2), s)  # "当用户问 ..."
            elif kind.startswith("the user") or kind == "planning":
                doc = _DOC_BEFORE.search(text, max(0, s - 16), s)  # "When the user asks ..."
            else:
                doc = None
            if doc is not None:
                continue  # the documentation register
            found.append(Cue(s, e, kind, weight))
    found.sort(key=lambda c: (c.start, -c.weight))
    kept: list[Cue] = []
    for cue in found:
        if kept and cue.start < kept[-1].end:
            if cue.weight > kept[-1].weight:
                kept[-1] = cue
            continue
        kept.append(cue)
    return kept


def _lower_word_before(text: str, mark: int) -> bool:
    """Whether the word ending right before ``text[mark]`` is all lower-case letters, with no
    dot or word character before it (``summarize.`` yes; ``DialogResult.``, ``v2.`` no)."""
    i = mark
    while i > 0 and text[i - 1].isalpha():
        i -= 1
    word = text[i:mark]
    return (
        len(word) >= 2
        and word.islower()
        and not (i > 0 and (text[i - 1].isalnum() or text[i - 1] in "._"))
    )


#: a modal that keeps something back ("I cannot share it") reports a decision, plans no step
_NEGATED = re.compile(r"\b(?:cannot|can't|shouldn't|should\s+not|mustn't|must\s+not)\b")
#: the kinds that plan the model's own next step (see :func:`judge`)
_PLANS = frozenset(
    {
        "first-person plan",
        "first-person step",
        "first-person modal",
        "first-person step (pt, es, fr, de)",
        "tool planning",
    }
)


def threshold(ctx: ScanContext) -> tuple[int, str]:
    """The score a cluster needs in this context, and why."""
    level, why = BASE, []
    if ctx.reasoning is True:
        level += 2
        why.append("the message has a reasoning part")
    elif ctx.reasoning is False:
        why.append("the message has no reasoning part")
    else:
        why.append("reasoning part unknown")
    if not ctx.dialect.thinking:
        level += 1
        why.append(f"{ctx.dialect.name} has no reasoning markers")
    return level, ", ".join(why)


def judge(
    text: str,
    ctx: ScanContext,
    *,
    base: int = 0,
    require: frozenset[str] | None = None,
    ignore: frozenset[str] = frozenset(),
) -> Judgement | None:
    """The best cluster of cues in ``text`` (whose first character is ``base`` characters into
    the whole text), or ``None`` when it has no cue. ``require``: kinds of which a decisive
    cluster must hold one (a signal's trigger promise); ``ignore``: kinds that do not count.
    Linear in the number of cues: the clusters are windows of a two-pointer walk, scored from
    running sums."""
    cues = [c for c in find_cues(text) if c.kind not in ignore]
    if not cues:
        return None
    level, why = threshold(ctx)
    n = len(cues)
    weight = [0] * (n + 1)
    strong = [0] * (n + 1)
    heavy = [0] * (n + 1)
    allowed = [0] * (n + 1)
    plans = [0] * (n + 1)
    for k, c in enumerate(cues):
        weight[k + 1] = weight[k] + c.weight
        strong[k + 1] = strong[k] + (c.weight >= _STRONG)
        heavy[k + 1] = heavy[k] + (c.weight > _STRONG)
        allowed[k + 1] = allowed[k] + (require is None or c.kind in require)
        planned = c.kind in _PLANS and _NEGATED.search(text, c.start, c.end) is None
        plans[k + 1] = plans[k] + planned
    # where a reasoning part was sent, a cluster that plans the model's next step ("I need to
    # check ...", "Let me run ...") needs one less: reasoning surfaced as the answer plans, an
    # agent's report to its operator tells what it did ("I reset it and sent the link")
    eased = level - 1 if ctx.reasoning is True else level
    # (decisive, score, first, past the last, the score it needs)
    best: tuple[bool, int, int, int, int] | None = None
    j = 0
    for i in range(n):
        j = max(j, i + 1)
        while j < n and cues[j].start - cues[i].start <= CLUSTER:
            j += 1
        score = weight[j] - weight[i]
        if base + cues[i].start < OPENING:
            score += 1
        if j - i >= 4:
            score += 1
        need = eased if plans[j] > plans[i] else level
        decisive = (
            strong[j] > strong[i]
            and (j - i >= 2 or heavy[j] > heavy[i])
            and allowed[j] > allowed[i]
            and score >= need
        )
        if best is None or (decisive, score) > best[:2]:
            best = (decisive, score, i, j, need)
    assert best is not None
    decisive, score, i, j, need = best
    if need < level:
        why += ", one less for a plan of the model's next step"
    return Judgement(decisive, score, need, tuple(cues[i:j]), why)
