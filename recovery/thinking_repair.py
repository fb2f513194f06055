"""thinking-repair: leaked Harmony reasoning in visible text goes back to thinking.

``<|channel|>analysis<|message|>...<|end|>`` (bare, or rendered with ``<|start|>assistant`` in
front) becomes thinking; a leaked ``final`` header around the answer is removed and its body stays
text. Spellings that the verdict marks as inside closed Markdown code (a fence or span quoting the
tags) are quoted, not leaked, and stay text.

Reasoning that leaked with no token at all (signal V: the analysis channel's voice at the start
of the text, ``The user asks ... We need to answer ...``) is moved too: the verdict's V hit spans
it (from the start of the text to the end of the paragraph holding its last cue), and that span
becomes thinking; the rest, without the blanks that separated it, stays text.
"""

from __future__ import annotations

import re

from guard.models import Outcome, Recovered, Split, Verdict

_OPEN = re.compile(
    r"(?:<\|start\|>assistant)?<\|channel\|>(?P<channel>analysis|final)"
    r"(?:[ \t]*<\|constrain\|>\w+)?<\|message\|>"
)
_CLOSE = re.compile(r"<\|end\|>|<\|return\|>|(?=<\|start\|>)|(?=<\|channel\|>)")


class ThinkingRepair:
    name = "thinking_repair"

    def apply(self, value: str, verdict: Verdict, *, attempt: int = 0) -> Outcome:
        quoted = [(h.start, h.end) for h in verdict.hits if h.in_code]

        def in_code(pos: int) -> bool:
            return any(s <= pos < e for s, e in quoted)

        text: list[str] = []
        thinking: list[str] = []
        pos = 0
        moved = 0
        voice = next((h for h in verdict.hits if "V" in h.signals and not h.in_code), None)
        if voice is not None and 0 <= voice.start < voice.end <= len(value):
            text.append(value[: voice.start])
            leaked = value[voice.start : voice.end].strip()
            thinking.append(leaked)
            moved += len(leaked)
            pos = voice.end + len(value[voice.end :]) - len(value[voice.end :].lstrip())
        for m in _OPEN.finditer(value):
            if m.start() < pos or in_code(m.start()):
                continue
            close = _CLOSE.search(value, m.end())
            body_end = close.start() if close else len(value)
            after = close.end() if close else len(value)
            text.append(value[pos : m.start()])
            body = value[m.end() : body_end]
            if m.group("channel") == "analysis":
                thinking.append(body)
                moved += len(body)
            else:
                text.append(body)
            pos = after
        text.append(value[pos:])
        split = Split(text="".join(text), thinking="\n\n".join(t for t in thinking if t))
        detail = f"moved {moved} characters to thinking" if moved else "nothing to repair"
        return Recovered(value=split, strategy=self.name, detail=detail)
