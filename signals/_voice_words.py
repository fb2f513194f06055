"""The words of the reasoning voice (private): regex sources :mod:`._voice` builds its cue
kinds from, and :mod:`.reasoning_preamble` its opening lead from."""

from __future__ import annotations

__all__ = [
    "_DECOR",
    "_EU_PLAN",
    "_EU_USER",
    "_FILLER",
    "_IMPERATIVE",
    "_LABEL",
    "_NOTE_START",
    "_NOTE_VERBS",
    "_OPENER",
    "_OPENER_WEAK",
    "_STEP",
    "_STEP_VERBS",
    "_THE_USER",
    "_THINKING_ING",
    "_THINK_NAME",
    "_THINK_PREFIX",
    "_THINK_TAG",
    "_THOUGHT_ED",
    "_VERBS",
    "_ZH_PLAN",
    "_ZH_USER",
    "zh_both",
]

#: Markdown emphasis or a bullet glyph before an answer's first word (Claude Code's ``✻`` and
#: ``⏺``, ``∴``, ``●``: interfaces mark a thinking line so, and a copied answer keeps it)
_DECOR = "[*_#>\\-\u2022\u25cf\u25c6\u25b8\u2234\u273b\u273d\u2722\u2733\u23fa]{0,4}[ \\t]?"
#: a reasoning label's word, in the cases models write it ("Thinking:", "THOUGHT:", "thought:",
#: "reasoning:"); not ``Thought:``, the ReAct protocol's own line, which an agent that parses it
#: expects, nor the lower-case words a poem or a note opens with ("thinking:", "thoughts:")
_LABEL = r"(?:[Rr]easoning|REASONING|Thinking|THINKING|Thoughts|thought|THOUGHT)"
_VERBS = (
    r"(?:verify|ensure|check|correct|exact|exactly|final|run|handle|answer|respond|reply|mention"
    r"|act(?!\s+(?:fast|now|quickly|soon|on|upon)\b)"
    r"|craft|produce|compute|use|call|confirm|keep|write|output|format|fix|test|formulate"
    r"|clean|concise|short|brief|include|list|summari[sz]e|explain|provide|give|add|avoid"
    r"|finish|double-check|make|be\s+(?:concise|brief|careful|clear))\b"
)
#: more bare verbs of a note to self about the work at hand ("Need inspect failing test")
_NOTE_VERBS = (
    r"(?:inspect|patch|rerun|grep|debug|investigate|look|read|review|update|edit|open|trace"
    r"|retry|diff|rewrite|remove|search|find|parse|compare)\b"
)
#: where a terse note may start: the text's start, a line start, after a sentence, a slash
#: list, a bullet or a comma (every alternative of the lookbehind has a fixed width)
_NOTE_START = r"(?:^|(?<=[.!?;:/\n*\-])|(?<=[.!?;:/,*\-]\s)|(?<=[.!?]\s\s))"
_IMPERATIVE = (
    r"(?:[Ee]nsure|[Nn]eed|Let's|Let\s+me|[Kk]eep|[Uu]se|[Ww]rite|[Mm]ust|[Ss]hould|[Dd]o|[Jj]ust"
    r"|[Ss]ay|[Mm]ake|[Ff]ix|[Ss]tick|[Bb]etter|[Aa]void|[Ff]ocus|[Ss]tay|[Dd]rop|[Aa]dd|[Mm]ention)\b"
)

#: what a model says it is doing while it thinks ("I'm focusing on", "I'm weighing"), and
#: what it says it has thought ("I've decided", "I've determined")
_THINKING_ING = (
    r"(?:focusing|considering|analy[sz]ing|evaluating|weighing|comparing|thinking|exploring"
    r"|reviewing|assessing|examining|investigating|figuring|planning|deciding|checking"
    r"|looking\s+(?:at|into|up)|interpreting|structuring|refining|formulating|drafting|crafting"
    r"|working\s+(?:out|through)|trying\s+to|zeroing|narrowing|leaning|prioriti[sz]ing)\b"
)
_THOUGHT_ED = (
    r"(?:decided|determined|identified|realized|realised|noted|concluded|confirmed"
    r"|established|pinpointed|understood|recognized|recognised|settled|narrowed|figured)\b"
)

#: the filler a reasoning model opens its reasoning with (R1, Qwen3, GLM, MiniMax: "Okay, so
#: the user ...", "Okay, so I need to ...", "Alright, the question is ...")
_FILLER = r"(?:Okay|OK|Ok|Alright|Hmm+|Well|Got\s+it|Right)[,.!]?\s+"
_OPENER = (
    r"\A\s{0,16}(?:(?P<c>" + _FILLER + r"(?:so,?\s+)?)"
    r"(?=(?:the\s+)?[Uu]ser\b|the\s+(?:question|request|task|prompt|problem)\s+is\b|first,?\s+I\b)"
    # "so" then a first-person step or need ("Okay, so I need to", "Alright, so let me"):
    # without "so", "Hmm, I need to think about that one" or "Hmm, let me think... I believe"
    # is a person talking (a weak opener below)
    r"|" + _FILLER + r"so,?\s+(?=I\s+(?:need|have|should|must)\b|[Ll]et(?:\s+me|'s)\s))"
)
#: the filler then a first-person step with no "so" ("Alright, let me think"): weak alone
_OPENER_WEAK = (
    r"\A\s{0,16}(?P<c>" + _FILLER + r")(?=[Ll]et\s+me\s+(?:think|figure|see|recall|check|start"
    r"|analy[sz]e|work|understand|process|parse|tackle|break)\b"
    r"|[Ll]et's\s+(?:see|think|figure|break|tackle|start)\b)"
)
#: what a model needs to do next in its reasoning ("I need to figure out", "I need to scan")
_STEP_VERBS = (
    r"(?:search|scan|look\s+(?:at|for|through)|find|figure\s+out|determine|identify|go\s+through"
    r"|recall|consider|think|work\s+out|verify|make\s+sure|understand)\b"
)
#: the first person planning its own next step ("Let me think", "Let me double-check");
#: "Let me explain", "Let me know", "Let me show you" address the reader and are no cue
_STEP = (
    r"[Ll](?<![\w'][Ll])et\s+me\s+(?:think|figure\s+out|check|analy[sz]e|start\s+(?:by|with)"
    r"|look\s+at|recall"
    r"|count|consider|outline|verify|craft|draft|make\s+sure|compose|structure|reconsider"
    r"|double-check|confirm|plan|work\s+(?:it\s+|this\s+|that\s+)?out|go\s+through"
    r"|organi[sz]e|keep\s+it|write\s+(?:it|that|this|(?:the|an?)\s+(?:example|answer|code|reply))"
    r"|put\s+(?:it|this)\s+together|process"
    r"|tackle|see\s+(?:if|what|how|whether)|recheck|re-?read)\b"
    r"|I(?<![\w']I)(?:'ll\s+(?:keep\s+it|draft|mention|start\s+by|go\s+with)\b"
    r"|\s+need\s+to\s+" + _STEP_VERBS + ")"
)
#: simplified Chinese characters of the cues below and their traditional forms (Taiwan and Hong
#: Kong write "使用者要的是", "我應該先"): :func:`zh_both` reads either
_TRADITIONAL = {
    **dict(
        zip(
            "户现问询让请给应该确认检计释织组写调说简洁荐绍举讲总结帮个虑数对这样输语过当么来题务时间观点边话",
            "戶現問詢讓請給應該確認檢計釋織組寫調說簡潔薦紹舉講總結幫個慮數對這樣輸語過當麼來題務時間觀點邊話",
            strict=True,
        )
    ),
    # one simplified character, two traditional ones (Taiwan writes 回覆 for "reply")
    "复": "復覆",
    "发": "發",
}


def zh_both(source: str) -> str:
    """``source`` (a regex source) reading each simplified character of :data:`_TRADITIONAL`
    in its traditional forms too: ``问`` becomes ``[问問]``, ``复`` ``[复復覆]`` (inside a class,
    they join it)."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            out.append(source[i : i + 2])
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
        elif ch == "]" and in_class:
            in_class = False
        trad = _TRADITIONAL.get(ch)
        if trad is None:
            out.append(ch)
        else:
            out.append(ch + trad if in_class else f"[{ch}{trad}]")
        i += 1
    return "".join(out)


#: Chinese: the user in the third person with a verb of asking or wanting ("用户现在需要",
#: "用户问", "好的，用户让我", "用户又问了一次"); "用户需要" alone is the documentation register
#: ("用户需要先登录")
_ZH_USER = zh_both(
    r"(?:用户|使用者)(?:现在需要|现在想|问(?:题是|(?![题題]))|询问|想|希望|要求|让我|请我|要我|要把|在问|提到"
    r"|需要我|给了|发来|又问|又想|又要)"
)
#: Chinese: an answer planning itself ("我需要先确认", "让我想想", "检查字数", "这样输出即可")
_ZH_PLAN = zh_both(
    r"我(?:现在)?(?:需要|应该|得|要|先)(?:回答|回复|确认|检查|计算|提供|解释|组织|给出|列出|写|调用|查|说明"
    r"|简洁|简短|先|推荐|介绍|举|说|讲|按|分析|总结|概括|看看|看一下|想想|想一下|用一句话|帮)|先(?:写|给出|举)一个"
    r"|让我(?:想想|看看|检查|计算|数一下|组织|确认|先|整理|思考)"
    r"|首先[，,]?\s*(?:我(?:得|要|需要|应该))?(?:明确|确定|确认|分析|理解|要|需要|考虑|看)"
    r"|(?:先|需要|要)调用\S{0,8}工具|字数(?:控制|限制)在"
    r"|(?:检查|数一下|确认|核对)(?:一下)?字数"
    r"|这样(?:输出|回答|回复|写)(?:即可|就行|就可以|应该可以)|(?:组织|整理)(?:一下)?(?:语言|答案|回复)"
    r"|回复(?:要|需要|应该)(?:简洁|简短|友好)|(?:保持|要)简洁"
)
#: "the user" or "User" at a word start, spelled so that a search skips to its first letter (a
#: pattern that opens with ``\b`` is tried at every position)
_THE_USER = r"(?:[Tt](?<!\w[Tt])he\s+user|U(?<!\wU)ser)"
#: a model prefix on a think tag's name: one that ends in ``_``, ``:`` or a digit (``seed:think``,
#: ``M2_7think``), or Claude's ``ant`` before a capitalised name (``antThinking``; not any
#: camel-case prefix: components such as ``<showReasoning>`` are everyday JSX)
_THINK_PREFIX = r"(?:[A-Za-z][\w.-]{0,14}[_:\d]|ant(?=[A-Z]))?"
_THINK_NAME = _THINK_PREFIX + r"(?:think(?:ing)?|thought|reasoning|reflection)"
#: a think tag, with attributes on it as some bridges write them (``<think redacted="true">``,
#: ``<think signature="...">``), or an opening cut before its ``>`` at the end of its line
_THINK_TAG = (
    r"</?(?:" + _THINK_NAME + r")"
    r"(?:\s+[\w:-]+=(?:\"[^\"<>\n]{0,200}\"|'[^'<>\n]{0,200}'))*(?:\s*>|(?=[ \t]*\n))"
)

#: the documentation register before a cue in Portuguese, Spanish, French, Italian and German
#: ("quando o usuário pergunta", "si el usuario pide", "wenn der Nutzer fragt"): fixed-width
#: lookbehinds, one per word
_EU_DOC = "".join(
    f"(?<!{w} )"
    for w in (
        "quando", "Quando", "se", "Se", "si", "Si", "cuando", "Cuando", "quand", "Quand",
        "lorsque", "Lorsque", "wenn", "Wenn", "falls", "Falls", "sobald", "caso", "Caso",
    )
)  # fmt: skip
#: the user in the third person with a verb of asking or wanting, in Portuguese, Spanish,
#: French, Italian and German ("O usuário está perguntando", "El usuario quiere",
#: "L'utilisateur demande", "Der Nutzer möchte"): the register of a model's reasoning about the
#: person it answers; "o usuário pode" (can) is the documentation register
_EU_USER = (
    _EU_DOC + r"(?:[Oo]\s+(?:usuário|utilizador)\s+(?:está\s+(?:perguntando|pedindo|a\s+perguntar"
    r"|a\s+pedir)|pergunta|perguntou|quer|pediu|deseja|solicitou|mencionou|disse)"
    r"|[Ee]l\s+usuario\s+(?:está\s+(?:preguntando|pidiendo)|pregunta|preguntó|quiere|pide"
    r"|pidió|desea|solicita|solicitó|mencionó|dijo)"
    r"|[Ll]['\u2019]utilisateur\s+(?:demande|a\s+demandé|veut|souhaite|voudrait|me\s+demande"
    r"|dit|a\s+dit|pose)"
    r"|[Ll]['\u2019]utente\s+(?:chiede|ha\s+chiesto|vuole|desidera|sta\s+chiedendo)"
    r"|(?:[Dd]er|[Dd]ie)\s+(?:Nutzer(?:in)?|Benutzer(?:in)?|User(?:in)?)\s+(?:fragt|möchte"
    r"|will|wünscht|bittet|hat\s+gefragt|sagt|schreibt))\b"
)
#: a first-person step in those languages ("Deixa eu buscar", "Déjame revisar", "Laisse-moi
#: vérifier", "Lass mich nachsehen"): weak alone (an agent tells its reader so too)
_EU_PLAN = (
    r"\b(?:Deixa(?:-me|\s+eu)\s+(?:buscar|verificar|ver|pensar|checar|procurar|analisar)"
    r"|Déjame\s+(?:buscar|verificar|ver|pensar|revisar|analizar|comprobar)"
    r"|Laisse[- ]moi\s+(?:chercher|vérifier|réfléchir|voir|analyser)"
    r"|Lass\s+mich\s+(?:suchen|prüfen|nachsehen|überlegen|nachdenken|schauen))\b"
)

#: per kind, substrings of which every match holds one: a text that holds none of them is not
#: searched for that kind (an ``in`` test reads text many times faster than a regex search, and
#: most answers hold few kinds' words)
NEEDLES: dict[str, tuple[str, ...]] = {
    "the user wants me to": ("ser",),
    "the user, third person": ("ser",),
    "the user, telegraphic": ("ser",),
    "the plan, telegraphic": ("need ", "answer"),
    "reasoning header, interface": ("hinking about", "hinking...", "hinking\u2026", "HINKING"),
    "the answer a note": ("Need ",),
    "the prompt, third person": ("prompt", "nstruction", "reminder", "system message"),
    "addressing the user": ("ser", "how"),
    "self-correction": ("? N", "? n"),
    "terse note": ("eed", "tool"),
    "answer label": ("my response", "my final response"),
    "reasoning frame": ("one thinking.",),
    "reasoning opener, approach": ("approach",),
    "tool planning": ("tool",),
    "ReAct step, no action": ("Action: N", "Action: n"),
    "ReAct observation, no action": ("Observation:",),
    "reasoning header": (
        "hinking",
        "hought",
        "hain",
        "cratchpad",
        "nternal",
        "思考过程",
        "推理过程",
        "思考過程",
        "推理過程",
    ),
    "first-person plan": ("I",),
    "first-person modal": ("I",),
    "reply step": ("Now", "So", "output"),
    "planning": (
        "we",
        "We",
        "I",
        "Need",
        "Should",
        "Must",
        "Let's",
        "So",
        "Answer",
        "Provide",
        "Thus",
        "ccording",
        "hey",
    ),
    "terse imperative": (
        "Keep",
        "keep",
        "Ensure",
        "Mention",
        "Maybe",
        "Provide",
        "Give",
        "Output",
        "Send",
        "Count",
        "Use ",
        "Use\n",
        "Respond",
        "Reply",
        "Answer",
        "Do.",
        "Let's",
        "let's",
    ),
    "first-person step": ("Let", "let", "I"),
    "the user, third person (pt, es, fr, it, de)": (
        "usuári",
        "usuario",
        "utiliza",
        "utilisateur",
        "utente",
        "utzer",
        "User",
    ),
    "first-person step (pt, es, fr, de)": ("Deixa", "Déjame", "Laisse", "Lass "),
    "reasoning opener, weak": ("et",),
    "scratch note": ("maybe", "then", "also", ";"),
    "wait": ("Wait", "Actually"),
    "scaffold step": ("**", "Final", ". Analy", ". Underst", ". Identif", ". Deconstr"),
    "thought summary": ("**",),
    "thought summary, planned": ("**",),
    "thinking aloud": ("I'm", "I am"),
    "self-check": ("Did I ", "Have I "),
    "reasoning-summary heading": ("ing",),
}
