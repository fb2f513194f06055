"""A Harmony message header (``<|start|>ROLE<|channel|>...<|message|>``) parsed into its parts
(re-exported by :mod:`guard.scanners.harmony`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from guard.scanners._harmony_tokens import CHANNEL, CONSTRAIN, MESSAGE, START

__all__ = ["HarmonyHeader", "parse_header"]

_CHANNEL_VALUE = re.compile(r"[^\s<]*")


@dataclass(frozen=True, slots=True)
class HarmonyHeader:
    """A parsed message header (see :func:`parse_header` for the rules).

    ``author`` is the header's first word as written (``assistant``, ``user``,
    ``functions.get_weather``; empty when there is none). ``content_type`` is spelled as
    openai-harmony reports it: ``<|constrain|>json`` for a constrained type, the bare word
    (``json``, ``code``) otherwise. ``raw`` is the header as given to the parser.
    """

    author: str
    channel: str | None
    recipient: str | None
    content_type: str | None
    raw: str

    @property
    def tool_name(self) -> str | None:
        """The call's name: the recipient without ``functions.``; built-ins keep theirs."""
        r = self.recipient
        if r is None:
            return None
        if r.startswith("functions.") and len(r) > len("functions."):
            return r[len("functions.") :]
        return r


def _words(part: str) -> list[str]:
    """Blank-separated words; ``<|constrain|>`` starts a word even when glued to the previous."""
    return part.replace(CONSTRAIN, " " + CONSTRAIN).split()


def parse_header(raw: str, *, implied: bool = False) -> HarmonyHeader:
    """Parse a message header: ``<|start|>AUTHOR ...<|message|>`` (both markers optional), or,
    when ``implied``, the rest of a header whose ``<|start|>assistant`` came before the text
    (a completion primed with it starts at ``<|channel|>`` or `` to=``).

    The rules, the one parser for guard's scanner and its transcript audit:

    * **author**: the first word before ``<|channel|>``; ``assistant`` when ``implied``;
    * **channel**: the value right after the first ``<|channel|>`` (up to a blank or ``<``);
    * **recipient**: the value of the *last* ``to=`` word, in the role part or the channel part
      (the channel part counts as later). openai-harmony (0.0.8) reads the last ``to=`` as the
      recipient too, then rejects a header that has another one left over; guard stays lenient
      and keeps the same recipient. A ``to=`` with nothing glued to it names no recipient
      (openai-harmony reads an empty one; the word after it is then the content type);
    * **content type**: the last ``<|constrain|>`` word (glued or spaced), else the last other
      word. Only ``to=`` words name a recipient: openai-harmony reads a lone word after the
      channel (``final json``), or a plain word before the content type, as a recipient.

    Never raises: a header openai-harmony rejects still gets a reading.
    """
    h = raw[: -len(MESSAGE)] if raw.endswith(MESSAGE) else raw
    if h.startswith(START):
        h = h[len(START) :]
    channel: str | None = None
    rest = ""
    ci = h.find(CHANNEL)
    if ci >= 0:
        after = h[ci + len(CHANNEL) :]
        m = _CHANNEL_VALUE.match(after)
        v = m.end() if m else 0
        channel = after[:v] or None
        h, rest = h[:ci], after[v:]
    words = _words(h)
    author = "assistant" if implied else (words.pop(0) if words else "")
    recipient: str | None = None
    content_type: str | None = None
    other: str | None = None
    for word in (*words, *_words(rest)):
        if word.startswith("to="):
            recipient = word[3:] or None
        elif word.startswith(CONSTRAIN):
            content_type = word
        else:
            other = word
    return HarmonyHeader(author, channel, recipient, content_type or other, raw)
