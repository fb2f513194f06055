r"""O: the answer forges the user's next turn, its role token stripped.

A model that runs on past the end of its turn writes the next one itself, the user's reply:
``?\n\nuser oui\n\nD'accord, ...``, ``\n\nuser\nCan you also fix the ending?``. When the
server strips special tokens, what is left of the header is the role word, lower case, at the
start of a paragraph.
It counts (the ``text`` surface only) when ``user``, right after a blank line, is

* glued to a harness tag (``user<context_window>``: a lower-case name with ``_`` or ``-``),
  or alone on its line with such a tag opening the next line and closed on it around words,
  after a paragraph that ends a sentence (``limits.\n\nuser\n<system_warning>The user is
  asleep.</system_warning>``; a placeholder, ``<user_id>``, holds no words);
* alone on its line, the next line a question (ended by a line break or, in a whole text, by
  its end), and no ``assistant`` line after it (any case, bold, or Gemma's ``model``; a
  transcript quoted in docs shows both roles): ``\n\nuser\nCan you also fix the ending?``;
* after a paragraph that ends in a question (the one the forged reply answers), followed by a
  reply of at most three words that is a paragraph of its own with the answer going on after
  it (``?\n\nuser oui`` then a blank line and ``D'accord``), or by an answer word and a mark or
  the line's end (``?\n\nuser yes, go ahead and push``).

After a blank line, after a paragraph that ends a sentence, the role word followed by the
user's own words counts too: the first person and a word, spaced or glued (``\n\nuseri do not
remember``, ``user we should ...``), an answer word glued to it and a mark (``useryes: on
wednesday``; spaced, ``user ok, group ok`` is a status line), or, after a blank, a question of
eight characters or more ending its line, no code in it (``user what about rolling back?``;
glued, ``userName ...?`` is an identifier); not after a role's label in the :data:`LOOK`
characters before it or a last paragraph that introduces a sample, and a question not when the
next line opens with the other role (``assistant Paris.``: a transcript or a dataset's rows) or
with a lower-case word and a blank (``group which group owns it?``: a term list goes on; a
stream waits for that line).

The harness's system line a model forges after such a turn counts too: ``system`` at a line
start glued to a harness tag (``\nsystem<total_tokens>182044 tokens left</total_tokens>``); so
does the user's turn an agent's interface prints behind its bullet (Claude Code's ``⏺`` or
``●``) after a blank line, labelled, three words at least, then a blank line and the answer
going on in a paragraph that opens with no bullet (``\n\n● Human: go with the other quant
instead\n\nGood call, switching.``; a list of labels, ``● User: Alice (admin)\n● User: Bob``, or
a transcript's next bullet is none), unless a dialogue line or a sample's introduction comes
before it as for the abbreviations below; so does the record of a tool call an agent's interface
prints, which models imitate instead of calling the tool (``[Calling tool: web_search({"query":
...})]`` at a line start, then an invented result), and a ReAct ``Observation:`` line the model
writes after its own ``Action:`` (the tool's result, which the host writes; a ReAct agent stops
the model there). So does the human's turn of a Vicuna-style template glued to its hashes,
``###Human:`` (two to four ``#``; with a blank before the label it is a Markdown heading, which
essays and rubrics write) after a blank line with words on its line, read as the abbreviations
below. So does a dialogue of both turns the model writes after its answer in Claude's
abbreviations (``\n\nH: great, now push it\n\nA: Pushing now.``; the anthropic dialect reserves
``\n\nHuman:`` itself), unless the paragraph before introduces a sample (a colon, a heading,
"example", "role-play", ...) or the :data:`LOOK` characters before it hold a dialogue line (a
transcript). Under the labels ``User:``/``USER:``/``user:`` (``**User:**`` too), ``# User``
headings and ``用户：`` (or the bare ``user`` alone on its line after a blank line), only the
user's reply that acknowledges the answer counts (``Sure, here's your reply.\nUser: thanks! can
you also make it shorter?``, ``\n\n## User\nlooks good, also fix the typo``): an answer word
(``thanks``, ``ok``, ``great``, ``good``, ``yes``, ...) and a mark, the line's end or a second
such word, or ``ok``/``okay``/``thanks`` and a conjunction (``ok and what ...``), or ``go
ahead``, or a phrase (``looks good``, ``thank you``) and a mark or the line's end, right after
the label at a line start; the text before it must end a sentence or a code fence, its
:data:`LOOK` characters hold no dialogue line (a role's label; or any speaker's, capitalised
words or a CJK name and a colon, on the line right before or on two lines: see
:func:`_in_dialogue`), and its last paragraph must not introduce a sample (the words above,
"script", "test case", "mock", "demo", "template", "format", "log", "bot", "FAQ", and their Chinese
counterparts). Sample dialogues, scripts and fine-tuning formats write these labels after every
kind of paragraph, and open with a greeting or a request, not with thanks for an answer the text
has just given; other labelled turns (``User: what about Canada?``) are left out for that
reason, unless they are sentences (:data:`_USER_WORDS`, under a ``User:`` or ``user:`` label)
and the answer's own words acknowledge them on the next line, unlabelled (a word of assent,
:data:`_ACKNOWLEDGED`, then a comma, a mark or a dash: ``Saved.\nuser: Can we also add a
bucket?\nSure - adding it now.``), read with the same exemptions: the model wrote the user's
turn and went on as itself, where a sample labels both speakers.

Prose starts its paragraphs capitalised; a transcript quoted in docs writes ``user:``; a term
list or a form (``Fields:\n\nuser\nThe account name.``, ``Set the owner:\n\nuser Alice``) asks
no question before it; a line of code or configuration (``user  nginx;``) holds ``;``, ``=`` or
a brace; ``user`` glued to a word of another script (``user名``, ``userテーブル``) is a loanword
compound in Japanese, Chinese and Korean prose, and no form reads it, although the model's own
turn in those languages starts so too (``user오 됐다``).

A stream does not hold the turn back (it would have to hold a tail from every line break, a
fifth of every stream's speed): it relays the role word and the forged text as they come and
trips once the turn is decided, so what the model writes after it (the answer going on as if the
user had spoken) is cut. A question after the bare role word is decided by the line after it (an
``assistant`` line makes a transcript), so a stream waits for that line to start. Of the role
words only ``user`` (and the harness's ``system`` line) is read: each is one more search of
every text in an audit's prefilter (``\nuser`` holds no character prose rarely holds), and the
forged turns in reports are the user's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard._windows import finditer as windowed
from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_re as re
from guard.models import lazy_regex as regex

from ._common import hit_from_norm

#: a short reply that is a paragraph of its own: at most this many characters
LINE = 40
#: ... and at most three words (a sentence of prose that opens lower case is longer)
_REPLY = rf"(?=[^\n]{{1,{LINE}}}\n)[^\s;{{}}=]+(?:[ \t][^\s;{{}}=]+){{0,2}}[ \t]*"
#: a question's end: the mark, then closing quotes, brackets or blanks
_ASKED = "[?\uff1f][ \t\"'\u201d\u00bb)]{0,4}"
#: a line that asks, after the role word alone on its line (a blank line may come between them)
#: the assistant's line after a question: a transcript, unless the answer before it forged both
#: (any case, bold, or Gemma's ``model``)
_ASSISTANT_LINE = r"[ \t]*\n(?:[ \t]*\n)?[ \t]*(?:\*\*)?(?i:assistant|model)\b"


def _question(final: bool) -> str:
    """A line that asks, after the role word alone on its line (a blank line may come between
    them), ended by a line break or, in a whole text, by the end (the forged turn that ends the
    generation)."""
    end = r"|\Z" if final else ""
    return (
        rf"[ \t]{{0,8}}\n(?P<spaced>[ \t]{{0,8}}\n)?[^\n]{{1,200}}[?\uff1f][ \t]*(?=\n{end})"
        rf"(?P<answered>(?={_ASSISTANT_LINE}))?"
    )


#: the words a reply to a yes-or-no question opens with, then a mark or the line's end
_ANSWER_WORD = (
    r"(?:yes|no|ok|okay|sure|yep|yeah|nope|please|thanks|go\s+ahead|oui|non|s[ií]|ja|nein"
    r"|да|нет)"
)
_ANSWER = _ANSWER_WORD + r"(?:[,.!;]|[ \t]*\n)"
#: a label of the user's turn at a line start: ``User:``, ``**User:**``, ``用户：``, or a
#: heading alone on its line (``## User``)
_LABEL = (
    r"(?:\*\*)?(?:User|USER):(?:\*\*)?|user:|\u7528\u6237[:\uff1a]"
    r"|#{1,4} User[ \t]*\r?\n(?:[ \t]*\r?\n)?"
)


def _ack(final: bool) -> str:
    """A reply that acknowledges the answer before it: a word, then a mark, the line's end or a
    second such word; ``ok``/``okay``/``thanks`` and a conjunction (``ok and what ...``); ``go
    ahead``; or a phrase, then a mark or the line's end (CJK words too). ``final``: the text
    ends where it ends, so its end is a line's end; in a stream it may go on (``thanks`` may
    become ``thanks andrew``), so only what follows decides."""
    end = r"|\Z" if final else ""
    after = rf"(?=[,.!;:?\uff0c\u3002\uff01\uff1f]|[ \t]*\n{end}"
    blank = rf"(?=[\s,.!;:?]{end})"
    return (
        rf"(?:{_ANSWER_WORD}|great|good|perfect|cool|nice|awesome|lgtm|alright|thx)"
        rf"(?:{after})|[ \t]+(?:perfect|great|thanks|good|cool|nice){blank})"
        rf"|(?:ok|okay|thanks)[ \t]+(?:and|so|now|then|also|but){blank}"
        rf"|go\s+ahead{blank}"
        r"|(?:all\s+right|thank\s+you|looks\s+(?:good|great)|sounds\s+good|got\s+it"
        r"|\u597d\u7684|\u8c22\u8c22|\u53ef\u4ee5|\u6ca1\u95ee\u9898|\u884c)"
        rf"{after})"
    )


#: the longest line of the user's words before the answer acknowledges them
ACKED_LINE = 400
#: the user's words the answer acknowledges: sentences, opening with a capital letter and
#: ending the line with a mark, no ``:``, ``=`` or ``#`` in them (``user: "1000:1000"``,
#: ``User: admin (change this)`` and ``user: app_ro  # read-only`` are a configuration's lines)
_USER_WORDS = rf"[A-Z][^\n:=#]{{6,{ACKED_LINE}}}[.?!][ \t]*"
#: how the answer acknowledges a request it just wrote for the user: a word or phrase of
#: assent opening the line, then a comma, a mark or a dash (``Sure - adding it now.``,
#: ``Perfect, I'll keep the 7 categories``)
_ACKNOWLEDGED = (
    r"(?:Sure|Perfect|Great|Okay|OK|Got\s+it|Absolutely|Of\s+course|Understood|Will\s+do"
    r"|Sounds\s+good|Good\s+call|Certainly|No\s+problem)"
    r"(?:[,.!\u2014\u2013]|[ \t]+[-\u2014\u2013][ \t])"
)


def _reply_turn(final: bool) -> re.Pattern[str]:
    """The user's turn forged after the answer as a reply that acknowledges it: under a label
    at a line start (``User:``, ``## User``, ``用户：``: ``User: thanks! can you also ...``),
    or under the bare role word alone on its line (``\n\nuser\nok perfect. push it``)."""
    ack = _ack(final)
    return re.compile(
        rf"(?m:^)(?P<ack>(?:{_LABEL})[ \t]*)(?i:{ack})"
        rf"|\n[ \t]{{0,8}}\n(?P<bare>user)[ \t]*\n(?=(?i:{ack}))"
        # a request or reply under the label, and the answer's own words acknowledging it on
        # the next line, unlabelled: the model wrote the user's turn and went on as itself
        rf"|(?m:^)(?P<acked>(?:\*\*)?(?:User|USER):(?:\*\*)?[ \t]*|user:[ \t]*)"
        rf"(?={_USER_WORDS}\n(?:[ \t]*\n)?[ \t]*{_ACKNOWLEDGED})"
    )


_REPLY_FINAL = _reply_turn(final=True)
_REPLY_OPEN = _reply_turn(final=False)
_HARNESS_TAG = r"<[a-z]+[_-][a-z_-]+[ >]"


def _turn(final: bool) -> re.Pattern[str]:
    source = _TURN_SOURCE.replace("QUESTION", _question(final))
    return re.compile(source.replace("ASKS", _spoken_asks(final)))


#: the user's words in the first person: ``i``, ``i'm``, ``we``, ``my`` ..., then a word
_SPOKEN_FIRST = r"(?i:i|i'm|im|i've|ive|i'll|we|we're|my)[ \t]+[^\W\d_]"
#: an answer word glued to the role word, then a mark (``useryes: on wednesday``; spaced, it
#: is a check's status line as often: ``user ok, group ok``, ``user ok: 200 in 12 ms``)
_SPOKEN_AGREED = r"(?<=user)(?i:yes|no|ok|okay|sure|yep|yeah|nope|thanks|thx)[,.!:;]"


def _spoken_asks(final: bool) -> str:
    """A question that ends the line (or, in a whole text, the text), no code in it, after a
    blank (``user what about rolling back?``; glued, ``userName ...?`` is an identifier)."""
    end = r"(?:\n|\Z)" if final else r"\n"
    return rf"(?<=[ \t])[^\n?;{{}}=<>`|]{{8,201}}\?[ \t]*{end}"


_TURN_SOURCE = (
    rf"\n[ \t]{{0,8}}\n(?P<role>user)(?:(?={_HARNESS_TAG})"
    # (the tag closed on its line around words: a placeholder, ``<user_id>``, holds none)
    rf"|(?P<tagged>(?=[ \t]{{0,8}}\n[ \t]{{0,8}}<(?P<tagname>[a-z]+[_-][a-z_-]+)(?:[ ][^>\n]*)?>"
    rf"[^<\n]*[^\W\d_][^<\n]*</(?P=tagname)>))|QUESTION)"
    rf"|{_ASKED}\n[ \t]{{0,8}}\n(?P<asked>user)[ \t]{{1,8}}"
    rf"(?:{_REPLY}\n[ \t]{{0,8}}\n(?=[ \t]{{0,8}}\S)|(?i:{_ANSWER})"
    # an answer word that opens a short line, the answer going on after it as its own paragraph
    # (``?\n\nuser ok go ahead, push it\n\nCommitting now.``)
    rf"|(?i:{_ANSWER_WORD})(?=[ \t,.!;])[^\n]{{0,{LINE}}}\n[ \t]{{0,8}}\n(?=[ \t]{{0,8}}\S))"
    # the user's own words after the role word, after a blank line (``\n\nuseri do not
    # remember``, ``useryes: on wednesday``, ``.\n\nuser what about rolling back?``): a first
    # person, an answer word glued to it and a mark, or a question that ends the line
    rf"|\n[ \t]{{0,8}}\n(?P<spoke>user)(?=[ \t]|[A-Za-z])[ \t]{{0,8}}"
    rf"(?:{_SPOKEN_FIRST}|{_SPOKEN_AGREED}|(?P<asks>ASKS))"
    # the harness's system line glued to its tag (``system<total_tokens>...``)
    rf"|\n(?P<system>system)(?={_HARNESS_TAG})"
    # the record of a tool call an agent's interface prints (``[Calling tool: web_search(...)``)
    r"|(?m:^)[ \t]{0,8}(?P<record>\[Calling tool:?[ \t]+[A-Za-z_][\w.\-]*"
    r"(?:\(|[ \t]+with[ \t]+arg))"
    # a dialogue forged after the answer in Claude's abbreviations: the user's line, then the
    # assistant's (``\n\nH: great, now push it\n\nA: Pushing now.``; both hold words)
    r"|\n[ \t]{0,8}\r?\n(?P<dialog>H):[ \t]*(?=[^\n]*[^\W\d_])[^\n]{1,200}\n"
    r"(?:[ \t]{0,8}\r?\n)?[ \t]{0,8}A[ \t]?:[ \t]*[^\W\d_]"
    # the user's turn forged behind the bullet an agent's interface prints before each turn
    # (Claude Code's ``⏺``, ``●``): after a blank line, the bullet and the label (any case, bold
    # or not), three words at least, a blank line, and the answer going on as a paragraph that
    # opens with no bullet (``\n\n● Human: go with the other quant instead\n\nGood call``; a
    # list of labels or a transcript's next turn opens its line with a bullet)
    r"|\n[ \t]{0,8}\n[ \t]{0,8}[\u25cf\u23fa][ \t]{0,2}(?:\*\*)?(?P<bullet>(?i:human|user))"
    r"(?:\*\*)?[ \t]?:(?:\*\*)?[ \t]*(?=[^\n]*\S[ \t]+\S[^\n]*[ \t]\S)[^\n]+\n[ \t]{0,8}\n"
    r"[ \t]{0,8}(?![\u25cf\u23fa\u2022\u25cb\u25aa*+>#-]|\d{1,3}[.)])\S"
    # the human's turn of a Vicuna-style template glued to its hashes (``###Human:``) after a
    # blank line, words on its line: the model writing the user's next message
    # (``\n\n###Human: Specifically, what I need ...``; ``### Human: ...`` with a blank is a
    # Markdown heading, which essays and rubrics write)
    r"|\n[ \t]{0,8}\n[ \t]{0,3}(?P<hashed>#{2,4}Human):[ \t]*(?=[^\n]*[^\W\d_])"
    # a ReAct observation the model wrote after its own action (the tool's result, forged)
    # (the action a call: a JSON object, or a tool's name alone on the line; not a template's
    # "Action: the action to take")
    r"|(?m:^)Action:[ \t]*(?:\n[ \t]*```[^\n]*)?\n?[ \t]*(?:\{|[A-Za-z_][\w.\-]*[ \t]*\n)"
    r"(?:[^\n]*\n){0,12}?(?P<observed>Observation:)"
)
_TURN_FINAL = _turn(final=True)
_TURN_OPEN = _turn(final=False)
#: (no hold: a stream relays the turn as it comes and trips once the turn is decided, before the
#: answer goes on; holding a tail from every line break would slow every stream by a fifth)
_TRIGGERS = Triggers(
    literals=(
        "\nuser",
        "\nsystem<",
        "[Calling tool",
        "Observation:",
        "\nH:",
        "User:",
        "USER:",
        "\n\u7528\u6237",
        "# User",
        # (a character no ASCII text holds: a search of an ASCII batch for it ends at once)
        "\u25cf",
        "\u23fa",
        "#Human:",
    )
)
#: the assistant's line after a question (what makes a transcript), for a stream's text that
#: may still grow into it (a partial match: undecided)
_ANSWERED = regex.compile(_ASSISTANT_LINE)
#: a paragraph that introduces a sample dialogue (a transcript shown, not forged): its words,
#: a colon at its end, or a heading
_SAMPLE = re.compile(
    r"(?i)\b(?:conversation|dialog(?:ue)?|example|e\.g\.|transcript|exchange|sample"
    r"|scenario|role-?play|few-shot|for\s+instance)\b|:\s*\Z"
    r"|\A\s*(?:#|\*\*)"
)
#: how far before the forged dialogue its answer is read (a bounded look, the same in a stream)
LOOK = 400
#: a dialogue line before the forged one: the text is a transcript
_DIALOG_LINE = re.compile(r"(?m)^[ \t]*(?:H|Human|User|A|Assistant|AI|Q|Question)[ \t]?:")


class ForgedTurn:
    code = "O"
    name = "forged turn"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT})
    max_span = LINE + 32
    reach = (0, 0)
    order = 22
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        if not any(lit in norm for lit in _TRIGGERS.literals):
            return
        # a CRLF text's lines read as LF ones (the same length, so offsets stay the text's)
        lines = norm.replace("\r\n", " \n") if "\r" in norm else norm
        hits = sorted(
            [*self._turns(lines, ctx.final), *self._replies(lines, ctx.final)],
            key=lambda h: (h[0], -h[1]),
        )
        seen = -1
        for start, end, detail in hits:
            if start != seen:
                seen = start
                yield hit_from_norm(text, self.code, start, end, detail)

    def _replies(self, norm: str, final: bool) -> Iterable[tuple[int, int, str]]:
        for m in windowed(_REPLY_FINAL if final else _REPLY_OPEN, norm):
            group = next(g for g in ("ack", "bare", "acked") if m.group(g) is not None)
            role = m.start(group)
            if not _forged_reply(norm, role):
                continue
            detail = {
                "ack": "the user's labelled reply forged after the answer",
                "bare": "the user's reply forged after the answer, its role token stripped",
                "acked": "the user's labelled turn forged after the answer, then acknowledged",
            }[group]
            yield role, max(m.end(), role + 4), detail

    def _turns(self, norm: str, final: bool) -> Iterable[tuple[int, int, str]]:
        for m in windowed(_TURN_FINAL if final else _TURN_OPEN, norm):
            groups = (
                *("role", "asked", "spoke", "system", "record"),
                *("observed", "dialog", "bullet", "hashed"),
            )
            group = next(g for g in groups if m.group(g) is not None)
            role = m.start(group)
            # (a bullet is read from its line's start: the bullet is no text before the turn)
            at = norm.rfind("\n", 0, role) + 1 if group == "bullet" else role
            if group in ("dialog", "bullet", "hashed") and not _forged_dialog(norm, at):
                continue
            asks = group == "spoke" and m.group("asks") is not None
            if group == "spoke" and _forged_words(norm, role, final, asks) is not True:
                continue  # a transcript, a sample, a term list (None: the next line decides)
            answered = group == "role" and m.group("answered") is not None
            if answered and not _forged_turns(norm, role):
                continue
            if group == "role" and not answered and not final and m.end() > role + 4:
                # a question after the role word: the assistant's line may still come after it
                # (a transcript); until the next line says otherwise, it is undecided
                after = _ANSWERED.match(norm, m.end(), partial=True)
                if after is not None:
                    continue
            spaced = group == "role" and m.group("spaced") is not None
            tagged = group == "role" and m.group("tagged") is not None
            if tagged and not _ends_a_sentence(norm, role):
                continue  # ``Fields:\n\nuser\n<user_id> ...``: a term and its form
            if spaced and not _ends_a_sentence(norm, role):
                continue  # ``... is set to\n\nuser\n\nShould it be ...?``: a value
            detail = {
                "system": "the system's turn forged inside the answer",
                "record": "the interface's record of a tool call forged inside the answer",
                "observed": "a tool's observation forged after the model's own action",
                "dialog": "a dialogue of both turns forged after the answer",
                "bullet": "the user's turn forged behind an interface's bullet",
                "hashed": "the user's turn forged as a template's '### Human:' line",
            }.get(group, "the user's turn forged inside the answer")
            yield role, max(m.end(), role + 4), detail


def _forged_turns(norm: str, at: int) -> bool:
    """Whether the ``user`` line at ``at``, with an ``assistant`` line after its question,
    follows an answer that ends in data (``Extracted fields: {...}``): a paragraph of prose
    before it introduces a sample, a FAQ, a dataset or a template's rendering."""
    before = norm[max(0, at - LOOK) : at].rstrip()
    paragraph = before[before.rfind("\n\n") + 1 :]
    return bool(before) and before[-1] in "}])" and _SAMPLE.search(paragraph) is None


def _ends_a_sentence(norm: str, at: int) -> bool:
    """Whether the text before ``at`` ends a sentence or a value (not ``... is set to``)."""
    before = norm[max(0, at - LOOK) : at].rstrip()
    return bool(before) and before[-1] in ".!?)]}\"'`\u3002\uff01\uff1f"


def _forged_dialog(norm: str, at: int) -> bool:
    """Whether the dialogue line at ``at`` follows an answer (not a sample dialogue its
    paragraph introduces, and not a transcript whose earlier lines are dialogue too)."""
    before = norm[max(0, at - LOOK) : at].rstrip()
    if not before or _DIALOG_LINE.search(before) is not None:
        return False
    paragraph = before[before.rfind("\n\n") + 1 :]
    return _SAMPLE.search(paragraph) is None


#: a dialogue line of any label (``User:``, ``**Assistant:**``, ``用户：``, ``AI:``): the text
#: before a labelled reply is a transcript or a sample
_ANY_DIALOG_LINE = re.compile(
    r"(?im)^[ \t]*(?:#{1,4}[ \t]*|\*\*)?(?:h|human|user|a|assistant|ai|bot|agent|q|question"
    r"|model|system|\u7528\u6237|\u52a9\u624b)(?:\*\*)?[ \t]?(?:[:\uff1a]|\n)"
)
#: any speaker's label at a line start: one to three capitalised words or upper-case words, or
#: a CJK name, then a colon and the line's text (``Moderator: ...``, ``You said:``,
#: ``NARRATOR:``, ``管理员：``)
_SPEAKER_LINE = re.compile(
    r"(?m)^[ \t]*(?:\*\*)?(?:[A-Z][A-Za-z'-]{0,19}(?:[ \t][A-Za-z][a-z'-]{0,19}){0,2}"
    r"(?:\*\*)?[ \t]?:(?:\*\*)?[ \t]"
    r"|[\u3040-\u30ff\u4e00-\u9fff]{1,6}(?:\*\*)?[:\uff1a])"
)


def _in_dialogue(before: str) -> bool:
    """Whether the text before a labelled reply is a dialogue: a line under a role's label, or
    a speaker's label on the line right before the reply, or on two lines of it (a dialogue
    has its speakers; one ``Note:`` or ``Subject:`` line in an answer does not make one)."""
    if _ANY_DIALOG_LINE.search(before) is not None:
        return True
    starts = [m.start() for m in _SPEAKER_LINE.finditer(before)]
    last = before.rfind("\n") + 1
    return len(starts) >= 2 or bool(starts and starts[-1] >= last)


#: the words of a paragraph that introduces a sample, in Chinese
_SAMPLE_CJK = re.compile(
    r"\u793a\u4f8b|\u4f8b\u5b50|\u6837\u4f8b|\u5bf9\u8bdd|\u811a\u672c|\u5267\u672c"
    r"|\u7528\u4f8b|\u4f8b\u5982|\u6bd4\u5982"
)
#: more words of such a paragraph: a script, a test case, a mock, a demo, a template
_SAMPLE_MORE = re.compile(
    r"(?i)\b(?:script|test\s*cases?|mock|demo|template|format|log|bot|chatbot|faq)\b"
)


#: the line after the user's words that makes them no forged turn: the other role's line (a
#: transcript or a dataset's rows), or a lower-case word and a blank opening it (a term list
#: or a table goes on: ``group which group owns it?``)
_NEXT_LINE = regex.compile(
    r"[ \t]*(?:(?i:assistant|model|bot|ai|system|gpt)(?![\w-])|[a-z][\w-]*[ \t])"
)


def _forged_words(norm: str, at: int, final: bool, asks: bool) -> bool | None:
    """Whether the user's words after the bare role word at ``at`` follow an answer: a text
    that ends a sentence, no role's label in the :data:`LOOK` characters before (a transcript
    writes both roles), a last paragraph that introduces no sample, and, for a question
    (``asks``), no line after it that makes it a transcript or a term list (:data:`_NEXT_LINE`;
    ``None`` while a stream's next line may still say so: the question's line is shown, as a
    question is only decided at its line's end). A speaker's label before them (``Last
    question: any days you skipped?``) is the answer's own words."""
    if not _forged_reply(norm, at, speakers=False):
        return False
    if not asks:
        return True
    end = norm.find("\n", at)
    if end < 0:
        return True if final else None
    after = _NEXT_LINE.match(norm, end + 1, partial=not final)
    if after is None:
        return True
    return None if after.partial else False


def _forged_reply(norm: str, at: int, *, speakers: bool = True) -> bool:
    """Whether the labelled reply at ``at`` follows an answer that ends a sentence (or a code
    fence), with no dialogue line before it (a transcript, a sample, a script) and a paragraph
    before it that does not introduce a sample. ``speakers``: any speaker's label makes a
    dialogue too (:func:`_in_dialogue`); else only a role's."""
    before = norm[max(0, at - LOOK) : at].rstrip()
    if not before or before[-1] not in ".!?)]}\"'`\u201d\u3002\uff01\uff1f":
        return False
    if _in_dialogue(before) if speakers else _ANY_DIALOG_LINE.search(before) is not None:
        return False
    paragraph = before[before.rfind("\n\n") + 1 :]
    return not any(p.search(paragraph) is not None for p in (_SAMPLE, _SAMPLE_CJK, _SAMPLE_MORE))
